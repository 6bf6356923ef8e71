//! The HTTP endpoint as an OAuth 2.1 protected resource, against a real
//! token issuer: an axum app on loopback serving RFC 8414 metadata and a
//! JWK set for key pairs under `fixtures/oauth`, whose tokens are signed
//! here and sent over real HTTP. Good tokens pass; every way a token can
//! be wrong gets 401; a missing scope gets 403 and hides what it guards;
//! keys rotate, and made-up key ids cannot make the server hammer the
//! issuer.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::http::{Answer, Client};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::prelude::*;
use mcp_runtime::{
    Claims, Server, axum,
    transport::{HttpOptions, OAuth},
};
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, HeaderMap, WWW_AUTHENTICATE};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// Write a note.
#[tool(scopes = ["notes:write"])]
fn write_note(text: String) -> String {
    format!("wrote {text}")
}

/// Who is asking, as the token says.
#[tool]
fn whoami(claims: Claims) -> Json<Value> {
    Json(json!({
        "subject": claims.subject(),
        "scopes": claims.scopes(),
        "tenant": claims.claim::<String>("tenant"),
        "client": claims.client_id(),
    }))
}

/// Every note.
#[resource("notes://all", scopes = ["notes:read"])]
fn all_notes() -> &'static str {
    "a note"
}

/// Summarize the notes.
#[prompt(scopes = ["notes:read"])]
fn summarize() -> String {
    "Summarize my notes.".to_owned()
}

fn server() -> Server {
    Server::empty("notes", "1")
        .tool(write_note::Tool)
        .tool(whoami::Tool)
        .resource(all_notes::Resource)
        .prompt(summarize::Prompt)
}

/// A signing key of the test issuer.
pub(crate) struct Key {
    kid: &'static str,
    alg: Algorithm,
    encoding: EncodingKey,
}

impl Key {
    fn rsa(kid: &'static str, pem: &[u8]) -> Key {
        Key { kid, alg: Algorithm::RS256, encoding: EncodingKey::from_rsa_pem(pem).unwrap() }
    }

    pub(crate) fn a() -> Key {
        Key::rsa("a", include_bytes!("fixtures/oauth/rsa-a.pem"))
    }

    fn b() -> Key {
        Key::rsa("b", include_bytes!("fixtures/oauth/rsa-b.pem"))
    }

    fn ec() -> Key {
        let encoding = EncodingKey::from_ec_pem(include_bytes!("fixtures/oauth/ec.pem")).unwrap();
        Key { kid: "ec", alg: Algorithm::ES256, encoding }
    }

    /// The public half, as the issuer's JWK set lists it.
    fn jwk(&self) -> Value {
        let mut jwk = Jwk::from_encoding_key(&self.encoding, self.alg).unwrap();
        jwk.common.key_id = Some(self.kid.to_owned());
        serde_json::to_value(jwk).unwrap()
    }

    pub(crate) fn sign(&self, claims: &Value) -> String {
        self.sign_as(self.kid, claims)
    }

    fn sign_as(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(kid.to_owned());
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }
}

/// The authorization server: RFC 8414 metadata and a JWK set whose keys
/// a test can change, counting how often the set is fetched.
pub(crate) struct Issuer {
    pub(crate) url: String,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
}

