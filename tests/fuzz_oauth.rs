//! The OAuth proxy's form and token endpoints under random and mutated
//! input: bodies for `/token` (every grant: authorization code, refresh,
//! the ID-JAG bearer grant), `/register`, `/revoke`, the query of
//! `/authorize`, and consent forms (with a live sign-in's transaction and
//! anti-forgery token, and the browser's cookie or not), each seed
//! mutated byte by byte and spliced into the others, or raw bytes. The
//! server never panics (it goes on answering), never answers 5xx, and
//! never grants: no token from `/token`, no authorization code in any
//! redirect.

use std::time::Duration;

use bolero::{TypeGenerator, check};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, OAuthProxy, TrustedIdp, Upstream};
use mcp_runtime::{Server, axum};
use serde_json::json;
use tokio::net::TcpListener;

use super::{Edit, build};

const REDIRECT: &str = "http%3A%2F%2F127.0.0.1%3A1%2Fcallback";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".to_owned()
}

/// Where an input goes.
#[derive(Debug, Clone, Copy)]
enum Target {
    Token,
    Register,
    Revoke,
    Authorize,
    Consent,
}

const TARGETS: [Target; 5] = [Target::Token, Target::Register, Target::Revoke, Target::Authorize, Target::Consent];

/// One input: where, a seed with its edits or raw bytes, and how the
/// client and browser show themselves.
#[derive(Debug, TypeGenerator)]
struct Input {
    target: u8,
    seed: u8,
    /// How many of `edits` apply (few, so many inputs get past the first
    /// checks); the raw bytes instead of a seed when it is high.
    depth: u8,
    edits: Vec<Edit>,
    raw: Vec<u8>,
    basic: bool,
    cookie: bool,
    json: bool,
}

/// The proxy under test, what its seeds name, and an HTTP client.
struct Proxy {
    base: String,
    http: reqwest::Client,
    token_seeds: Vec<String>,
}

/// An ID-JAG its trusted provider signed correctly, but for another
/// authorization server: no edit of it can make it valid.
fn foreign_jag(idp: &str, resource: &str) -> String {
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-a.pem")).unwrap();
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some("a".to_owned());
    header.typ = Some("oauth-id-jag+jwt".to_owned());
    let claims = json!({"iss": idp, "sub": "alice", "aud": "https://other-as.example", "client_id": "fuzz-client",
        "resource": resource, "exp": 4_000_000_000u64, "iat": 1, "jti": "j"});
    jsonwebtoken::encode(&header, &claims, &key).unwrap()
}

async fn start() -> Proxy {
    // The trusted provider's keys; the upstream provider is never reached
    // by these endpoints.
    let idp_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let idp = format!("http://{}", idp_listener.local_addr().unwrap());
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-a.pem")).unwrap();
    let mut jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&key, jsonwebtoken::Algorithm::RS256).unwrap();
    jwk.common.key_id = Some("a".to_owned());
    let jwks = json!({"keys": [jwk]}).to_string();
    let app = axum::Router::new().route("/jwks", axum::routing::get(move || async move { jwks }));
    tokio::spawn(async move { axum::serve(idp_listener, app).await.unwrap() });

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let upstream = Upstream::new("http://127.0.0.1:1/authorize", "http://127.0.0.1:1/token", "up", "up-secret");
    let proxy = OAuthProxy::new(&base, upstream)
        .scopes_supported(["notes:read", "notes:write"])
        .client("fuzz-public", ["http://127.0.0.1:1/callback"], None)
        .client("fuzz-client", ["http://127.0.0.1:1/callback"], Some("fuzz-secret".to_owned()))
        .trust_idp(TrustedIdp::new(&idp).jwks_url(format!("{idp}/jwks")));
    let server = Server::empty("fuzz", "1").tool(hello::Tool);
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new().oauth_proxy(proxy)));
    let resource = format!("{base}/mcp");
    let escaped = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let token_seeds = vec![
        format!(
            "grant_type=authorization_code&client_id=fuzz-public&code=AbCdEf0123456789&redirect_uri={REDIRECT}&code_verifier={}&resource={}",
            "v".repeat(43),
            escaped(&resource)
        ),
        "grant_type=refresh_token&client_id=fuzz-public&refresh_token=r3fr3sh&scope=notes%3Aread".to_owned(),
        format!(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&client_id=fuzz-client&client_secret=fuzz-secret&assertion={}&scope=notes%3Aread",
            foreign_jag(&idp, &resource)
        ),
        "grant_type=client_credentials&client_id=fuzz-client&client_secret=fuzz-secret".to_owned(),
    ];
    Proxy {
        base,
        http: reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap(),
        token_seeds,
    }
}

