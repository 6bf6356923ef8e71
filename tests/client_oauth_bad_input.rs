//! The client's OAuth against servers that misbehave: a token endpoint
//! that asks for a new DPoP nonce forever, a resource server that does the
//! same, a token endpoint answering garbage, metadata that redirects to
//! another host, and an authorization server on a private address. Each is
//! refused with a clear error, after a bounded number of requests. The
//! machine client (the client credentials grant) needs no user, so each
//! test is the whole flow from the first 401.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::axum::http::{HeaderMap, StatusCode, header};
use mcp_runtime::axum::response::{IntoResponse, Response};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, OAuth as ResourceServer};
use mcp_runtime::{Server, axum};
use mcp_runtime_client::auth::{ClientCredentials, OAuth};
use mcp_runtime_client::{Client, Error};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".to_owned()
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// What the test's authorization server does at its token endpoint.
#[derive(Clone)]
enum Token {
    /// Sign a JWT the runtime accepts.
    Issue,
    /// Answer 200 with this body.
    Garbage(Vec<u8>),
    /// Ask for a new DPoP nonce every time.
    NonceForever,
    /// Issue an opaque DPoP-bound token.
    Dpop,
}

/// An authorization server of the test's own, named `issuer` (the URL
/// the protected resource metadata gives for it).
struct Authority {
    issuer: String,
    port: u16,
    token: Mutex<Token>,
    /// Redirect the metadata request here instead of answering it.
    redirect_metadata: Mutex<Option<String>>,
    metadata_requests: AtomicUsize,
    token_requests: AtomicUsize,
    /// Each token request's DPoP proof (its claims and key), and the
    /// nonce answered.
    proofs: Mutex<Vec<(Value, Value, Option<String>)>>,
}

/// Part `n` of a JWT (0 the header, 1 the claims), as JSON.
fn part(jwt: Option<&str>, n: usize) -> Value {
    let part = jwt.and_then(|p| p.split('.').nth(n)).unwrap_or_default();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap_or_default()).unwrap_or(Value::Null)
}

fn claims(proof: Option<&str>) -> Value {
    part(proof, 1)
}

fn proof_key(proof: Option<&str>) -> Value {
    part(proof, 0)["jwk"].clone()
}

impl Authority {
    /// Start it on loopback; `host` is how URLs name it (`127.0.0.1` or
    /// `localhost`).
    async fn start(host: &str, resource: String) -> Arc<Authority> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let authority = Arc::new(Authority {
            issuer: format!("http://{host}:{port}"),
            port,
            token: Mutex::new(Token::Issue),
            redirect_metadata: Mutex::new(None),
            metadata_requests: AtomicUsize::new(0),
            token_requests: AtomicUsize::new(0),
            proofs: Mutex::new(Vec::new()),
        });
        let key = EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-a.pem")).unwrap();
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::RS256).unwrap();
        jwk.common.key_id = Some("a".to_owned());
        let jwks = json!({ "keys": [jwk] }).to_string();
        let json = |body: String| ([(header::CONTENT_TYPE, "application/json")], body);
        let app = axum::Router::new()
            .route("/.well-known/oauth-authorization-server", {
                let authority = authority.clone();
                axum::routing::get(move || async move {
                    authority.metadata_requests.fetch_add(1, Ordering::SeqCst);
                    if let Some(to) = authority.redirect_metadata.lock().unwrap().clone() {
                        return (StatusCode::FOUND, [(header::LOCATION, to)]).into_response();
                    }
                    json(authority.metadata().to_string()).into_response()
                })
            })
            .route("/metadata", {
                let authority = authority.clone();
                axum::routing::get(move || async move { json(authority.metadata().to_string()) })
            })
            .route("/jwks", axum::routing::get(move || async move { json(jwks) }))
            .route("/token", {
                let authority = authority.clone();
                axum::routing::post(move |headers: HeaderMap| async move {
                    authority.token_requests.fetch_add(1, Ordering::SeqCst);
                    let proof = headers.get("dpop").and_then(|v| v.to_str().ok());
                    let mode = authority.token.lock().unwrap().clone();
                    let answer: Response = match mode {
                        Token::Issue => {
                            let claims = json!({
                                "iss": authority.issuer, "aud": resource, "sub": "machine", "client_id": "machine",
                                "iat": now(), "exp": now() + 300,
                            });
                            let mut header = Header::new(Algorithm::RS256);
                            header.kid = Some("a".to_owned());
                            let token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
                            json(
                                json!({ "access_token": token, "token_type": "Bearer", "expires_in": 300 }).to_string(),
                            )
                            .into_response()
                        }
                        Token::Garbage(body) => (StatusCode::OK, body).into_response(),
                        Token::NonceForever => {
                            let nonce = format!("as-nonce-{}", authority.token_requests.load(Ordering::SeqCst));
                            authority.proofs.lock().unwrap().push((
                                claims(proof),
                                proof_key(proof),
                                Some(nonce.clone()),
                            ));
                            let body = json!({ "error": "use_dpop_nonce" }).to_string();
                            (StatusCode::BAD_REQUEST, [("dpop-nonce", nonce)], json(body)).into_response()
                        }
                        Token::Dpop => {
                            authority.proofs.lock().unwrap().push((claims(proof), proof_key(proof), None));
                            json(
                                json!({ "access_token": "bound", "token_type": "DPoP", "expires_in": 300 }).to_string(),
                            )
                            .into_response()
                        }
                    };
                    answer
                })
            });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        authority
    }

    fn metadata(&self) -> Value {
        let url = &self.issuer;
        json!({
            "issuer": url,
            "token_endpoint": format!("{url}/token"),
            "jwks_uri": format!("http://127.0.0.1:{}/jwks", self.port),
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "dpop_signing_alg_values_supported": ["ES256"],
        })
    }
}