impl Issuer {
    pub(crate) async fn start(keys: &[&Key]) -> Issuer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let keys = Arc::new(Mutex::new(keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()));
        let fetches = Arc::new(AtomicUsize::new(0));
        let metadata = json!({
            "issuer": url,
            "authorization_endpoint": format!("{url}/authorize"),
            "token_endpoint": format!("{url}/token"),
            "jwks_uri": format!("{url}/jwks"),
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        })
        .to_string();
        let (set, count) = (keys.clone(), fetches.clone());
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || async move { ([("content-type", "application/json")], metadata) }),
            )
            .route(
                "/jwks",
                axum::routing::get(move || async move {
                    count.fetch_add(1, Ordering::SeqCst);
                    let body = json!({ "keys": *set.lock().unwrap() }).to_string();
                    ([("content-type", "application/json")], body)
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Issuer { url, keys, fetches }
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

/// Our server, protected by `issuer`.
pub(crate) struct Mcp {
    pub(crate) base: String,
    resource: String,
}

impl Mcp {
    async fn start(issuer: &Issuer, settings: impl FnOnce(OAuth) -> OAuth) -> Mcp {
        Mcp::serving(server(), issuer, settings).await
    }

    /// `served` (instead of `server()`), protected by `issuer`.
    pub(crate) async fn serving(served: Server, issuer: &Issuer, settings: impl FnOnce(OAuth) -> OAuth) -> Mcp {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let resource = format!("{base}/mcp");
        let oauth = settings(OAuth::new(&resource, &issuer.url).scopes_supported(["notes:read", "notes:write"]));
        tokio::spawn(served.serve_http_on(listener, HttpOptions::new().oauth(oauth)));
        Mcp { base, resource }
    }

    /// A client of one session that shows `token`.
    pub(crate) fn client(&self, token: Option<&str>) -> Client {
        let mut headers = HeaderMap::new();
        if let Some(token) = token {
            headers.insert(AUTHORIZATION, format!("Bearer {token}").parse().unwrap());
        }
        let http = reqwest::Client::builder().default_headers(headers).build().unwrap();
        Client { http, url: format!("{}/mcp", self.base), session: None, next_id: 1 }
    }

    /// The claims of a good token for this server, granting `scope`.
    pub(crate) fn claims(&self, issuer: &Issuer, scope: &str) -> Value {
        json!({
            "iss": issuer.url,
            "aud": self.resource,
            "sub": "ann",
            "client_id": "test-client",
            "iat": now(),
            "exp": now() + 300,
            "scope": scope,
            "tenant": "acme",
        })
    }

    fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.base)
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn challenge(answer: &Answer) -> &str {
    answer.headers.get(WWW_AUTHENTICATE).map_or("", |v| v.to_str().unwrap())
}

const INIT: &str =
    r#"{"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}"#;

/// Initialize with `client`'s token: the answer, status and all.
async fn initialize(client: &mut Client) -> Answer {
    client.request("initialize", serde_json::from_str(INIT).unwrap()).await
}

fn names(answer: &Answer, list: &str, key: &str) -> Vec<String> {
    let items = answer.last()["result"][list].as_array().unwrap_or_else(|| panic!("{answer:?}"));
    items.iter().map(|item| item[key].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_valid_token_is_let_through_and_its_claims_reach_the_tool() {
    let (a, ec) = (Key::a(), Key::ec());
    let issuer = Issuer::start(&[&a, &ec]).await;
    let mcp = Mcp::start(&issuer, |o| o).await;
    let mut client = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "notes:read"))));
    client.initialize().await;
    let answer = client.call("whoami", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!(
        answer.last()["result"]["structuredContent"]["result"],
        json!({"subject": "ann", "scopes": ["notes:read"], "tenant": "acme", "client": "test-client"})
    );
    assert_eq!(issuer.fetches(), 1, "the key set was fetched once, through the issuer's metadata");

    // An EC key of the same set, and an audience given as an array with
    // the resource URI in another spelling of the same URL.
    let mut claims = mcp.claims(&issuer, "notes:read");
    claims["aud"] = json!(["https://other.example", mcp.resource.to_uppercase().replace("/MCP", "/mcp/")]);
    let mut client = mcp.client(Some(&ec.sign(&claims)));
    assert_eq!(initialize(&mut client).await.status, StatusCode::OK);
    assert_eq!(issuer.fetches(), 1, "known keys are not fetched again");
}

#[tokio::test]
async fn no_token_gets_401_pointing_at_the_metadata() {
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    let mcp = Mcp::start(&issuer, |o| o).await;
    let answer = initialize(&mut mcp.client(None)).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge(&answer),
        format!(r#"Bearer scope="notes:read notes:write", resource_metadata="{}""#, mcp.metadata_url())
    );
    assert_eq!(answer.last()["error"]["message"], "Unauthorized");
    // Nor does a scheme other than Bearer count as a token.
    let basic = mcp.client(None);
    let answer = basic.send(basic.post("application/json").header(AUTHORIZATION, "Basic YTpi").body(INIT)).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(!challenge(&answer).contains("invalid_token"));
    // A browser's preflight carries no token and is answered; the request
    // after it is refused, and its page can read the challenge.
    let page = mcp.client(None);
    let preflight = page
        .http
        .request(reqwest::Method::OPTIONS, &page.url)
        .header("origin", "http://localhost:6274")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), StatusCode::NO_CONTENT);
    assert_eq!(preflight.headers()["access-control-allow-origin"], "http://localhost:6274");
    let answer = page.send(page.post("application/json").header("origin", "http://localhost:6274").body(INIT)).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(answer.headers["access-control-allow-origin"], "http://localhost:6274");
    assert!(answer.headers["access-control-expose-headers"].to_str().unwrap().contains("www-authenticate"));
    assert_eq!(issuer.fetches(), 0, "no token, no key fetch");
}

