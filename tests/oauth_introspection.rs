//! Opaque access tokens checked by token introspection (RFC 7662): a fake
//! authorization server on loopback (an axum app) answers for the tokens
//! a test gives it and counts its calls; our server asks it over real
//! HTTP. An active token reaches the tool with its claims and scopes and
//! is asked about once; inactive tokens, expired or foreign answers, a
//! failing or unreachable endpoint, and a bad client secret are refused
//! with 401; the cache keeps no entry past the answer's `exp` nor beyond
//! its bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::common::http::{Answer, Client};
use base64::Engine;
use mcp_runtime::prelude::*;
use mcp_runtime::{
    Claims, Server, axum,
    transport::{HttpOptions, Introspection, OAuth},
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

/// Who is asking, as the introspection answer says.
#[tool]
fn whoami(claims: Claims) -> Json<Value> {
    Json(json!({"subject": claims.subject(), "scopes": claims.scopes(), "tenant": claims.claim::<String>("tenant")}))
}

const CLIENT_ID: &str = "notes-server";
const SECRET: &str = "s3cret:with/odd&chars";

/// The authorization server's introspection endpoint: answers for the
/// tokens in `answers` (inactive for any other), counting calls per token
/// and recording how the caller authenticated.
struct Endpoint {
    url: String,
    answers: Arc<Mutex<HashMap<String, Value>>>,
    hits: Arc<Mutex<HashMap<String, usize>>>,
    methods: Arc<Mutex<Vec<&'static str>>>,
    failures: Arc<AtomicUsize>,
}

impl Endpoint {
    async fn start() -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/introspect", listener.local_addr().unwrap());
        let answers = Arc::new(Mutex::new(HashMap::<String, Value>::new()));
        let hits = Arc::new(Mutex::new(HashMap::<String, usize>::new()));
        let methods = Arc::new(Mutex::new(Vec::new()));
        let failures = Arc::new(AtomicUsize::new(0));
        let (a, h, m, f) = (answers.clone(), hits.clone(), methods.clone(), failures.clone());
        let app = axum::Router::new().route(
            "/introspect",
            axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
                let (answers, hits, methods, failures) = (a.clone(), h.clone(), m.clone(), f.clone());
                async move {
                    let form: HashMap<String, String> = form_urlencoded::parse(body.as_bytes()).into_owned().collect();
                    let expected = format!(
                        "Basic {}",
                        base64::engine::general_purpose::STANDARD.encode(format!(
                            "{CLIENT_ID}:{}",
                            form_urlencoded::byte_serialize(SECRET.as_bytes()).collect::<String>()
                        ))
                    );
                    let basic = headers.get("authorization").is_some_and(|v| v.to_str().unwrap() == expected);
                    let post = form.get("client_id").map(String::as_str) == Some(CLIENT_ID)
                        && form.get("client_secret").map(String::as_str) == Some(SECRET);
                    if !basic && !post {
                        return (axum::http::StatusCode::UNAUTHORIZED, r#"{"error":"invalid_client"}"#.to_owned());
                    }
                    methods.lock().unwrap().push(if basic { "basic" } else { "post" });
                    let token = form.get("token").cloned().unwrap_or_default();
                    assert_eq!(form.get("token_type_hint").map(String::as_str), Some("access_token"));
                    *hits.lock().unwrap().entry(token.clone()).or_default() += 1;
                    if failures.load(Ordering::SeqCst) > 0 {
                        return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "down".to_owned());
                    }
                    let answer = answers.lock().unwrap().get(&token).cloned().unwrap_or(json!({"active": false}));
                    (axum::http::StatusCode::OK, answer.to_string())
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Endpoint { url, answers, hits, methods, failures }
    }

    fn answer(&self, token: &str, answer: Value) {
        self.answers.lock().unwrap().insert(token.to_owned(), answer);
    }

    fn hits(&self, token: &str) -> usize {
        self.hits.lock().unwrap().get(token).copied().unwrap_or(0)
    }
}

/// Our server, asking `url` about tokens with `settings`.
async fn serve(url: &str, settings: impl FnOnce(Introspection) -> Introspection) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let introspection = settings(Introspection::new(url, CLIENT_ID, SECRET));
    let oauth = OAuth::new(format!("{base}/mcp"), "https://auth.example.com")
        .scopes_supported(["notes:read", "notes:write"])
        .introspection(introspection);
    let server = Server::empty("notes", "1").tool(write_note::Tool).tool(whoami::Tool);
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new().oauth(oauth)));
    base
}

fn client(base: &str, token: &str) -> Client {
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, format!("Bearer {token}").parse().unwrap());
    let http = reqwest::Client::builder().default_headers(headers).build().unwrap();
    Client { http, url: format!("{base}/mcp"), session: None, next_id: 1 }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn active(base: &str, scope: &str, exp: u64) -> Value {
    json!({
        "active": true,
        "iss": "https://auth.example.com",
        "aud": format!("{base}/mcp"),
        "sub": "ann",
        "scope": scope,
        "exp": exp,
        "tenant": "acme",
        "token_type": "Bearer",
    })
}

/// One `initialize`, its answer (one request: one token check).
async fn initialize(base: &str, token: &str) -> Answer {
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    client(base, token).request("initialize", params).await
}

