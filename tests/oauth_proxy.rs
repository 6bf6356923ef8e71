//! The OAuth proxy through the protocol: our server as the authorization
//! server its clients see, in front of an identity provider of the
//! test's own (an axum app on loopback that knows one pre-registered
//! client, signs the user in at once, checks PKCE, and counts what it
//! hands out). The client crate signs in through it end to end, with a
//! scripted browser that posts the consent form; then bad input, each
//! refused with its RFC's error and nothing granted; and no secret or
//! token in the server's log.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures_util::future::BoxFuture;
use mcp_runtime::axum::extract::{RawQuery, Request};
use mcp_runtime::axum::http::{StatusCode, header};
use mcp_runtime::axum::response::IntoResponse;
use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, MemoryProxyStore, OAuthProxy, ProxyStore, Upstream};
use mcp_runtime::{Claims, Server, axum};
use mcp_runtime_client::auth::{MemoryTokenStore, OAuth, TokenStore, UserAgent};
use mcp_runtime_client::{Client, Error};
use reqwest::Url;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

use crate::common::log::Captured;

const UPSTREAM_CLIENT: &str = "proxy-client";
const UPSTREAM_SECRET: &str = "upstream-client-secret-7f3a";
const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

/// Who is asking, as the proxy's token says.
#[tool]
fn whoami(claims: Claims) -> Json<Value> {
    Json(json!({
        "subject": claims.subject(),
        "email": claims.claim::<String>("email"),
        "name": claims.claim::<String>("name"),
        "scopes": claims.scopes(),
        "issuer": claims.issuer(),
    }))
}

/// Write a note.
#[tool(scopes = ["notes:write"])]
fn write_note(text: String) -> String {
    format!("wrote {text}")
}

/// A JSON answer of the test's provider.
fn json_body(value: Value) -> axum::response::Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

/// `request` with `pairs` as its form body.
fn with_form(request: reqwest::RequestBuilder, pairs: &[(&str, &str)]) -> reqwest::RequestBuilder {
    let mut url = Url::parse("http://x/").unwrap();
    url.query_pairs_mut().extend_pairs(pairs);
    request.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded").body(url.query().unwrap_or("").to_owned())
}

fn form(body: &[u8]) -> HashMap<String, String> {
    Url::parse(&format!("http://x/?{}", String::from_utf8_lossy(body))).unwrap().query_pairs().into_owned().collect()
}

/// What the identity provider handed out and was asked.
#[derive(Default)]
struct Idp {
    url: String,
    callback: Mutex<String>,
    /// code → (PKCE challenge, nonce).
    codes: Mutex<HashMap<String, (String, String)>>,
    exchanges: AtomicUsize,
    refreshes: AtomicUsize,
    issued: Mutex<Vec<String>>,
}

impl Idp {
    fn mint(&self, kind: &str) -> String {
        let mut issued = self.issued.lock().unwrap();
        let token = format!("upstream-{kind}-{}-secret", issued.len());
        issued.push(token.clone());
        token
    }
}

