//! The client's OAuth (`mcp_runtime_client::auth`) against our runtime's
//! protected endpoint and an authorization server of the test's own (an
//! axum app on loopback that registers clients, approves at once, checks
//! PKCE and `resource`, and signs JWTs the runtime verifies): the whole
//! flow from the first 401, a step-up after a 403, tokens reused across
//! reconnects, expiring tokens refreshed, and a refusal reported.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures_util::future::BoxFuture;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::axum::extract::RawQuery;
use mcp_runtime::axum::http::{StatusCode, header};
use mcp_runtime::axum::response::IntoResponse;
use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, OAuth as ResourceServer};
use mcp_runtime::{Server, axum};
use mcp_runtime_client::auth::{MemoryTokenStore, OAuth, TokenStore, UserAgent};
use mcp_runtime_client::{Client, Error};
use reqwest::Url;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

/// Write a note.
#[tool(scopes = ["notes:write"])]
fn write_note(text: String) -> String {
    format!("wrote {text}")
}

/// Read the notes.
#[tool(scopes = ["notes:read"])]
fn read_notes() -> String {
    "a note".to_owned()
}

const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn pairs(query: &str) -> Vec<(String, String)> {
    let mut url = Url::parse("http://localhost/").unwrap();
    url.set_query(Some(query));
    url.query_pairs().into_owned().collect()
}

fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// What the authorization server saw.
#[derive(Default)]
struct Seen {
    registrations: AtomicUsize,
    authorizations: AtomicUsize,
    refreshes: AtomicUsize,
    /// Grant only the first requested scope on the first authorization
    /// (a user who consented to part of it).
    partial_first_consent: AtomicBool,
    /// Announce tokens as expiring in a second.
    short_lived: AtomicBool,
    /// Refuse every authorization, as a user who said no.
    deny: AtomicBool,
    /// code → (PKCE challenge, scope, resource); the valid refresh token.
    codes: Mutex<Vec<(String, String, String, String)>>,
    refresh_token: Mutex<Option<(String, String)>>,
    scopes_asked: Mutex<Vec<String>>,
}

struct Authority {
    url: String,
    seen: Arc<Seen>,
}