#[tokio::test]
async fn every_kind_of_bad_token_gets_401_invalid_token() {
    let (a, b) = (Key::a(), Key::b());
    let issuer = Issuer::start(&[&a]).await;
    let mcp = Mcp::start(&issuer, |o| o).await;
    let good = mcp.claims(&issuer, "notes:read");
    let with = |key: &str, value: Value| {
        let mut claims = good.clone();
        claims[key] = value;
        claims
    };
    let without = |key: &str| {
        let mut claims = good.clone();
        claims.as_object_mut().unwrap().remove(key);
        claims
    };
    // Algorithm confusion: HS256 keyed with the RSA public key's bytes.
    let public = include_bytes!("fixtures/oauth/rsa-a.pub.pem");
    let mut hs_header = Header::new(Algorithm::HS256);
    hs_header.kid = Some("a".into());
    let confused = jsonwebtoken::encode(&hs_header, &good, &EncodingKey::from_secret(public)).unwrap();
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT","kid":"a"}"#),
        URL_SAFE_NO_PAD.encode(good.to_string())
    );
    let cases = [
        ("another audience", a.sign(&with("aud", json!("http://127.0.0.1:1/mcp")))),
        ("audiences without ours", a.sign(&with("aud", json!(["https://a.example", "https://b.example"])))),
        ("no audience", a.sign(&without("aud"))),
        ("another issuer", a.sign(&with("iss", json!("https://evil.example")))),
        ("no issuer", a.sign(&without("iss"))),
        ("expired", a.sign(&with("exp", json!(now() - 120)))),
        ("no expiry", a.sign(&without("exp"))),
        ("not yet valid", a.sign(&with("nbf", json!(now() + 600)))),
        ("signed by another key under a's id", b.sign_as("a", &good)),
        ("alg none", unsigned),
        ("HS256 keyed with the public key", confused),
        ("garbage", "not.a.jwt".to_owned()),
    ];
    // A good token first: the keys are there, so each refusal is the
    // token's fault.
    assert_eq!(initialize(&mut mcp.client(Some(&a.sign(&good)))).await.status, StatusCode::OK);
    for (case, token) in cases {
        let answer = initialize(&mut mcp.client(Some(&token))).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{case}: {answer:?}");
        let challenge = challenge(&answer);
        assert!(challenge.starts_with(r#"Bearer error="invalid_token", error_description=""#), "{case}: {challenge}");
        assert!(challenge.ends_with(&format!(r#"resource_metadata="{}""#, mcp.metadata_url())), "{case}");
    }
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_and_made_up_key_ids_cannot_flood_the_issuer() {
    let (a, b) = (Key::a(), Key::b());
    let issuer = Issuer::start(&[&a]).await;
    let interval = Duration::from_secs(2);
    let mcp = Mcp::start(&issuer, |o| o.jwks_refetch_interval(interval)).await;
    let claims = mcp.claims(&issuer, "notes:read");
    assert_eq!(initialize(&mut mcp.client(Some(&a.sign(&claims)))).await.status, StatusCode::OK);
    assert_eq!(issuer.fetches(), 1);

    // The issuer starts signing with a new key.
    issuer.keys.lock().unwrap().push(b.jwk());
    tokio::time::sleep(interval + Duration::from_millis(100)).await;
    assert_eq!(initialize(&mut mcp.client(Some(&b.sign(&claims)))).await.status, StatusCode::OK);
    assert_eq!(issuer.fetches(), 2, "the unknown key id had the set fetched again, once");
    assert_eq!(initialize(&mut mcp.client(Some(&b.sign(&claims)))).await.status, StatusCode::OK);
    assert_eq!(issuer.fetches(), 2);

    // Tokens with made-up key ids, all at once (well within the interval,
    // even on a loaded machine).
    let flood: Vec<_> = (0..40)
        .map(|i| {
            let mut client = mcp.client(Some(&a.sign_as(&format!("bogus-{i}"), &claims)));
            tokio::spawn(async move { initialize(&mut client).await.status })
        })
        .collect();
    for status in futures_util::future::join_all(flood).await {
        assert_eq!(status.unwrap(), StatusCode::UNAUTHORIZED);
    }
    assert!(issuer.fetches() <= 3, "{} fetches for 40 made-up key ids", issuer.fetches());
}

#[tokio::test]
async fn a_missing_scope_gets_403_and_hides_what_it_guards() {
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    let mcp = Mcp::start(&issuer, |o| o).await;
    let mut reader = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "notes:read"))));
    reader.initialize().await;
    let tools = reader.request("tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools", "name"), ["whoami"], "write_note needs notes:write");
    let call = reader.call("write_note", json!({"text": "hi"})).await;
    assert_eq!(call.status, StatusCode::FORBIDDEN, "{call:?}");
    assert_eq!(
        challenge(&call),
        format!(
            r#"Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata="{}", error_description="the access token lacks a scope this request needs""#,
            mcp.metadata_url()
        )
    );
    let error = &call.last()["error"];
    assert_eq!(call.last()["id"], reader.next_id, "the refusal answers the request");
    assert_eq!(error["message"], "insufficient scope: tool `write_note` needs `notes:write`");
    assert_eq!(error["data"]["scope"], "notes:read notes:write");
    // A near miss of a tool the token cannot see is not suggested to it.
    let typo = reader.call("write_notes", json!({"text": "hi"})).await;
    assert_eq!(typo.last()["error"]["message"], "invalid params: unknown tool: write_notes");
    let typo = reader.call("whoam", json!({})).await;
    assert_eq!(typo.last()["error"]["message"], "invalid params: unknown tool: whoam (did you mean `whoami`?)");
    let resources = reader.request("resources/list", json!({})).await;
    assert_eq!(names(&resources, "resources", "uri"), ["notes://all"]);

    // A token without notes:read sees no resource or prompt, and may not
    // read or get them either.
    let mut nobody = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "profile"))));
    nobody.initialize().await;
    let resources = nobody.request("resources/list", json!({})).await;
    assert!(names(&resources, "resources", "uri").is_empty());
    assert!(names(&nobody.request("prompts/list", json!({})).await, "prompts", "name").is_empty());
    let read = nobody.request("resources/read", json!({"uri": "notes://all"})).await;
    assert_eq!(read.status, StatusCode::FORBIDDEN);
    assert!(challenge(&read).contains(r#"scope="profile notes:read""#), "{}", challenge(&read));
    let get = nobody.request("prompts/get", json!({"name": "summarize"})).await;
    assert_eq!(get.status, StatusCode::FORBIDDEN);

    // With the scope, the tool is listed and runs.
    let mut writer = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "notes:read notes:write"))));
    writer.initialize().await;
    let tools = writer.request("tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools", "name"), ["whoami", "write_note"]);
    let typo = writer.call("write_notes", json!({"text": "hi"})).await;
    assert_eq!(
        typo.last()["error"]["message"],
        "invalid params: unknown tool: write_notes (did you mean `write_note`?)"
    );
    let call = writer.call("write_note", json!({"text": "hi"})).await;
    assert_eq!(call.status, StatusCode::OK);
    assert_eq!(call.last()["result"]["content"][0]["text"], "wrote hi");
}