/// The identity provider: `/authorize` signs the user in at once,
/// `/token` checks the proxy's client secret and PKCE, `/userinfo` names
/// the user. Its tokens live for a second, so every refresh of ours
/// refreshes them too.
async fn identity_provider() -> Arc<Idp> {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let idp = Arc::new(Idp { url, ..Idp::default() });
    let (a, t, u) = (idp.clone(), idp.clone(), idp.clone());
    let app = axum::Router::new()
        .route(
            "/authorize",
            axum::routing::get(move |RawQuery(query): RawQuery| async move {
                let q = form(query.unwrap_or_default().as_bytes());
                assert_eq!(q["client_id"], UPSTREAM_CLIENT);
                assert_eq!(q["code_challenge_method"], "S256");
                assert!(q["scope"].split(' ').any(|s| s == "openid"));
                let code = format!("upstream-code-{}", a.codes.lock().unwrap().len());
                a.codes.lock().unwrap().insert(code.clone(), (q["code_challenge"].clone(), q["nonce"].clone()));
                let mut back = Url::parse(&q["redirect_uri"]).unwrap();
                back.query_pairs_mut().append_pair("code", &code).append_pair("state", &q["state"]);
                (StatusCode::FOUND, [(header::LOCATION, back.to_string())]).into_response()
            }),
        )
        .route(
            "/token",
            axum::routing::post(move |request: Request| async move {
                let basic = request.headers()[header::AUTHORIZATION].to_str().unwrap().to_owned();
                let expected =
                    base64::engine::general_purpose::STANDARD.encode(format!("{UPSTREAM_CLIENT}:{UPSTREAM_SECRET}"));
                assert_eq!(basic, format!("Basic {expected}"), "the proxy authenticates as its client");
                let body = axum::body::to_bytes(request.into_body(), 1 << 16).await.unwrap();
                let f = form(&body);
                let refused = (StatusCode::BAD_REQUEST, json_body(json!({"error": "invalid_grant"}))).into_response();
                let nonce = match f["grant_type"].as_str() {
                    "authorization_code" => {
                        let Some((challenge, nonce)) = t.codes.lock().unwrap().remove(&f["code"]) else {
                            return refused;
                        };
                        let hashed = URL_SAFE_NO_PAD.encode(Sha256::digest(f["code_verifier"].as_bytes()));
                        if hashed != challenge || f["redirect_uri"] != t.callback_of() {
                            return refused;
                        }
                        t.exchanges.fetch_add(1, Ordering::SeqCst);
                        Some(nonce)
                    }
                    "refresh_token" => {
                        if !t.issued.lock().unwrap().contains(&f["refresh_token"]) {
                            return refused;
                        }
                        t.refreshes.fetch_add(1, Ordering::SeqCst);
                        None
                    }
                    _ => return refused,
                };
                let mut answer = json!({
                    "access_token": t.mint("access"),
                    "refresh_token": t.mint("refresh"),
                    "token_type": "Bearer",
                    "expires_in": 1,
                });
                if let Some(nonce) = nonce {
                    let claims = json!({"iss": t.url, "aud": UPSTREAM_CLIENT, "sub": "user-42", "nonce": nonce,
                        "email": "ada@example.com", "exp": 4_000_000_000u64});
                    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","typ":"JWT"}"#);
                    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
                    answer["id_token"] = format!("{header}.{payload}.c2lnbmF0dXJl").into();
                }
                json_body(answer).into_response()
            }),
        )
        .route(
            "/userinfo",
            axum::routing::get(move |request: Request| async move {
                let bearer = request.headers()[header::AUTHORIZATION].to_str().unwrap().trim_start_matches("Bearer ");
                assert!(u.issued.lock().unwrap().iter().any(|t| t == bearer), "an access token the provider issued");
                json_body(json!({"sub": "user-42", "name": "Ada Lovelace"}))
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    idp
}

impl Idp {
    fn callback_of(&self) -> String {
        self.callback.lock().unwrap().clone()
    }
}

/// Our server behind the proxy: its base URL and endpoint.
struct Mcp {
    base: String,
    endpoint: String,
}

async fn serve(idp: &Arc<Idp>, settings: impl FnOnce(OAuthProxy) -> OAuthProxy) -> Mcp {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    serve_on(listener, &base, idp, settings);
    Mcp { endpoint: format!("{base}/mcp"), base }
}

/// Serve the proxy of `issuer` on `listener`.
fn serve_on(listener: TcpListener, issuer: &str, idp: &Arc<Idp>, settings: impl FnOnce(OAuthProxy) -> OAuthProxy) {
    let upstream =
        Upstream::new(format!("{}/authorize", idp.url), format!("{}/token", idp.url), UPSTREAM_CLIENT, UPSTREAM_SECRET)
            .name("Test IdP")
            .issuer(&idp.url)
            .userinfo_endpoint(format!("{}/userinfo", idp.url));
    let proxy = settings(
        OAuthProxy::new(issuer, upstream).scopes_supported(["notes:read", "notes:write"]).secret(vec![9u8; 32]),
    );
    let server = Server::empty("notes", "1").tool(whoami::Tool).tool(write_note::Tool);
    *idp.callback.lock().unwrap() = format!("{issuer}/oauth/callback");
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new().oauth_proxy(proxy)));
}

/// A browser driven by a script: it keeps the proxy's cookie, approves on
/// the consent page, and follows the redirects one at a time.
#[derive(Default)]
struct Browser {
    cookie: Mutex<Option<String>>,
}

/// What one step of the browser got.
struct Page {
    status: StatusCode,
    location: Option<String>,
    body: String,
}

impl Browser {
    fn http() -> reqwest::Client {
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Page {
        let cookie = self.cookie.lock().unwrap().clone();
        let request = match cookie {
            Some(cookie) => request.header(header::COOKIE, cookie),
            None => request,
        };
        let response = request.send().await.unwrap();
        if let Some(set) = response.headers().get(header::SET_COOKIE) {
            let pair = set.to_str().unwrap().split(';').next().unwrap().to_owned();
            *self.cookie.lock().unwrap() = Some(pair);
        }
        let status = StatusCode::from_u16(response.status().as_u16()).unwrap();
        let location = response.headers().get(header::LOCATION).map(|l| l.to_str().unwrap().to_owned());
        Page { status, location, body: response.text().await.unwrap() }
    }

    async fn get(&self, url: &str) -> Page {
        self.send(Self::http().get(url)).await
    }

    /// Open the consent page at `authorization_url`: the form's action,
    /// transaction and CSRF token.
    async fn consent_page(&self, authorization_url: &str) -> (String, String, String) {
        let page = self.get(authorization_url).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let field = |before: &str| {
            let start = page.body.find(before).unwrap_or_else(|| panic!("no {before} in {}", page.body)) + before.len();
            page.body[start..].split('"').next().unwrap().to_owned()
        };
        let origin = Url::parse(authorization_url).unwrap().origin().ascii_serialization();
        (
            format!("{origin}{}", field("action=\"")),
            field("name=\"transaction\" value=\""),
            field("name=\"csrf\" value=\""),
        )
    }

    /// Post the consent form with `decision`.
    async fn decide(&self, (action, transaction, csrf): &(String, String, String), decision: &str) -> Page {
        let form = [("transaction", transaction.as_str()), ("csrf", csrf.as_str()), ("decision", decision)];
        self.send(with_form(Self::http().post(action), &form)).await
    }

    /// The whole sign-in: consent, the provider, back to the proxy; the
    /// redirect to the client's redirect URI.
    async fn sign_in(&self, authorization_url: &str) -> String {
        let consent = self.consent_page(authorization_url).await;
        let to_idp = self.decide(&consent, "approve").await.location.expect("sent to the provider");
        let to_proxy = self.get(&to_idp).await.location.expect("sent back to the proxy");
        let page = self.get(&to_proxy).await;
        page.location.unwrap_or_else(|| panic!("not sent back to the client: {} {}", page.status, page.body))
    }
}

impl UserAgent for Browser {
    fn authorize<'a>(&'a self, authorization_url: &'a str) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move { Ok(self.sign_in(authorization_url).await) })
    }
}

async fn connect(mcp: &Mcp, store: Arc<dyn TokenStore>) -> Result<Client, Error> {
    let oauth = OAuth::builder(&mcp.endpoint)
        .client_name("notes <b>test</b>")
        .redirect_uri(REDIRECT_URI)
        .user_agent(Browser::default())
        .token_store(store)
        .build()?;
    Client::builder().authorization(Arc::new(oauth)).http(&mcp.endpoint).await
}

#[tokio::test]
async fn the_client_crate_signs_in_through_the_proxy_and_tools_see_the_upstream_user() {
    let (log, _guard) = Captured::install();
    let idp = identity_provider().await;
    let mcp = serve(&idp, |proxy| proxy.access_token_lifetime(Duration::from_secs(1))).await;
    let store = Arc::new(MemoryTokenStore::new());
    let client = connect(&mcp, store.clone()).await.unwrap();
    let me: Value = client.call_structured("whoami", json!({})).await.unwrap();
    assert_eq!(me["subject"], "user-42");
    assert_eq!(me["email"], "ada@example.com", "from the ID token");
    assert_eq!(me["name"], "Ada Lovelace", "from the userinfo endpoint");
    assert_eq!(me["issuer"], mcp.base.as_str(), "the proxy's own token");
    assert_eq!(me["scopes"], json!(["notes:read", "notes:write"]));
    assert_eq!(client.call_structured::<String>("write_note", json!({"text": "hi"})).await.unwrap(), "wrote hi");
    assert_eq!(idp.exchanges.load(Ordering::SeqCst), 1);
    // Tokens live a second: the client refreshes them before each call
    // (rotating its refresh token), and the proxy refreshes the
    // provider's, which have expired.
    for _ in 0..2 {
        let me: Value = client.call_structured("whoami", json!({})).await.unwrap();
        assert_eq!(me["subject"], "user-42");
    }
    assert!(idp.refreshes.load(Ordering::SeqCst) >= 1, "the upstream tokens were refreshed");
    assert_eq!(idp.exchanges.load(Ordering::SeqCst), 1, "the user signed in once");
    client.close().await;

    let text = log.text();
    assert!(text.contains("a user signed in through the upstream provider"), "{text}");
    let stored = store.load(&mcp.endpoint).await.unwrap().expect("the client kept its tokens");
    let mut secrets = idp.issued.lock().unwrap().clone();
    secrets.push(UPSTREAM_SECRET.to_owned());
    secrets.push(stored.access_token.clone());
    secrets.extend(stored.refresh_token.clone());
    for secret in secrets {
        assert!(!text.contains(&secret), "{secret} is in the log:\n{text}");
    }
    assert!(!text.contains("upstream-code"), "an upstream code is in the log");
}

fn pkce() -> (String, String) {
    let verifier = URL_SAFE_NO_PAD.encode(rand_bytes());
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

fn rand_bytes() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes.iter_mut().zip(uuid::Uuid::new_v4().as_bytes().iter().cycle()).for_each(|(b, r)| *b = *r);
    bytes
}

/// Register a public client with `REDIRECT_URI` (RFC 7591).
async fn register(mcp: &Mcp) -> String {
    let metadata = json!({"client_name": "raw", "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"});
    let response = reqwest::Client::new().post(format!("{}/register", mcp.base)).json(&metadata).send().await.unwrap();
    assert_eq!(response.status(), 201);
    response.json::<Value>().await.unwrap()["client_id"].as_str().unwrap().to_owned()
}

fn authorize_url(mcp: &Mcp, params: &[(&str, &str)]) -> String {
    let mut url = Url::parse(&format!("{}/authorize", mcp.base)).unwrap();
    url.query_pairs_mut().extend_pairs(params);
    url.to_string()
}

/// A good authorization request of `client_id`.
fn good_request(mcp: &Mcp, client_id: &str, challenge: &str) -> String {
    authorize_url(
        mcp,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", REDIRECT_URI),
            ("state", "s1"),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
            ("resource", &mcp.endpoint),
        ],
    )
}