/// A live sign-in: its transaction, anti-forgery token and browser cookie.
async fn sign_in(proxy: &Proxy) -> (String, String, String) {
    let url = format!(
        "{}/authorize?response_type=code&client_id=fuzz-public&redirect_uri={REDIRECT}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s",
        proxy.base
    );
    let response = proxy.http.get(url).send().await.unwrap();
    let cookie = response.headers().get("set-cookie").unwrap().to_str().unwrap().split(';').next().unwrap().to_owned();
    let page = response.text().await.unwrap();
    let value = |name: &str| {
        let marker = format!(r#"name="{name}" value=""#);
        let start = page.find(&marker).unwrap_or_else(|| panic!("{page}")) + marker.len();
        page[start..start + page[start..].find('"').unwrap()].to_owned()
    };
    (value("transaction"), value("csrf"), cookie)
}

async fn exercise(proxy: &Proxy, input: &Input) {
    let target = TARGETS[usize::from(input.target) % TARGETS.len()];
    let mut cookie = None;
    let seeds: Vec<String> = match target {
        Target::Token => proxy.token_seeds.clone(),
        Target::Register => vec![
            r#"{"redirect_uris":["http://127.0.0.1:8080/cb"],"client_name":"fuzz","token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}"#.to_owned(),
            r#"{"redirect_uris":["https://app.example/cb","http://localhost/cb"],"token_endpoint_auth_method":"client_secret_basic","scope":"notes:read"}"#.to_owned(),
        ],
        Target::Revoke => vec![
            "token=r3fr3sh&token_type_hint=refresh_token&client_id=fuzz-public".to_owned(),
            "token=a.b.c&client_id=fuzz-client&client_secret=fuzz-secret".to_owned(),
        ],
        Target::Authorize => vec![
            format!("response_type=code&client_id=fuzz-public&redirect_uri={REDIRECT}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s&scope=notes%3Aread&resource=http%3A%2F%2F127.0.0.1%2Fmcp"),
            format!("response_type=code&client_id=https%3A%2F%2Fapp.example%2Fclient.json&redirect_uri={REDIRECT}&code_challenge={CHALLENGE}&code_challenge_method=S256"),
        ],
        Target::Consent => {
            let (transaction, csrf, browser) = sign_in(proxy).await;
            cookie = input.cookie.then_some(browser);
            vec![
                format!("transaction={transaction}&csrf={csrf}&decision=approve"),
                format!("transaction={transaction}&csrf={csrf}&decision=deny"),
            ]
        }
    };
    let seeds: Vec<&str> = seeds.iter().map(String::as_str).collect();
    let body = match input.depth {
        224.. => input.raw.clone(),
        depth => build(&seeds, input.seed, &input.edits[..input.edits.len().min(usize::from(depth % 4))]),
    };
    let path = match target {
        Target::Token => "/token",
        Target::Register => "/register",
        Target::Revoke => "/revoke",
        Target::Authorize => "/authorize",
        Target::Consent => "/oauth/consent",
    };
    let url = format!("{}{path}", proxy.base);
    let mut request = match target {
        Target::Authorize => proxy.http.get(format!("{url}?{}", String::from_utf8_lossy(&body))),
        _ => {
            let content_type = if input.json || matches!(target, Target::Register) {
                "application/json"
            } else {
                "application/x-www-form-urlencoded"
            };
            proxy.http.post(url).header("content-type", content_type).body(body.clone())
        }
    };
    if input.basic {
        request = request.basic_auth("fuzz-client", Some("fuzz-secret"));
    }
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    // A URL reqwest cannot make (a fuzzed query) never reaches the server.
    let Ok(request) = request.build() else { return };
    let response = tokio::time::timeout(Duration::from_secs(10), proxy.http.execute(request))
        .await
        .expect("the proxy answers")
        .expect("the proxy answers");
    let status = response.status();
    let location = response.headers().get("location").map(|l| l.to_str().unwrap_or_default().to_owned());
    let text = response.text().await.unwrap_or_default();
    let shown = String::from_utf8_lossy(&body);
    assert!(status.as_u16() < 500, "{path} answered {status} to {shown:?}: {text}");
    if let Some(location) = location {
        assert!(!location.contains("code="), "{path} redirected with a code to {location} for {shown:?}");
    }
    if matches!(target, Target::Token) {
        assert!(!status.is_success(), "{path} granted {text} for {shown:?}");
        let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert!(answer.get("access_token").is_none() && answer.get("refresh_token").is_none(), "{path}: {text}");
    }
}

#[test]
fn any_form_leaves_the_oauth_proxy_answering_and_grants_nothing() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // The HTTP client inside is not unwind-safe; a panic fails the test anyway.
    let proxy = std::panic::AssertUnwindSafe(runtime.block_on(start()));
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    check!()
        .with_type::<Input>()
        .with_iterations(iterations)
        .for_each(|input| runtime.block_on(exercise(&proxy, input)));
    // And it still serves what it should.
    let metadata = runtime.block_on(async {
        let url = format!("{}/.well-known/oauth-authorization-server", proxy.base);
        proxy.http.get(url).send().await.unwrap().status()
    });
    assert_eq!(metadata, 200);
}