#[tokio::test]
async fn a_mounted_servers_scopes_are_enforced_by_the_server_that_mounts_it() {
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    let gateway = Server::empty("gateway", "1").mount("inner", server());
    let mcp = Mcp::serving(gateway, &issuer, |o| o).await;
    let mut reader = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "notes:read"))));
    reader.initialize().await;
    let tools = reader.request("tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools", "name"), ["inner_whoami"], "inner_write_note needs notes:write");
    let call = reader.call("inner_write_note", json!({"text": "hi"})).await;
    assert_eq!(call.status, StatusCode::FORBIDDEN, "{call:?}");
    let mut nobody = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "profile"))));
    nobody.initialize().await;
    let read = nobody.request("resources/read", json!({"uri": "notes://inner/all"})).await;
    assert_eq!(read.status, StatusCode::FORBIDDEN);
    let mut writer = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "notes:read notes:write"))));
    writer.initialize().await;
    let call = writer.call("inner_write_note", json!({"text": "hi"})).await;
    assert_eq!(call.last()["result"]["content"][0]["text"], "wrote hi");
}

#[tokio::test]
async fn stateless_requests_are_scoped_and_cached_privately() {
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    let mcp = Mcp::start(&issuer, |o| o).await;
    let mut reader = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "notes:read"))));
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let list = reader.request("tools/list", json!({"_meta": meta})).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    assert_eq!(names(&list, "tools", "name"), ["whoami"]);
    assert_eq!(list.last()["result"]["cacheScope"], "private", "the list depends on the token");
    let call =
        reader.request("tools/call", json!({"name": "write_note", "arguments": {"text": "x"}, "_meta": meta})).await;
    assert_eq!(call.status, StatusCode::FORBIDDEN, "{call:?}");
    assert!(challenge(&call).starts_with(r#"Bearer error="insufficient_scope", scope="notes:read notes:write""#));
}

#[tokio::test]
async fn the_metadata_is_public_but_obeys_the_host_allow_list() {
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    let mcp = Mcp::start(&issuer, |o| o.resource_name("Notes")).await;
    let expected = json!({
        "resource": mcp.resource,
        "authorization_servers": [issuer.url],
        "scopes_supported": ["notes:read", "notes:write"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Notes",
    });
    let http = reqwest::Client::new();
    for url in [format!("{}/.well-known/oauth-protected-resource", mcp.base), mcp.metadata_url()] {
        let response = http.get(&url).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_eq!(response.json::<Value>().await.unwrap(), expected, "{url}");
        let rebound = http.get(&url).header("host", "evil.example").send().await.unwrap();
        assert_eq!(rebound.status(), StatusCode::FORBIDDEN, "{url}");
        // A browser client reads it from any page, before it has a token,
        // and asks first when it sends the protocol version.
        let from_page = http.get(&url).header("origin", "https://app.example.com").send().await.unwrap();
        assert_eq!(from_page.headers()["access-control-allow-origin"], "*", "{url}");
        let preflight = http
            .request(reqwest::Method::OPTIONS, &url)
            .header("origin", "https://app.example.com")
            .header("access-control-request-method", "GET")
            .header("access-control-request-headers", "mcp-protocol-version")
            .send()
            .await
            .unwrap();
        assert_eq!(preflight.status(), StatusCode::NO_CONTENT, "{url}");
        assert_eq!(preflight.headers()["access-control-allow-origin"], "*", "{url}");
        assert_eq!(preflight.headers()["access-control-allow-headers"], "mcp-protocol-version", "{url}");
        let posted = http.post(&url).send().await.unwrap();
        assert_eq!(posted.status(), StatusCode::METHOD_NOT_ALLOWED, "{url}");
    }
    assert_eq!(issuer.fetches(), 0);
}

#[tokio::test]
async fn a_session_belongs_to_the_subject_that_opened_it() {
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    let mcp = Mcp::start(&issuer, |o| o).await;
    let mut ann = mcp.client(Some(&a.sign(&mcp.claims(&issuer, "notes:read"))));
    ann.initialize().await;
    let mut bob_claims = mcp.claims(&issuer, "notes:read");
    bob_claims["sub"] = json!("bob");
    let mut bob = mcp.client(Some(&a.sign(&bob_claims)));
    bob.session = ann.session.clone();
    let stolen = bob.call("whoami", json!({})).await;
    assert_eq!(stolen.status, StatusCode::NOT_FOUND, "{stolen:?}");
    // A new token of ann's own (a refreshed one) keeps the session.
    let mut fresh = mcp.claims(&issuer, "notes:read notes:write");
    fresh["iat"] = json!(now() + 1);
    let mut refreshed = mcp.client(Some(&a.sign(&fresh)));
    refreshed.session = ann.session.clone();
    assert_eq!(refreshed.call("write_note", json!({"text": "x"})).await.status, StatusCode::OK);
}

#[tokio::test]
async fn keys_that_cannot_be_fetched_get_503() {
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    // A port nothing listens on any more.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let mcp = Mcp::start(&issuer, |o| o.jwks_url(format!("http://{closed}/jwks"))).await;
    let answer = initialize(&mut mcp.client(Some(&a.sign(&mcp.claims(&issuer, ""))))).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{answer:?}");
    assert_eq!(answer.headers["retry-after"], "10");
}

#[tokio::test]
async fn settings_that_cannot_protect_anything_are_refused() {
    let refused = |oauth: OAuth| {
        Server::empty("s", "1").http_router(HttpOptions::new().oauth(oauth)).err().map(|e| e.to_string())
    };
    assert!(
        refused(OAuth::new("http://mcp.example.com/mcp", "https://auth.example.com")).unwrap().contains("is not https")
    );
    assert!(
        refused(OAuth::new("https://mcp.example.com/mcp", "auth.example.com")).unwrap().contains("not an absolute URL")
    );
    let both = HttpOptions::new().bearer_token("t").oauth(OAuth::new("https://m.example/mcp", "https://a.example"));
    assert!(Server::empty("s", "1").http_router(both).is_err());
    assert!(refused(OAuth::new("https://mcp.example.com/mcp", "https://auth.example.com")).is_none());
}

#[tokio::test]
async fn without_a_token_scopes_do_not_apply() {
    // An in-memory connection stands for stdio: local, and trusted whole.
    let mut client = mcp_runtime::testing::TestClient::connect(server()).await.unwrap();
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["whoami", "write_note"]);
    let wrote = client.call_tool("write_note", json!({"text": "hi"})).await.unwrap();
    assert_eq!(wrote.is_error, None);
    assert_eq!(client.read_resource("notes://all").await.unwrap().contents.len(), 1);
    // A handler that needs claims says why it cannot run without them.
    let whoami = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(whoami.is_error, Some(true));
    assert!(format!("{:?}", whoami.content).contains("Option<Claims>"), "{:?}", whoami.content);
}

/// Wait until stopped.
#[tool(task = "optional")]
async fn wait_for_ever() -> String {
    std::future::pending::<()>().await;
    unreachable!()
}

#[tokio::test]
async fn another_principals_tasks_are_unknown_to_it_and_the_principals_own_in_any_session() {
    use crate::task_isolation::unknown;
    let a = Key::a();
    let issuer = Issuer::start(&[&a]).await;
    let mcp = Mcp::serving(server().tool(wait_for_ever::Tool), &issuer, |o| o).await;
    let token = |sub: &str| {
        let mut claims = mcp.claims(&issuer, "notes:read");
        claims["sub"] = json!(sub);
        a.sign(&claims)
    };
    let (ann_token, bob_token) = (token("ann"), token("bob"));

    // The tasks extension, stateless (2026-07-28).
    let modern = |method: &str, mut params: Value| {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        });
        json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    };
    let (ann, bob) = (mcp.client(Some(&ann_token)), mcp.client(Some(&bob_token)));
    let created = ann.message(&modern("tools/call", json!({"name": "wait_for_ever", "arguments": {}}))).await;
    let id = created.last()["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created:?}")).to_owned();
    let answer = json!({"x": {"action": "decline"}});
    for (method, params) in [
        ("tasks/get", json!({"taskId": id})),
        ("tasks/update", json!({"taskId": id, "inputResponses": answer})),
        ("tasks/cancel", json!({"taskId": id})),
    ] {
        let refused = bob.message(&modern(method, params)).await;
        assert_eq!(refused.last()["error"], unknown(&id), "{method}");
    }
    let task = ann.message(&modern("tasks/get", json!({"taskId": id}))).await.last()["result"].clone();
    assert_eq!(task["status"], "working", "bob's requests touched nothing: {task}");

    // 2025-11-25 sessions: bob's sees none of ann's; another of ann's does.
    let mut ann = mcp.client(Some(&ann_token));
    ann.initialize().await;
    let created = ann.request("tools/call", json!({"name": "wait_for_ever", "arguments": {}, "task": {}})).await;
    let id = created.last()["result"]["task"]["taskId"].as_str().unwrap_or_else(|| panic!("{created:?}")).to_owned();
    let mut bob = mcp.client(Some(&bob_token));
    bob.initialize().await;
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let refused = bob.request(method, json!({"taskId": id})).await;
        assert_eq!(refused.last()["error"], unknown(&id), "{method}");
    }
    assert_eq!(bob.request("tasks/list", json!({})).await.last()["result"]["tasks"], json!([]));
    let mut again = mcp.client(Some(&ann_token));
    again.initialize().await;
    let task = again.request("tasks/get", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(task["status"], "working", "{task}");
    let cancelled = again.request("tasks/cancel", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(cancelled["status"], "cancelled");
}