fn query_of(url: &str) -> HashMap<String, String> {
    Url::parse(url).unwrap().query_pairs().into_owned().collect()
}

/// A code for `client_id`, through a whole sign-in.
async fn code(mcp: &Mcp, client_id: &str, challenge: &str) -> String {
    let back = Browser::default().sign_in(&good_request(mcp, client_id, challenge)).await;
    let query = query_of(&back);
    assert!(back.starts_with(REDIRECT_URI), "{back}");
    assert_eq!(query["state"], "s1");
    assert_eq!(query["iss"], mcp.base);
    query["code"].clone()
}

async fn token(mcp: &Mcp, form: &[(&str, &str)]) -> (u16, Value) {
    let response = with_form(reqwest::Client::new().post(format!("{}/token", mcp.base)), form).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn redeem(mcp: &Mcp, client_id: &str, code: &str, verifier: &str) -> (u16, Value) {
    let form = [
        ("grant_type", "authorization_code"),
        ("client_id", client_id),
        ("code", code),
        ("redirect_uri", REDIRECT_URI),
        ("code_verifier", verifier),
        ("resource", &mcp.endpoint),
    ];
    token(mcp, &form).await
}

async fn refresh(mcp: &Mcp, client_id: &str, refresh_token: &str) -> (u16, Value) {
    token(mcp, &[("grant_type", "refresh_token"), ("client_id", client_id), ("refresh_token", refresh_token)]).await
}

/// The status of an `initialize` with `access_token`.
async fn initialize_with(mcp: &Mcp, access_token: &str) -> u16 {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let response = reqwest::Client::new()
        .post(&mcp.endpoint)
        .bearer_auth(access_token)
        .header(header::ACCEPT, "application/json, text/event-stream")
        .json(&initialize)
        .send()
        .await
        .unwrap();
    response.status().as_u16()
}

#[tokio::test]
async fn the_metadata_points_clients_at_the_proxy() {
    let idp = identity_provider().await;
    let mcp = serve(&idp, |proxy| proxy).await;
    let http = reqwest::Client::new();
    let resource: Value = http
        .get(format!("{}/.well-known/oauth-protected-resource/mcp", mcp.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(resource["authorization_servers"], json!([mcp.base]));
    assert_eq!(resource["resource"], mcp.endpoint);
    let server: Value = http
        .get(format!("{}/.well-known/oauth-authorization-server", mcp.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(server["issuer"], mcp.base);
    assert_eq!(server["authorization_endpoint"], format!("{}/authorize", mcp.base));
    assert_eq!(server["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(server["client_id_metadata_document_supported"], true);
    assert_eq!(server["registration_endpoint"], format!("{}/register", mcp.base));
    let keys: Value = http.get(server["jwks_uri"].as_str().unwrap()).send().await.unwrap().json().await.unwrap();
    assert_eq!(keys["keys"][0]["kty"], "OKP", "an Ed25519 public key, no private part");
    assert!(keys["keys"][0].get("d").is_none());
    // A web page's client may register and get tokens (no cookie is
    // involved); the user's pages are not readable across origins.
    let preflight = http
        .request(reqwest::Method::OPTIONS, format!("{}/token", mcp.base))
        .header(header::ORIGIN, "https://inspector.example.com")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success());
    assert_eq!(preflight.headers()["access-control-allow-origin"], "*");
    let page = http
        .get(format!("{}/authorize", mcp.base))
        .header(header::ORIGIN, "https://evil.example.com")
        .send()
        .await
        .unwrap();
    assert!(page.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn requests_that_cannot_be_trusted_are_never_redirected() {
    let idp = identity_provider().await;
    let mcp = serve(&idp, |proxy| proxy).await;
    let client_id = register(&mcp).await;
    let (_, challenge) = pkce();
    let browser = Browser::default();
    let base = [("response_type", "code"), ("code_challenge", challenge.as_str()), ("code_challenge_method", "S256")];
    let with = |extra: &[(&'static str, &str)]| {
        let mut params: Vec<(&str, &str)> = base.to_vec();
        params.extend_from_slice(extra);
        authorize_url(&mcp, &params)
    };
    // An unknown client, a redirect URI it did not register, a metadata
    // document at a private address: an error page, no redirect.
    for (url, error) in [
        (with(&[("client_id", "nobody"), ("redirect_uri", REDIRECT_URI)]), "invalid_client"),
        (with(&[("client_id", &client_id), ("redirect_uri", "https://evil.example.com/cb")]), "invalid_request"),
        (
            with(&[("client_id", &client_id), ("redirect_uri", "http://127.0.0.1:1/callback/../evil")]),
            "invalid_request",
        ),
        (with(&[("client_id", "https://127.0.0.1:9/client.json"), ("redirect_uri", REDIRECT_URI)]), "invalid_client"),
        (
            with(&[("client_id", "https://169.254.169.254/latest/client"), ("redirect_uri", REDIRECT_URI)]),
            "invalid_client",
        ),
    ] {
        let page = browser.get(&url).await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{url}");
        assert_eq!(page.location, None, "{url}");
        assert!(page.body.contains(error), "{url}: {}", page.body);
    }
    // A loopback redirect URI on another port is the same one (RFC 8252).
    let other_port = with(&[("client_id", &client_id), ("redirect_uri", "http://127.0.0.1:4567/callback")]);
    assert_eq!(browser.get(&other_port).await.status, StatusCode::OK);
    // Once the redirect URI is known good, errors go back to the client.
    let redirect_error = |extra: Vec<(&'static str, String)>| {
        let mut params = vec![
            ("client_id", client_id.clone()),
            ("redirect_uri", REDIRECT_URI.to_owned()),
            ("state", "st".to_owned()),
        ];
        params.extend(extra);
        let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        authorize_url(&mcp, &params)
    };
    for (params, error) in [
        (vec![("response_type", "code".into()), ("code_challenge_method", "S256".into())], "invalid_request"),
        (
            vec![
                ("response_type", "code".into()),
                ("code_challenge", challenge.clone()),
                ("code_challenge_method", "plain".into()),
            ],
            "invalid_request",
        ),
        (
            vec![
                ("response_type", "token".into()),
                ("code_challenge", challenge.clone()),
                ("code_challenge_method", "S256".into()),
            ],
            "unsupported_response_type",
        ),
        (
            vec![
                ("response_type", "code".into()),
                ("code_challenge", challenge.clone()),
                ("code_challenge_method", "S256".into()),
                ("resource", "https://other.example.com/mcp".into()),
            ],
            "invalid_target",
        ),
    ] {
        let page = browser.get(&redirect_error(params)).await;
        assert_eq!(page.status, StatusCode::FOUND);
        let location = page.location.unwrap();
        assert!(location.starts_with(REDIRECT_URI), "{location}");
        let query = query_of(&location);
        assert_eq!(query["error"], error, "{location}");
        assert_eq!(query["state"], "st");
        assert!(!query.contains_key("code"));
    }
    assert_eq!(idp.exchanges.load(Ordering::SeqCst), 0, "nobody signed in");
}

#[tokio::test]
async fn forged_replayed_or_foreign_sign_ins_are_refused() {
    let idp = identity_provider().await;
    let mcp = serve(&idp, |proxy| proxy).await;
    let client_id = register(&mcp).await;
    let (_, challenge) = pkce();
    let request = good_request(&mcp, &client_id, &challenge);

    // A consent form posted from another browser (a cross-site forgery:
    // no cookie) or with a forged CSRF token grants nothing.
    let browser = Browser::default();
    let consent = browser.consent_page(&request).await;
    let stranger = Browser::default();
    assert_eq!(stranger.decide(&consent, "approve").await.status, StatusCode::FORBIDDEN);
    let browser = Browser::default();
    let (action, transaction, _) = browser.consent_page(&request).await;
    let forged = (action, transaction, "forged".to_owned());
    assert_eq!(browser.decide(&forged, "approve").await.status, StatusCode::FORBIDDEN);

    // Denied: the client hears access_denied.
    let browser = Browser::default();
    let consent = browser.consent_page(&request).await;
    let denied = browser.decide(&consent, "deny").await.location.unwrap();
    assert_eq!(query_of(&denied)["error"], "access_denied");

    // A forged state at the callback, and a real one used twice.
    let browser = Browser::default();
    let consent = browser.consent_page(&request).await;
    let to_idp = browser.decide(&consent, "approve").await.location.unwrap();
    let to_proxy = browser.get(&to_idp).await.location.unwrap();
    let forged = format!("{}/oauth/callback?code=upstream-code-0&state=forged", mcp.base);
    assert_eq!(browser.get(&forged).await.status, StatusCode::BAD_REQUEST);
    // Another browser cannot complete this browser's sign-in (a stolen
    // callback URL), and trying spends it.
    assert_eq!(Browser::default().get(&to_proxy).await.status, StatusCode::FORBIDDEN);
    assert_eq!(browser.get(&to_proxy).await.status, StatusCode::BAD_REQUEST, "its state is spent");
    assert_eq!(idp.exchanges.load(Ordering::SeqCst), 0, "nothing was exchanged yet");

    let browser3 = Browser::default();
    let consent3 = browser3.consent_page(&request).await;
    let to_idp3 = browser3.decide(&consent3, "approve").await.location.unwrap();
    let to_proxy3 = browser3.get(&to_idp3).await.location.unwrap();
    let back = browser3.get(&to_proxy3).await;
    assert!(back.location.unwrap().contains("code="));
    let replayed = browser3.get(&to_proxy3).await;
    assert_eq!(replayed.status, StatusCode::BAD_REQUEST, "a state is good once");
    assert_eq!(replayed.location, None);
    assert_eq!(idp.exchanges.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn codes_are_good_once_with_their_verifier_and_redirect_uri() {
    let idp = identity_provider().await;
    let mcp = serve(&idp, |proxy| proxy).await;
    let client_id = register(&mcp).await;
    let (verifier, challenge) = pkce();

    let first = code(&mcp, &client_id, &challenge).await;
    let (other_verifier, _) = pkce();
    let (status, answer) = redeem(&mcp, &client_id, &first, &other_verifier).await;
    assert_eq!((status, answer["error"].as_str()), (400, Some("invalid_grant")), "{answer}");
    let (status, answer) = redeem(&mcp, &client_id, &first, &verifier).await;
    assert_eq!((status, answer["error"].as_str()), (400, Some("invalid_grant")), "one try per code: {answer}");

    let second = code(&mcp, &client_id, &challenge).await;
    let form = [
        ("grant_type", "authorization_code"),
        ("client_id", client_id.as_str()),
        ("code", &second),
        ("redirect_uri", "http://127.0.0.1:1/elsewhere"),
        ("code_verifier", &verifier),
    ];
    assert_eq!(token(&mcp, &form).await.1["error"], "invalid_grant");

    let other_client = register(&mcp).await;
    let third = code(&mcp, &client_id, &challenge).await;
    let (status, answer) = redeem(&mcp, &other_client, &third, &verifier).await;
    assert_eq!((status, answer["error"].as_str()), (400, Some("invalid_grant")), "another client's code");

    let fourth = code(&mcp, &client_id, &challenge).await;
    let (status, tokens) = redeem(&mcp, &client_id, &fourth, &verifier).await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer");
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(initialize_with(&mcp, access).await, 200);
    // The code again: refused, and what it granted is revoked.
    let (status, answer) = redeem(&mcp, &client_id, &fourth, &verifier).await;
    assert_eq!((status, answer["error"].as_str()), (400, Some("invalid_grant")));
    assert_eq!(initialize_with(&mcp, access).await, 401);
    let (status, _) = refresh(&mcp, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 400);
    assert_eq!(initialize_with(&mcp, "not-a-token").await, 401);
}

#[tokio::test]
async fn refresh_tokens_rotate_a_reused_one_ends_the_grant_and_revocation_is_at_once() {
    let idp = identity_provider().await;
    let mcp = serve(&idp, |proxy| proxy).await;
    let client_id = register(&mcp).await;
    let (verifier, challenge) = pkce();

    let (_, tokens) = redeem(&mcp, &client_id, &code(&mcp, &client_id, &challenge).await, &verifier).await;
    let first_refresh = tokens["refresh_token"].as_str().unwrap().to_owned();
    let (status, rotated) = refresh(&mcp, &client_id, &first_refresh).await;
    assert_eq!(status, 200, "{rotated}");
    let second_refresh = rotated["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(first_refresh, second_refresh);
    let access = rotated["access_token"].as_str().unwrap().to_owned();
    assert_eq!(initialize_with(&mcp, &access).await, 200);
    // Another client cannot use it.
    let other_client = register(&mcp).await;
    assert_eq!(refresh(&mcp, &other_client, &second_refresh).await.1["error"], "invalid_grant");
    // The first one again: reuse, so the whole grant ends.
    let (status, answer) = refresh(&mcp, &client_id, &first_refresh).await;
    assert_eq!((status, answer["error"].as_str()), (400, Some("invalid_grant")));
    assert_eq!(initialize_with(&mcp, &access).await, 401);

    // Revoking an access token ends its grant at once.
    let (_, tokens) = redeem(&mcp, &client_id, &code(&mcp, &client_id, &challenge).await, &verifier).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(initialize_with(&mcp, access).await, 200);
    let revoke = |token: String| {
        let request = with_form(
            reqwest::Client::new().post(format!("{}/revoke", mcp.base)),
            &[("token", &token), ("client_id", &client_id)],
        );
        async move { request.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(revoke(access.to_owned()).await, 200);
    assert_eq!(initialize_with(&mcp, access).await, 401);
    assert_eq!(refresh(&mcp, &client_id, tokens["refresh_token"].as_str().unwrap()).await.1["error"], "invalid_grant");
    // And a refresh token too; an unknown token is no error (RFC 7009).
    let (_, tokens) = redeem(&mcp, &client_id, &code(&mcp, &client_id, &challenge).await, &verifier).await;
    assert_eq!(revoke(tokens["refresh_token"].as_str().unwrap().to_owned()).await, 200);
    assert_eq!(initialize_with(&mcp, tokens["access_token"].as_str().unwrap()).await, 401);
    assert_eq!(revoke("unknown".to_owned()).await, 200);
}

#[tokio::test]
async fn an_expired_access_token_is_refused() {
    let idp = identity_provider().await;
    let mcp = serve(&idp, |proxy| proxy.access_token_lifetime(Duration::ZERO)).await;
    let client_id = register(&mcp).await;
    let (verifier, challenge) = pkce();
    let (_, tokens) = redeem(&mcp, &client_id, &code(&mcp, &client_id, &challenge).await, &verifier).await;
    // Past its `exp` (whole seconds): refused, whatever the grant.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(initialize_with(&mcp, tokens["access_token"].as_str().unwrap()).await, 401);
    let (status, fresh) = refresh(&mcp, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 200, "the grant lives on: {fresh}");
}

/// Two replicas of one issuer sharing `store` and a secret: a sign-in
/// begun on one completes on the other, and their tokens work on both.
async fn replicas_share_sign_ins(store: Arc<dyn ProxyStore>) {
    let idp = identity_provider().await;
    let (first, second) =
        (TcpListener::bind("127.0.0.1:0").await.unwrap(), TcpListener::bind("127.0.0.1:0").await.unwrap());
    let issuer = format!("http://{}", first.local_addr().unwrap());
    let other = format!("http://{}", second.local_addr().unwrap());
    serve_on(first, &issuer, &idp, |proxy| proxy.store(store.clone()));
    serve_on(second, &issuer, &idp, |proxy| proxy.store(store.clone()));
    let a = Mcp { endpoint: format!("{issuer}/mcp"), base: issuer.clone() };
    let b = Mcp { endpoint: format!("{issuer}/mcp"), base: other.clone() };
    let on_b = |url: &str| url.replacen(&issuer, &other, 1);

    let client_id = register(&a).await;
    let (verifier, challenge) = pkce();
    let browser = Browser::default();
    let (action, transaction, csrf) = browser.consent_page(&good_request(&a, &client_id, &challenge)).await;
    let to_idp = browser
        .decide(&(on_b(&action), transaction, csrf), "approve")
        .await
        .location
        .expect("sent on by the other replica");
    let to_proxy = browser.get(&to_idp).await.location.unwrap();
    let back = browser.get(&on_b(&to_proxy)).await.location.expect("the other replica completes the sign-in");
    let (status, tokens) = redeem(&b, &client_id, &query_of(&back)["code"], &verifier).await;
    assert_eq!(status, 200, "{tokens}");
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(initialize_with(&a, access).await, 200);
    let (status, rotated) = refresh(&a, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{rotated}");
    assert_eq!(
        refresh(&b, &client_id, tokens["refresh_token"].as_str().unwrap()).await.0,
        400,
        "rotated on every replica"
    );
    assert_eq!(
        initialize_with(&a, rotated["access_token"].as_str().unwrap()).await,
        401,
        "the reuse ended the grant everywhere"
    );
}

#[tokio::test]
async fn replicas_sharing_a_store_complete_each_others_sign_ins() {
    replicas_share_sign_ins(Arc::new(MemoryProxyStore::default())).await;
}

#[tokio::test]
async fn replicas_sharing_redis_complete_each_others_sign_ins() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let store = mcp_runtime::stores::RedisStore::connect(&redis.url).await.unwrap().prefix("proxy-test");
    replicas_share_sign_ins(Arc::new(store)).await;
}

/// The company identity provider of enterprise-managed authorization:
/// its token endpoint exchanges the user's ID token for an ID-JAG naming
/// the requested audience and resource (RFC 8693); its keys are the test
/// issuer's `rsa-a`.
async fn enterprise_idp() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-a.pem")).unwrap();
    let mut jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&key, jsonwebtoken::Algorithm::RS256).unwrap();
    jwk.common.key_id = Some("a".to_owned());
    let jwks = json!({"keys": [jwk]});
    let issuer = url.clone();
    let app = axum::Router::new().route("/jwks", axum::routing::get(move || async move { json_body(jwks) })).route(
        "/token",
        axum::routing::post(move |body: String| async move {
            let form = form(body.as_bytes());
            assert_eq!(form["grant_type"], "urn:ietf:params:oauth:grant-type:token-exchange");
            assert_eq!(form["requested_token_type"], "urn:ietf:params:oauth:token-type:id-jag");
            assert_eq!(form["subject_token"], "alice-id-token");
            assert_eq!(form["client_id"], "ent-app");
            let claims = jag_claims(&issuer, &form["audience"], &form["resource"]);
            let jag = sign_jag(&claims, "oauth-id-jag+jwt", include_bytes!("fixtures/oauth/rsa-a.pem"));
            json_body(json!({
                "access_token": jag,
                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "token_type": "N_A",
            }))
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

fn jag_claims(issuer: &str, audience: &str, resource: &str) -> Value {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    json!({
        "iss": issuer, "sub": "alice", "aud": audience, "client_id": "ent-client", "resource": resource,
        "scope": "notes:read", "email": "alice@corp.example", "iat": now, "exp": now + 300,
        "jti": URL_SAFE_NO_PAD.encode(rand_bytes()),
    })
}

fn sign_jag(claims: &Value, typ: &str, pem: &[u8]) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some("a".to_owned());
    header.typ = Some(typ.to_owned());
    jsonwebtoken::encode(&header, claims, &jsonwebtoken::EncodingKey::from_rsa_pem(pem).unwrap()).unwrap()
}

/// The proxy, trusting `idp` and knowing the confidential `ent-client`.
async fn enterprise_proxy(idp: &str) -> Mcp {
    let upstream = identity_provider().await;
    let trusted = mcp_runtime::transport::TrustedIdp::new(idp).jwks_url(format!("{idp}/jwks"));
    serve(&upstream, |proxy| proxy.client("ent-client", [REDIRECT_URI], Some("ent-secret".into())).trust_idp(trusted))
        .await
}

async fn present(mcp: &Mcp, client_secret: &str, assertion: &str) -> (u16, Value) {
    let form = [
        ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
        ("client_id", "ent-client"),
        ("client_secret", client_secret),
        ("assertion", assertion),
    ];
    token(mcp, &form).await
}

#[tokio::test]
async fn the_client_crates_enterprise_flow_exchanges_an_id_jag_at_the_proxy() {
    use mcp_runtime_client::auth::{ClientCredentials, EnterpriseIdp, TokenSource};
    let idp = enterprise_idp().await;
    let mcp = enterprise_proxy(&idp).await;
    let metadata: Value = reqwest::get(format!("{}/.well-known/oauth-authorization-server", mcp.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        metadata["grant_types_supported"]
            .as_array()
            .unwrap()
            .contains(&json!("urn:ietf:params:oauth:grant-type:jwt-bearer"))
    );
    let oauth = OAuth::builder(&mcp.endpoint)
        .preregistered(ClientCredentials::confidential("ent-client", "ent-secret"))
        .enterprise_managed(EnterpriseIdp::new(format!("{idp}/token"), "ent-app", TokenSource::fixed("alice-id-token")))
        .build()
        .unwrap();
    let client = Client::builder().authorization(Arc::new(oauth)).http(&mcp.endpoint).await.unwrap();
    let me: Value = client.call_structured("whoami", json!({})).await.unwrap();
    client.close().await;
    assert_eq!(me["subject"], "alice");
    assert_eq!(me["email"], "alice@corp.example");
    assert_eq!(me["scopes"], json!(["notes:read"]));
    assert_eq!(me["issuer"], mcp.base.as_str(), "the proxy's own token");
}

#[tokio::test]
async fn id_jags_that_are_not_for_this_proxy_and_client_are_refused() {
    let idp = enterprise_idp().await;
    let mcp = enterprise_proxy(&idp).await;
    let rsa_a: &[u8] = include_bytes!("fixtures/oauth/rsa-a.pem");
    let good = jag_claims(&idp, &mcp.base, &mcp.endpoint);
    let assertion = sign_jag(&good, "oauth-id-jag+jwt", rsa_a);

    // Wrong client secret: the client is not authenticated.
    assert_eq!(present(&mcp, "wrong", &assertion).await.0, 401);
    let (status, answer) = present(&mcp, "ent-secret", &assertion).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.get("refresh_token").is_none(), "{answer}");
    assert_eq!(initialize_with(&mcp, answer["access_token"].as_str().unwrap()).await, 200);
    let (status, answer) = present(&mcp, "ent-secret", &assertion).await;
    assert_eq!((status, answer["error"].as_str()), (400, Some("invalid_grant")), "replayed: {answer}");

    let mut cases = Vec::new();
    let with = |name: &str, value: Value| {
        let mut claims = jag_claims(&idp, &mcp.base, &mcp.endpoint);
        claims[name] = value;
        sign_jag(&claims, "oauth-id-jag+jwt", rsa_a)
    };
    cases.push(("another audience", with("aud", json!("https://other-as.example"))));
    cases.push(("another client", with("client_id", json!("someone-else"))));
    cases.push(("another resource", with("resource", json!("https://other.example/mcp"))));
    cases.push(("expired", with("exp", json!(1_000_000))));
    cases.push(("an untrusted issuer", with("iss", json!("https://evil.example"))));
    cases.push(("another typ", sign_jag(&good, "JWT", rsa_a)));
    cases.push((
        "a key not the issuer's",
        sign_jag(&good, "oauth-id-jag+jwt", include_bytes!("fixtures/oauth/rsa-b.pem")),
    ));
    cases.push(("not a JWT", "not-a-jwt".to_owned()));
    for (what, assertion) in cases {
        let (status, answer) = present(&mcp, "ent-secret", &assertion).await;
        assert_eq!((status, answer["error"].as_str()), (400, Some("invalid_grant")), "{what}: {answer}");
        assert!(answer.get("access_token").is_none(), "{what}");
    }
    let (status, answer) = present(&mcp, "ent-secret", &with("aud", json!("https://other-as.example"))).await;
    assert_eq!(status, 400);
    assert!(answer["error_description"].as_str().unwrap().contains("another authorization server"), "{answer}");
}