fn refused_as_invalid(answer: &Answer) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{answer:?}");
    let challenge = answer.headers.get(WWW_AUTHENTICATE).unwrap().to_str().unwrap();
    assert!(challenge.starts_with("Bearer ") && challenge.contains(r#"error="invalid_token""#), "{challenge}");
}

#[tokio::test]
async fn an_active_token_reaches_the_tool_with_its_claims_and_is_asked_about_once() {
    let endpoint = Endpoint::start().await;
    let base = serve(&endpoint.url, |i| i).await;
    endpoint.answer("opaque-ann", active(&base, "notes:read", now() + 3600));
    let mut ann = client(&base, "opaque-ann");
    ann.initialize().await;
    let answer = ann.call("whoami", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!(
        answer.last()["result"]["structuredContent"]["result"],
        json!({"subject": "ann", "scopes": ["notes:read"], "tenant": "acme"})
    );
    // The answer's scopes are enforced as a JWT's are.
    let answer = ann.call("write_note", json!({"text": "x"})).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{answer:?}");
    assert_eq!(endpoint.hits("opaque-ann"), 1, "four requests, one introspection call: the answer was kept");
    assert_eq!(*endpoint.methods.lock().unwrap(), ["basic"], "HTTP Basic by default, parts form-encoded");
}

#[tokio::test]
async fn inactive_tokens_are_refused_every_time_and_not_kept() {
    let endpoint = Endpoint::start().await;
    let base = serve(&endpoint.url, |i| i).await;
    for _ in 0..2 {
        refused_as_invalid(&initialize(&base, "made-up").await);
    }
    assert_eq!(endpoint.hits("made-up"), 2, "an inactive answer is not kept");
    // A token without one, or without a bearer scheme, never reaches the endpoint.
    let answer = Client { http: reqwest::Client::new(), url: format!("{base}/mcp"), session: None, next_id: 1 }
        .request("initialize", json!({}))
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn answers_that_do_not_vouch_for_this_resource_are_refused() {
    let endpoint = Endpoint::start().await;
    let base = serve(&endpoint.url, |i| i).await;
    endpoint.answer("expired", active(&base, "notes:read", now() - 3600));
    let mut foreign = active(&base, "notes:read", now() + 3600);
    foreign["aud"] = json!("https://other.example/mcp");
    endpoint.answer("foreign", foreign);
    let mut other_issuer = active(&base, "notes:read", now() + 3600);
    other_issuer["iss"] = json!("https://evil.example");
    endpoint.answer("other-issuer", other_issuer);
    endpoint.answer("active-string", json!({"active": "true", "sub": "ann"}));
    for token in ["expired", "foreign", "other-issuer", "active-string"] {
        refused_as_invalid(&initialize(&base, token).await);
    }
    // Without `iss` and `aud` (both optional in RFC 7662), active is enough.
    endpoint.answer("bare", json!({"active": true, "sub": "bob"}));
    assert_eq!(initialize(&base, "bare").await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_cache_keeps_no_answer_past_its_exp_nor_beyond_its_bound() {
    let endpoint = Endpoint::start().await;
    let base = serve(&endpoint.url, |i| i.max_cached(1)).await;
    // Expiring now (within the leeway): accepted, but kept for no time.
    endpoint.answer("ending", active(&base, "notes:read", now()));
    for _ in 0..2 {
        assert_eq!(initialize(&base, "ending").await.status, StatusCode::OK);
    }
    assert_eq!(endpoint.hits("ending"), 2, "an answer is not kept past its exp");

    endpoint.answer("a", active(&base, "notes:read", now() + 3600));
    endpoint.answer("b", active(&base, "notes:read", now() + 3600));
    for token in ["a", "a", "b", "b", "a"] {
        assert_eq!(initialize(&base, token).await.status, StatusCode::OK);
    }
    assert_eq!((endpoint.hits("a"), endpoint.hits("b")), (2, 1), "one entry at most: b pushed a out");

    let base = serve(&endpoint.url, |i| i.cache_max_age(std::time::Duration::ZERO)).await;
    endpoint.answer("c", active(&base, "notes:read", now() + 3600));
    for _ in 0..2 {
        assert_eq!(initialize(&base, "c").await.status, StatusCode::OK);
    }
    assert_eq!(endpoint.hits("c"), 2, "a zero maximum age keeps nothing");
}

#[tokio::test]
async fn an_endpoint_that_fails_or_cannot_be_reached_grants_nothing() {
    let endpoint = Endpoint::start().await;
    let base = serve(&endpoint.url, |i| i).await;
    endpoint.answer("good", active(&base, "notes:read", now() + 3600));
    endpoint.failures.store(1, Ordering::SeqCst);
    refused_as_invalid(&initialize(&base, "good").await);
    endpoint.failures.store(0, Ordering::SeqCst);
    assert_eq!(initialize(&base, "good").await.status, StatusCode::OK, "a failure is not kept either");

    // Nothing listening there.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/introspect", closed.local_addr().unwrap());
    drop(closed);
    let base = serve(&url, |i| i).await;
    refused_as_invalid(&initialize(&base, "good").await);

    // The endpoint refuses our credentials.
    let base =
        {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let oauth = OAuth::new(format!("{base}/mcp"), "https://auth.example.com")
                .introspection(Introspection::new(&endpoint.url, CLIENT_ID, "wrong"));
            tokio::spawn(
                Server::empty("n", "1").tool(whoami::Tool).serve_http_on(listener, HttpOptions::new().oauth(oauth)),
            );
            base
        };
    refused_as_invalid(&initialize(&base, "good").await);
}

#[tokio::test]
async fn the_secret_may_be_sent_in_the_form() {
    let endpoint = Endpoint::start().await;
    let base = serve(&endpoint.url, Introspection::client_secret_post).await;
    endpoint.answer("good", active(&base, "notes:read", now() + 3600));
    assert_eq!(initialize(&base, "good").await.status, StatusCode::OK);
    assert_eq!(*endpoint.methods.lock().unwrap(), ["post"]);
    let debug = format!("{:?}", Introspection::new(&endpoint.url, CLIENT_ID, SECRET));
    assert!(!debug.contains(SECRET), "{debug}");
}