impl Authority {
    async fn start(resource: String) -> Authority {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Seen::default());
        let key = EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-a.pem")).unwrap();
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::RS256).unwrap();
        jwk.common.key_id = Some("a".to_owned());
        let jwks = json!({ "keys": [jwk] }).to_string();
        let metadata = json!({
            "issuer": url,
            "authorization_endpoint": format!("{url}/authorize"),
            "token_endpoint": format!("{url}/token"),
            "registration_endpoint": format!("{url}/register"),
            "jwks_uri": format!("{url}/jwks"),
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["notes:read", "notes:write", "offline_access"],
            "authorization_response_iss_parameter_supported": true,
        })
        .to_string();
        let json = |body: String| ([(header::CONTENT_TYPE, "application/json")], body);
        let issue = {
            let (seen, url, resource) = (seen.clone(), url.clone(), resource.clone());
            move |scope: String| {
                let claims = json!({
                    "iss": url, "aud": resource, "sub": "ann", "client_id": "dyn-client",
                    "iat": now(), "exp": now() + 300, "scope": scope,
                });
                let mut header = Header::new(Algorithm::RS256);
                header.kid = Some("a".to_owned());
                let access = jsonwebtoken::encode(&header, &claims, &key).unwrap();
                let refresh = format!("refresh-{}", uuid_like());
                *seen.refresh_token.lock().unwrap() = Some((refresh.clone(), scope.clone()));
                let expires_in = if seen.short_lived.load(Ordering::SeqCst) { 1 } else { 300 };
                json!({
                    "access_token": access, "token_type": "Bearer", "expires_in": expires_in,
                    "refresh_token": refresh, "scope": scope,
                })
                .to_string()
            }
        };
        let app = axum::Router::new()
            .route("/.well-known/oauth-authorization-server", axum::routing::get(move || async move { json(metadata) }))
            .route("/jwks", axum::routing::get(move || async move { json(jwks) }))
            .route("/register", {
                let seen = seen.clone();
                axum::routing::post(move |body: String| async move {
                    seen.registrations.fetch_add(1, Ordering::SeqCst);
                    let request: Value = serde_json::from_str(&body).unwrap();
                    assert_eq!(request["redirect_uris"], json!([REDIRECT_URI]));
                    assert_eq!(request["token_endpoint_auth_method"], "none");
                    assert_eq!(request["application_type"], "native");
                    (StatusCode::CREATED, json(json!({ "client_id": "dyn-client" }).to_string()))
                })
            })
            .route("/authorize", {
                let (seen, url) = (seen.clone(), url.clone());
                axum::routing::get(move |RawQuery(query): RawQuery| async move {
                    let query = pairs(&query.unwrap_or_default());
                    let first = seen.authorizations.fetch_add(1, Ordering::SeqCst) == 0;
                    assert_eq!(param(&query, "response_type"), Some("code"));
                    assert_eq!(param(&query, "client_id"), Some("dyn-client"));
                    assert_eq!(param(&query, "code_challenge_method"), Some("S256"));
                    let scope = param(&query, "scope").unwrap_or_default().to_owned();
                    seen.scopes_asked.lock().unwrap().push(scope.clone());
                    let state = param(&query, "state").unwrap_or_default();
                    let mut back = Url::parse(param(&query, "redirect_uri").unwrap()).unwrap();
                    if seen.deny.load(Ordering::SeqCst) {
                        back.query_pairs_mut().append_pair("error", "access_denied").append_pair("state", state);
                    } else {
                        let granted = if first && seen.partial_first_consent.load(Ordering::SeqCst) {
                            scope.split(' ').next().unwrap_or_default().to_owned()
                        } else {
                            scope
                        };
                        let code = format!("code-{}", uuid_like());
                        seen.codes.lock().unwrap().push((
                            code.clone(),
                            param(&query, "code_challenge").unwrap().to_owned(),
                            granted,
                            param(&query, "resource").unwrap_or_default().to_owned(),
                        ));
                        back.query_pairs_mut()
                            .append_pair("code", &code)
                            .append_pair("state", state)
                            .append_pair("iss", &url);
                    }
                    (StatusCode::FOUND, [(header::LOCATION, back.to_string())])
                })
            })
            .route("/token", {
                let (seen, resource) = (seen.clone(), resource.clone());
                axum::routing::post(move |body: String| async move {
                    let form = pairs(&body);
                    assert_eq!(param(&form, "resource"), Some(resource.as_str()), "RFC 8707 on every token request");
                    assert_eq!(param(&form, "client_id"), Some("dyn-client"));
                    let refused =
                        || (StatusCode::BAD_REQUEST, json(r#"{"error":"invalid_grant"}"#.to_owned())).into_response();
                    match param(&form, "grant_type") {
                        Some("authorization_code") => {
                            let code = param(&form, "code").unwrap_or_default();
                            let found = seen.codes.lock().unwrap().iter().position(|c| c.0 == code);
                            let Some(found) = found else { return refused() };
                            let (_, challenge, scope, asked_for) = seen.codes.lock().unwrap().remove(found);
                            let verifier = param(&form, "code_verifier").unwrap_or_default();
                            assert_eq!(URL_SAFE_NO_PAD.encode(Sha256::digest(verifier)), challenge, "PKCE");
                            assert_eq!(asked_for, resource);
                            json(issue(scope)).into_response()
                        }
                        Some("refresh_token") => {
                            let current = seen.refresh_token.lock().unwrap().clone();
                            match current {
                                Some((token, scope)) if Some(token.as_str()) == param(&form, "refresh_token") => {
                                    seen.refreshes.fetch_add(1, Ordering::SeqCst);
                                    json(issue(scope)).into_response()
                                }
                                _ => refused(),
                            }
                        }
                        _ => refused(),
                    }
                })
            });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Authority { url, seen }
    }
}

