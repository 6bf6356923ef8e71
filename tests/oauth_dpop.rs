//! DPoP on the resource server (RFC 9449): our client, with DPoP on, gets
//! a DPoP-bound token from a test authorization server (which binds it to
//! the key of the token request's proof, `cnf.jkt`) and uses our server
//! with a proof per request, nonces or not. Proofs made by hand show each
//! bad one refused: replayed, for another URL or method, by another key
//! than the token's, without the token's hash, or missing; a bound token
//! shown as a bearer token is refused too.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::axum::http::{HeaderMap, header};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::{Dpop, HttpOptions, OAuth as ResourceServer};
use mcp_runtime::{Claims, Server, axum};
use mcp_runtime_client::Client;
use mcp_runtime_client::auth::{ClientCredentials, OAuth};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

/// Who is asking, and the key the token is bound to.
#[tool]
fn whoami(claims: Claims) -> Json<Value> {
    Json(json!({"subject": claims.subject(), "jkt": claims.all().get("cnf").and_then(|c| c.get("jkt"))}))
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn issuer_key() -> EncodingKey {
    EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-a.pem")).unwrap()
}

/// The RFC 7638 thumbprint of a public JWK.
fn thumbprint(jwk: &Value) -> String {
    let canonical = match jwk["kty"].as_str().unwrap() {
        "EC" => format!(r#"{{"crv":{},"kty":"EC","x":{},"y":{}}}"#, jwk["crv"], jwk["x"], jwk["y"]),
        "RSA" => format!(r#"{{"e":{},"kty":"RSA","n":{}}}"#, jwk["e"], jwk["n"]),
        other => panic!("{other}"),
    };
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// An access token from the test issuer for `resource`, bound to `jkt`.
fn bound_token(issuer: &str, resource: &str, jkt: Option<&str>) -> String {
    let mut claims = json!({"iss": issuer, "aud": resource, "sub": "machine", "iat": now(), "exp": now() + 300});
    if let Some(jkt) = jkt {
        claims["cnf"] = json!({"jkt": jkt});
    }
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("a".to_owned());
    jsonwebtoken::encode(&header, &claims, &issuer_key()).unwrap()
}

/// A test authorization server issuing DPoP-bound JWTs for
/// `client_credentials`, bound to the key of the token request's proof;
/// our server (`dpop` its settings) takes them. The endpoint's URL and
/// the issuer's.
async fn start(dpop: Dpop) -> (String, String) {
    let as_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", as_listener.local_addr().unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let mut jwk = Jwk::from_encoding_key(&issuer_key(), Algorithm::RS256).unwrap();
    jwk.common.key_id = Some("a".to_owned());
    let jwks = json!({"keys": [jwk]}).to_string();
    let metadata = json!({
        "issuer": issuer,
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "dpop_signing_alg_values_supported": ["ES256"],
    })
    .to_string();
    let json = |body: String| ([(header::CONTENT_TYPE, "application/json")], body);
    let (iss, resource) = (issuer.clone(), url.clone());
    let app = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", axum::routing::get(move || async move { json(metadata) }))
        .route("/jwks", axum::routing::get(move || async move { json(jwks) }))
        .route(
            "/token",
            axum::routing::post(move |headers: HeaderMap| async move {
                let proof = headers.get("dpop").unwrap().to_str().unwrap();
                let header: Value =
                    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(proof.split('.').next().unwrap()).unwrap()).unwrap();
                let token = bound_token(&iss, &resource, Some(&thumbprint(&header["jwk"])));
                json(json!({"access_token": token, "token_type": "DPoP", "expires_in": 300}).to_string())
            }),
        );
    tokio::spawn(async move { axum::serve(as_listener, app).await.unwrap() });
    let oauth = ResourceServer::new(&url, &issuer).dpop(dpop);
    let server = Server::empty("hello", "1").tool(whoami::Tool);
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new().oauth(oauth)));
    (url, issuer)
}

/// Our client, with DPoP, calling `whoami`.
async fn whoami_through_our_client(url: &str) -> Value {
    let oauth = OAuth::builder(url)
        .preregistered(ClientCredentials::confidential("machine", "machine-secret"))
        .client_credentials_grant()
        .allow_private_addresses(true)
        .dpop(true)
        .build()
        .unwrap();
    let client = Client::builder().authorization(Arc::new(oauth)).http(url).await.unwrap();
    let mut answers = Vec::new();
    for _ in 0..2 {
        answers.push(client.call_structured::<Value>("whoami", json!({})).await.unwrap());
    }
    client.close().await;
    assert_eq!(answers[0], answers[1]);
    answers.remove(0)
}

#[tokio::test]
async fn our_client_uses_a_dpop_bound_token_with_our_server() {
    let (url, _) = start(Dpop::new()).await;
    let me = whoami_through_our_client(&url).await;
    assert_eq!(me["subject"], "machine");
    assert!(me["jkt"].as_str().is_some_and(|jkt| jkt.len() == 43), "{me}");
}

#[tokio::test]
async fn our_client_follows_our_servers_nonces() {
    let (url, _) = start(Dpop::new().nonces()).await;
    assert_eq!(whoami_through_our_client(&url).await["subject"], "machine");
}

/// A key that signs proofs by hand.
struct ProofKey {
    alg: Algorithm,
    key: EncodingKey,
    jwk: Jwk,
}

impl ProofKey {
    fn ec() -> ProofKey {
        let key = EncodingKey::from_ec_pem(include_bytes!("fixtures/oauth/ec.pem")).unwrap();
        let jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
        ProofKey { alg: Algorithm::ES256, key, jwk }
    }

    fn rsa() -> ProofKey {
        let key = EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-b.pem")).unwrap();
        let jwk = Jwk::from_encoding_key(&key, Algorithm::RS256).unwrap();
        ProofKey { alg: Algorithm::RS256, key, jwk }
    }

    fn thumbprint(&self) -> String {
        thumbprint(&serde_json::to_value(&self.jwk).unwrap())
    }

    fn proof(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(self.jwk.clone());
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }
}

fn proof_claims(method: &str, url: &str, token: &str) -> Value {
    json!({
        "jti": uuid::Uuid::new_v4().to_string(),
        "htm": method,
        "htu": url,
        "iat": now(),
        "ath": URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())),
    })
}