/// Our hello server, its tokens from an authority named by `host`.
async fn protected(host: &str) -> (String, Arc<Authority>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let authority = Authority::start(host, url.clone()).await;
    let oauth = ResourceServer::new(&url, &authority.issuer);
    let server = Server::empty("hello", "1").tool(hello::Tool);
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new().oauth(oauth)));
    (url, authority)
}

fn machine(url: &str, allow_private: bool, dpop: bool) -> OAuth {
    OAuth::builder(url)
        .preregistered(ClientCredentials::confidential("machine", "machine-secret"))
        .client_credentials_grant()
        .allow_private_addresses(allow_private)
        .dpop(dpop)
        .build()
        .unwrap()
}

/// Connect and list the tools; the error if either fails.
async fn use_server(url: &str, oauth: OAuth) -> Result<Vec<String>, Error> {
    let client = Client::builder().authorization(Arc::new(oauth)).http(url).await?;
    let tools = client.list_tools().await.map(|tools| tools.into_iter().map(|t| t.name).collect());
    client.close().await;
    tools
}

#[tokio::test]
async fn a_private_authorization_server_is_refused_unless_allowed() {
    // The authorization server is named `localhost`: the MCP server's own
    // origin (127.0.0.1 here) is trusted, another loopback name is not.
    let (url, authority) = protected("localhost").await;
    let error = use_server(&url, machine(&url, false, false)).await.unwrap_err().to_string();
    assert!(error.contains("allow_private_addresses"), "{error}");
    assert!(error.contains("loopback"), "{error}");
    assert_eq!(authority.metadata_requests.load(Ordering::SeqCst), 0, "nothing reached it");
    assert_eq!(authority.token_requests.load(Ordering::SeqCst), 0);
    // Allowed, the same server is used.
    assert_eq!(use_server(&url, machine(&url, true, false)).await.unwrap(), ["hello"]);
    assert_eq!(authority.token_requests.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn metadata_redirected_to_another_host_is_refused() {
    let (url, authority) = protected("127.0.0.1").await;
    // Another name for the same machine is another host.
    *authority.redirect_metadata.lock().unwrap() = Some(format!("http://localhost:{}/metadata", authority.port));
    let error = use_server(&url, machine(&url, true, false)).await.unwrap_err().to_string();
    assert!(error.contains("another host"), "{error}");
    assert_eq!(authority.token_requests.load(Ordering::SeqCst), 0);
    // A redirect on the same host is followed.
    *authority.redirect_metadata.lock().unwrap() = Some(format!("http://127.0.0.1:{}/metadata", authority.port));
    assert_eq!(use_server(&url, machine(&url, true, false)).await.unwrap(), ["hello"]);
}

#[tokio::test]
async fn a_token_endpoint_answering_garbage_is_an_error() {
    let (url, authority) = protected("127.0.0.1").await;
    let cases: [(&[u8], &str); 5] = [
        (b"<html>hello</html>", "not valid"),
        (b"", "not valid"),
        (br#"{"access_token":42}"#, "not valid"),
        (br#"{"access_token":"a","token_type":"MAC"}"#, "only Bearer"),
        (&[b'x'; 2 << 20], "larger than"),
    ];
    for (body, expected) in cases {
        *authority.token.lock().unwrap() = Token::Garbage(body.to_vec());
        let before = authority.token_requests.load(Ordering::SeqCst);
        let error = use_server(&url, machine(&url, true, false)).await.unwrap_err().to_string();
        assert!(error.contains(expected), "{expected}: {error}");
        // Asked once; the failure is the answer, not a reason to ask again.
        assert_eq!(authority.token_requests.load(Ordering::SeqCst), before + 1, "{expected}");
    }
    // And the same server still serves a client whose grant works.
    *authority.token.lock().unwrap() = Token::Issue;
    assert_eq!(use_server(&url, machine(&url, true, false)).await.unwrap(), ["hello"]);
}

#[tokio::test]
async fn a_token_endpoint_asking_for_nonces_forever_is_asked_twice() {
    let (url, authority) = protected("127.0.0.1").await;
    *authority.token.lock().unwrap() = Token::NonceForever;
    let error = use_server(&url, machine(&url, true, true)).await.unwrap_err().to_string();
    assert!(error.contains("use_dpop_nonce"), "{error}");
    assert_eq!(authority.token_requests.load(Ordering::SeqCst), 2, "the first request and one retry");
    let proofs = authority.proofs.lock().unwrap().clone();
    assert_eq!(proofs[0].0.get("nonce"), None);
    // The retry carried the nonce the first answer gave.
    assert_eq!(proofs[1].0["nonce"].as_str(), proofs[0].2.as_deref());
    assert_eq!(proofs[1].0["htm"], "POST");
    assert_eq!(proofs[1].0["htu"], format!("{}/token", authority.issuer));
}

/// A resource server that takes DPoP tokens and asks for a new nonce on
/// every request: what each request presented.
#[derive(Default)]
struct NonceForever {
    seen: Mutex<Vec<Sent>>,
    given: AtomicUsize,
}

/// One request with a token, as the resource server saw it.
struct Sent {
    authorization: String,
    /// The DPoP proof's claims and key.
    claims: Value,
    key: Value,
    /// The nonce the refusal gave.
    given: String,
    /// The JSON-RPC message: its method and id.
    message: String,
}

#[tokio::test]
async fn a_resource_server_asking_for_nonces_forever_is_retried_a_bounded_number_of_times() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{base}/mcp");
    let authority = Authority::start("127.0.0.1", url.clone()).await;
    *authority.token.lock().unwrap() = Token::Dpop;
    let server = Arc::new(NonceForever::default());
    let prm = json!({ "resource": url, "authorization_servers": [authority.issuer] }).to_string();
    let app = axum::Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", axum::routing::get(move || async move { prm }))
        .route("/mcp", {
            let (server, base) = (server.clone(), base.clone());
            axum::routing::any(move |headers: HeaderMap, body: String| async move {
                let metadata = format!(r#"resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#);
                let Some(authorization) = headers.get("authorization").and_then(|v| v.to_str().ok()) else {
                    return (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, format!("DPoP {metadata}"))])
                        .into_response();
                };
                let proof = headers.get("dpop").and_then(|v| v.to_str().ok());
                let nonce = format!("rs-nonce-{}", server.given.fetch_add(1, Ordering::SeqCst));
                let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                let message = format!("{} {}", message["method"], message["id"]);
                let sent = Sent {
                    authorization: authorization.to_owned(),
                    claims: claims(proof),
                    key: proof_key(proof),
                    given: nonce.clone(),
                    message,
                };
                server.seen.lock().unwrap().push(sent);
                let challenge = format!(r#"DPoP error="use_dpop_nonce", {metadata}"#);
                (
                    StatusCode::UNAUTHORIZED,
                    [(header::WWW_AUTHENTICATE, challenge), ("dpop-nonce".parse().unwrap(), nonce)],
                )
                    .into_response()
            })
        });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let error = use_server(&url, machine(&url, true, true)).await.unwrap_err();
    assert!(matches!(error, Error::Http { status: 401, .. }), "{error}");
    assert_eq!(authority.token_requests.load(Ordering::SeqCst), 1, "one token, never asked again for a nonce");
    let seen = server.seen.lock().unwrap();
    // Each message the connection tried (server/discover, initialize) was
    // sent again with the new nonce, at most three times (the transport's
    // bound on retries after a challenge, the first one spent on getting
    // the token), then the refusal was the answer.
    let messages: std::collections::BTreeSet<&str> = seen.iter().map(|s| s.message.as_str()).collect();
    assert!(messages.len() <= 3, "{messages:?}");
    // Nonces are numbered in the order given.
    let number = |nonce: &str| nonce.strip_prefix("rs-nonce-").and_then(|n| n.parse::<usize>().ok());
    for message in &messages {
        let sends: Vec<_> = seen.iter().filter(|s| s.message == *message).collect();
        assert!((2..=4).contains(&sends.len()), "{message} was sent {} times with the token", sends.len());
        // Each retry carried the nonce its previous refusal gave (or one
        // given since, to a request sent meanwhile).
        for pair in sends.windows(2) {
            let carried = pair[1].claims["nonce"].as_str().and_then(number);
            assert!(carried >= number(&pair[0].given), "{message}: {carried:?} after {}", pair[0].given);
        }
    }
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(b"bound"));
    // One key for the client: the token request's proof and every
    // request's.
    let (token_proof, token_key, _) = authority.proofs.lock().unwrap()[0].clone();
    assert_eq!(token_proof["htm"], "POST");
    assert!(token_proof.get("ath").is_none());
    assert_eq!(token_key["kty"], "EC");
    for sent in seen.iter() {
        assert_eq!(sent.authorization, "DPoP bound");
        assert_eq!(sent.claims["ath"], ath.as_str(), "bound to the token");
        assert_eq!(sent.claims["htu"], url.as_str());
        assert_eq!(sent.key, token_key);
    }
    let jtis: std::collections::HashSet<_> = seen.iter().map(|s| s.claims["jti"].to_string()).collect();
    assert_eq!(jtis.len(), seen.len(), "a fresh proof each time");
}