fn uuid_like() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("{}-{}", now(), NEXT.fetch_add(1, Ordering::SeqCst))
}

/// Our notes server, protected by `authority`; its URL.
async fn protected() -> (String, Authority) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let authority = Authority::start(url.clone()).await;
    let oauth = ResourceServer::new(&url, &authority.url).scopes_supported(["notes:read", "notes:write"]);
    let server = Server::empty("notes", "1").tool(write_note::Tool).tool(read_notes::Tool);
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new().oauth(oauth)));
    (url, authority)
}

/// A user who approves whatever is asked: the redirect's `Location` is
/// the answer.
struct Approve;

impl UserAgent for Approve {
    fn authorize<'a>(&'a self, authorization_url: &'a str) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
            let response = http.get(authorization_url).send().await.map_err(|e| Error::Transport(e.to_string()))?;
            Ok(response.headers()[reqwest::header::LOCATION].to_str().unwrap().to_owned())
        })
    }
}

async fn connect(url: &str, store: Arc<dyn TokenStore>) -> Result<Client, Error> {
    let oauth = OAuth::builder(url)
        .client_name("notes-test")
        .redirect_uri(REDIRECT_URI)
        .user_agent(Approve)
        .token_store(store)
        // The authorization server is on loopback, like the server.
        .allow_private_addresses(true)
        .build()?;
    Client::builder().authorization(Arc::new(oauth)).http(url).await
}

#[tokio::test]
async fn authorizes_from_the_first_401_steps_up_and_reuses_tokens_across_reconnects() {
    let (url, authority) = protected().await;
    let seen = &authority.seen;
    seen.partial_first_consent.store(true, Ordering::SeqCst);
    let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());

    let client = connect(&url, store.clone()).await.unwrap();
    assert_eq!(client.call_structured::<String>("read_notes", json!({})).await.unwrap(), "a note");
    assert_eq!(seen.registrations.load(Ordering::SeqCst), 1);
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 1);
    // Only `notes:read` was granted: writing is refused with 403, and the
    // client asks again for what it had plus what is missing.
    assert_eq!(client.call_structured::<String>("write_note", json!({ "text": "hi" })).await.unwrap(), "wrote hi");
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 2);
    let asked = seen.scopes_asked.lock().unwrap().clone();
    assert_eq!(asked, ["notes:read notes:write offline_access", "notes:read notes:write offline_access"]);
    client.close().await;

    // A new connection with the same store: no registration, no user.
    let client = connect(&url, store.clone()).await.unwrap();
    assert_eq!(
        client.call_structured::<String>("write_note", json!({ "text": "again" })).await.unwrap(),
        "wrote again"
    );
    assert_eq!(seen.registrations.load(Ordering::SeqCst), 1);
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 2);
    client.close().await;
}

#[tokio::test]
async fn an_expiring_token_is_refreshed_without_the_user() {
    let (url, authority) = protected().await;
    let seen = &authority.seen;
    seen.short_lived.store(true, Ordering::SeqCst);
    let client = connect(&url, Arc::new(MemoryTokenStore::new())).await.unwrap();
    for _ in 0..3 {
        assert_eq!(client.call_structured::<String>("read_notes", json!({})).await.unwrap(), "a note");
    }
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 1);
    // Each refresh used the refresh token the previous one returned.
    assert!(seen.refreshes.load(Ordering::SeqCst) >= 3, "{}", seen.refreshes.load(Ordering::SeqCst));
    client.close().await;
}

#[tokio::test]
async fn a_refusal_is_reported_and_not_asked_again_at_once() {
    let (url, authority) = protected().await;
    let seen = &authority.seen;
    seen.deny.store(true, Ordering::SeqCst);
    let error = match connect(&url, Arc::new(MemoryTokenStore::new())).await {
        Ok(client) => client.list_tools().await.unwrap_err(),
        Err(error) => error,
    };
    assert!(error.to_string().contains("access_denied"), "{error}");
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 1, "the user was asked once");
}