/// An `initialize` showing `authorization` and `proof`.
async fn initialize(url: &str, authorization: &str, proof: Option<&str>) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("authorization", authorization)
        .json(&body);
    if let Some(proof) = proof {
        request = request.header("dpop", proof);
    }
    request.send().await.unwrap()
}

fn refused(response: &reqwest::Response, error: &str) {
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let challenge = response.headers().get("www-authenticate").unwrap().to_str().unwrap();
    assert!(challenge.starts_with("DPoP "), "{challenge}");
    assert!(challenge.contains(&format!(r#"error="{error}""#)), "{error}: {challenge}");
    assert!(challenge.contains("algs=") && challenge.contains("resource_metadata="), "{challenge}");
}

#[tokio::test]
async fn bad_proofs_are_refused() {
    let (url, issuer) = start(Dpop::new()).await;
    let key = ProofKey::ec();
    let token = bound_token(&issuer, &url, Some(&key.thumbprint()));
    let dpop = format!("DPoP {token}");

    let good = key.proof(&proof_claims("POST", &url, &token));
    assert_eq!(initialize(&url, &dpop, Some(&good)).await.status(), StatusCode::OK);
    refused(&initialize(&url, &dpop, Some(&good)).await, "invalid_dpop_proof");

    // A query on htu is ignored; another path, host or method is not.
    let with_query = key.proof(&proof_claims("POST", &format!("{url}?x=1"), &token));
    assert_eq!(initialize(&url, &dpop, Some(&with_query)).await.status(), StatusCode::OK);
    for (method, htu) in
        [("POST", format!("{url}/other")), ("POST", url.replace("127.0.0.1", "localhost")), ("GET", url.clone())]
    {
        let proof = key.proof(&proof_claims(method, &htu, &token));
        refused(&initialize(&url, &dpop, Some(&proof)).await, "invalid_dpop_proof");
    }
    let mut stale = proof_claims("POST", &url, &token);
    stale["iat"] = json!(now() - 3600);
    refused(&initialize(&url, &dpop, Some(&key.proof(&stale))).await, "invalid_dpop_proof");
    let other_token = proof_claims("POST", &url, "another token");
    refused(&initialize(&url, &dpop, Some(&key.proof(&other_token))).await, "invalid_dpop_proof");
    // A proof signed by a key the token is not bound to: valid as a proof,
    // but the token is not its key's.
    let other = ProofKey::rsa();
    refused(&initialize(&url, &dpop, Some(&other.proof(&proof_claims("POST", &url, &token)))).await, "invalid_token");
    // A proof whose signature is not its embedded key's.
    let forged = {
        let mut header = Header::new(Algorithm::RS256);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(key.jwk.clone());
        jsonwebtoken::encode(&header, &proof_claims("POST", &url, &token), &other.key).unwrap()
    };
    refused(&initialize(&url, &dpop, Some(&forged)).await, "invalid_dpop_proof");

    // No proof, or the bound token as a bearer token.
    refused(&initialize(&url, &dpop, None).await, "invalid_dpop_proof");
    let as_bearer = initialize(&url, &format!("Bearer {token}"), None).await;
    refused(&as_bearer, "invalid_token");
    // An unbound token with a good proof.
    let unbound = bound_token(&issuer, &url, None);
    let proof = key.proof(&proof_claims("POST", &url, &unbound));
    refused(&initialize(&url, &format!("DPoP {unbound}"), Some(&proof)).await, "invalid_token");
}

#[tokio::test]
async fn nonces_are_issued_and_required() {
    let (url, issuer) = start(Dpop::new().nonces()).await;
    let key = ProofKey::ec();
    let token = bound_token(&issuer, &url, Some(&key.thumbprint()));
    let dpop = format!("DPoP {token}");
    let without = initialize(&url, &dpop, Some(&key.proof(&proof_claims("POST", &url, &token)))).await;
    refused(&without, "use_dpop_nonce");
    let nonce = without.headers().get("dpop-nonce").expect("a nonce is issued").to_str().unwrap().to_owned();
    let mut claims = proof_claims("POST", &url, &token);
    claims["nonce"] = json!("made-up");
    refused(&initialize(&url, &dpop, Some(&key.proof(&claims))).await, "use_dpop_nonce");
    claims["nonce"] = json!(nonce);
    assert_eq!(initialize(&url, &dpop, Some(&key.proof(&claims))).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn bearer_tokens_pass_only_when_allowed_and_unbound() {
    let (url, issuer) = start(Dpop::new().allow_bearer()).await;
    let unbound = bound_token(&issuer, &url, None);
    let answer = initialize(&url, &format!("Bearer {unbound}"), None).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let bound = bound_token(&issuer, &url, Some(&ProofKey::ec().thumbprint()));
    let answer = initialize(&url, &format!("Bearer {bound}"), None).await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    let challenges: Vec<_> =
        answer.headers().get_all("www-authenticate").iter().map(|v| v.to_str().unwrap().to_owned()).collect();
    assert!(challenges[0].starts_with("DPoP ") && challenges[1].starts_with("Bearer "), "{challenges:?}");

    let (url, issuer) = start(Dpop::new()).await;
    let unbound = bound_token(&issuer, &url, None);
    refused(&initialize(&url, &format!("Bearer {unbound}"), None).await, "invalid_token");
    let metadata: Value = reqwest::get(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["dpop_bound_access_tokens_required"], true);
    assert!(metadata["dpop_signing_alg_values_supported"].as_array().unwrap().contains(&json!("ES256")));
}
