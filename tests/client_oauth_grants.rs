//! The client's machine and enterprise grants against our runtime and a
//! test authorization server that checks what each grant must carry:
//! `private_key_jwt` and `client_secret_jwt` client assertions (RFC 7523
//! §2.2), workload identity's platform token read afresh from its file
//! (SEP-1933), and enterprise-managed authorization's token exchange at
//! the identity provider then the ID-JAG presented (SEP-990).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use mcp_runtime::axum::http::{HeaderMap, StatusCode, header};
use mcp_runtime::axum::response::IntoResponse;
use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, OAuth as ResourceServer};
use mcp_runtime::{Server, axum};
use mcp_runtime_client::auth::{ClientCredentials, EnterpriseIdp, OAuth, OAuthBuilder, PrivateKey, TokenSource};
use mcp_runtime_client::protocol::ProtocolVersion;
use mcp_runtime_client::{Client, EraChoice, Error};
use reqwest::Url;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".to_owned()
}

const EC_KEY: &str = include_str!("fixtures/oauth/ec.pem");

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn form(body: &str) -> Vec<(String, String)> {
    let mut url = Url::parse("http://localhost/").unwrap();
    url.set_query(Some(body));
    url.query_pairs().into_owned().collect()
}

fn param<'a>(form: &'a [(String, String)], name: &str) -> &'a str {
    form.iter().find(|(n, _)| n == name).map_or("", |(_, v)| v.as_str())
}

/// Checks a token request (its form and `Authorization` header): `Ok`
/// issues a token, `Err` refuses it with `invalid_grant`.
type Check = Box<dyn Fn(&[(String, String)], &str) -> Result<(), String> + Send + Sync>;

/// The test's authorization server (and, at `/idp/token`, the company
/// identity provider of enterprise-managed authorization).
struct Authority {
    url: String,
    check: Mutex<Check>,
    token_requests: AtomicUsize,
    /// What the identity provider saw, and the ID-JAG it issued.
    exchanges: Mutex<Vec<Vec<(String, String)>>>,
    refusals: Mutex<Vec<String>>,
}

impl Authority {
    async fn start(resource: String) -> Arc<Authority> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let authority = Arc::new(Authority {
            url: url.clone(),
            check: Mutex::new(Box::new(|_, _| Err("no check set".to_owned()))),
            token_requests: AtomicUsize::new(0),
            exchanges: Mutex::new(Vec::new()),
            refusals: Mutex::new(Vec::new()),
        });
        let key = EncodingKey::from_rsa_pem(include_bytes!("fixtures/oauth/rsa-a.pem")).unwrap();
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::RS256).unwrap();
        jwk.common.key_id = Some("a".to_owned());
        let jwks = json!({ "keys": [jwk] }).to_string();
        let metadata = json!({
            "issuer": url,
            "token_endpoint": format!("{url}/token"),
            "jwks_uri": format!("{url}/jwks"),
            "grant_types_supported": ["client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
            "token_endpoint_auth_methods_supported": ["private_key_jwt", "client_secret_jwt", "client_secret_basic"],
        })
        .to_string();
        let json = |body: String| ([(header::CONTENT_TYPE, "application/json")], body);
        let app = axum::Router::new()
            .route("/.well-known/oauth-authorization-server", axum::routing::get(move || async move { json(metadata) }))
            .route("/jwks", axum::routing::get(move || async move { json(jwks) }))
            .route("/idp/token", {
                let authority = authority.clone();
                axum::routing::post(move |body: String| async move {
                    authority.exchanges.lock().unwrap().push(form(&body));
                    let jag = format!("e30.{}.sig", authority.exchanges.lock().unwrap().len());
                    json(
                        json!({
                            "access_token": jag,
                            "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                            "token_type": "N_A",
                        })
                        .to_string(),
                    )
                })
            })
            .route("/token", {
                let authority = authority.clone();
                axum::routing::post(move |headers: HeaderMap, body: String| async move {
                    authority.token_requests.fetch_add(1, Ordering::SeqCst);
                    let basic = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or("");
                    let verdict = (authority.check.lock().unwrap())(&form(&body), basic);
                    if let Err(why) = verdict {
                        authority.refusals.lock().unwrap().push(why);
                        let body = json!({ "error": "invalid_grant" }).to_string();
                        return (StatusCode::BAD_REQUEST, json(body)).into_response();
                    }
                    let claims = json!({
                        "iss": authority.url, "aud": resource, "sub": "machine", "iat": now(), "exp": now() + 300,
                    });
                    let mut header = Header::new(Algorithm::RS256);
                    header.kid = Some("a".to_owned());
                    let token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
                    json(json!({ "access_token": token, "token_type": "Bearer", "expires_in": 300 }).to_string())
                        .into_response()
                })
            });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        authority
    }

    fn check(&self, check: impl Fn(&[(String, String)], &str) -> Result<(), String> + Send + Sync + 'static) {
        *self.check.lock().unwrap() = Box::new(check);
    }
}

/// Our hello server and its authorization server.
async fn protected() -> (String, Arc<Authority>) {
    let (url, authority, _) = recorded().await;
    (url, authority)
}

/// Each request the hello server answered: its method, whether it carried
/// an `Authorization`, and the status.
type Requests = Arc<Mutex<Vec<(String, bool, u16)>>>;

/// [`protected`], recording what the server answers.
async fn recorded() -> (String, Arc<Authority>, Requests) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let authority = Authority::start(url.clone()).await;
    let server = Server::empty("hello", "1").tool(hello::Tool);
    let options = HttpOptions::new().oauth(ResourceServer::new(&url, &authority.url));
    let requests = Requests::default();
    let record = {
        let requests = requests.clone();
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let requests = requests.clone();
            async move {
                let method = request.method().to_string();
                let authorized = request.headers().contains_key(header::AUTHORIZATION);
                let response = next.run(request).await;
                requests.lock().unwrap().push((method, authorized, response.status().as_u16()));
                response
            }
        }
    };
    let app = server.http_router(options).unwrap().layer(axum::middleware::from_fn(record));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, authority, requests)
}

async fn call_hello(url: &str, builder: OAuthBuilder) -> Result<String, Error> {
    let oauth = builder.allow_private_addresses(true).build()?;
    let client = Client::builder().authorization(Arc::new(oauth)).http(url).await?;
    let result = client.call_structured::<String>("hello", json!({})).await;
    client.close().await;
    result
}

/// The claims of a client assertion, if `decoding` verifies it for
/// `audience` and it is of the client `machine`.
fn verified(
    form: &[(String, String)],
    decoding: &DecodingKey,
    algorithm: Algorithm,
    audience: &str,
) -> Result<Value, String> {
    if param(form, "client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
        return Err(format!("client_assertion_type {:?}", param(form, "client_assertion_type")));
    }
    let mut validation = Validation::new(algorithm);
    validation.set_audience(&[audience]);
    validation.set_issuer(&["machine"]);
    validation.sub = Some("machine".to_owned());
    let data = jsonwebtoken::decode::<Value>(param(form, "client_assertion"), decoding, &validation)
        .map_err(|e| format!("assertion: {e}"))?;
    if !param(form, "client_secret").is_empty() {
        return Err("the secret itself was sent".to_owned());
    }
    Ok(data.claims)
}

#[tokio::test]
async fn private_key_jwt_authenticates_the_client_credentials_grant() {
    let (url, authority) = protected().await;
    let public =
        Jwk::from_encoding_key(&EncodingKey::from_ec_pem(EC_KEY.as_bytes()).unwrap(), Algorithm::ES256).unwrap();
    let decoding = DecodingKey::from_jwk(&public).unwrap();
    let issuer = authority.url.clone();
    let jtis = Arc::new(Mutex::new(Vec::new()));
    authority.check({
        let jtis = jtis.clone();
        move |form, basic| {
            assert_eq!(param(form, "grant_type"), "client_credentials");
            assert_eq!(basic, "", "no secret in a header either");
            let claims = verified(form, &decoding, Algorithm::ES256, &issuer)?;
            jtis.lock().unwrap().push(claims["jti"].as_str().unwrap_or_default().to_owned());
            Ok(())
        }
    });
    let key = PrivateKey::new(EC_KEY, "ES256").unwrap();
    let credentials = ClientCredentials::private_key_jwt("machine", key);
    for _ in 0..2 {
        let builder = OAuth::builder(&url).preregistered(credentials.clone()).client_credentials_grant();
        assert_eq!(call_hello(&url, builder).await.unwrap(), "hello");
    }
    let jtis = jtis.lock().unwrap().clone();
    assert_eq!(jtis.len(), 2);
    assert_ne!(jtis[0], jtis[1], "a new assertion for each request");
    // A key the server does not know is refused, and the refusal reported.
    let other = PrivateKey::new(
        "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPFtuYnzm0CRSl8qq
5/f0Ax6A8n2aRkSwoODsv5ojLJmhRANCAASYkh+G7ZsX4ObuXEBWclCrfVBeAq8e
GxfpyYBam2u73fZEVewC3c7G/fLotyAlRKdlIjMqZPOP4o3+yoyO6lGq
-----END PRIVATE KEY-----
",
        "ES256",
    )
    .unwrap();
    let builder = OAuth::builder(&url)
        .preregistered(ClientCredentials::private_key_jwt("machine", other))
        .client_credentials_grant();
    let error = call_hello(&url, builder).await.unwrap_err().to_string();
    assert!(error.contains("invalid_grant"), "{error}");
    assert!(authority.refusals.lock().unwrap()[0].contains("InvalidSignature"), "{:?}", authority.refusals);
}

#[tokio::test]
async fn the_session_is_deleted_with_the_connections_credentials() {
    let (url, authority, requests) = recorded().await;
    authority.check(|_, basic| if basic.is_empty() { Err("no client authentication".to_owned()) } else { Ok(()) });
    let oauth = OAuth::builder(&url)
        .preregistered(ClientCredentials::confidential("machine", "machine-secret"))
        .client_credentials_grant()
        .allow_private_addresses(true)
        .build()
        .unwrap();
    // The handshake era, where the server keeps a session to delete.
    let era = EraChoice::Version(ProtocolVersion::parse("2025-11-25").unwrap());
    let client = Client::builder().era(era).authorization(Arc::new(oauth)).http(&url).await.unwrap();
    assert_eq!(client.call_structured::<String>("hello", json!({})).await.unwrap(), "hello");
    client.close().await;
    let requests = requests.lock().unwrap().clone();
    let deletes: Vec<_> = requests.iter().filter(|(method, ..)| method == "DELETE").collect();
    assert_eq!(deletes.len(), 1, "{requests:?}");
    assert!(deletes[0].1, "the DELETE carried the token: {requests:?}");
    assert!((200..300).contains(&deletes[0].2), "the server ended the session: {requests:?}");
}

#[tokio::test]
async fn client_secret_jwt_signs_with_the_secret_and_never_sends_it() {
    let (url, authority) = protected().await;
    let issuer = authority.url.clone();
    authority.check(move |form, basic| {
        assert_eq!(basic, "");
        verified(form, &DecodingKey::from_secret(b"machine-secret"), Algorithm::HS256, &issuer).map(|_| ())
    });
    let credentials = ClientCredentials::confidential("machine", "machine-secret")
        .with_auth_method(mcp_runtime_client::auth::TokenEndpointAuth::ClientSecretJwt);
    let builder = OAuth::builder(&url).preregistered(credentials).client_credentials_grant();
    assert_eq!(call_hello(&url, builder).await.unwrap(), "hello");
}

#[tokio::test]
async fn workload_identity_reads_the_platform_token_afresh_and_reports_a_refusal_once() {
    let (url, authority) = protected().await;
    let accepted = Arc::new(Mutex::new("platform-token-1".to_owned()));
    authority.check({
        let accepted = accepted.clone();
        move |form, _| {
            assert_eq!(param(form, "grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
            assert_eq!(param(form, "client_id"), "workload");
            let assertion = param(form, "assertion");
            if assertion == *accepted.lock().unwrap() { Ok(()) } else { Err(format!("assertion {assertion}")) }
        }
    });
    let dir = std::env::temp_dir().join(format!("mcp-wif-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("token");
    let workload = || {
        OAuth::builder(&url)
            .preregistered(ClientCredentials::public("workload"))
            .workload_identity(TokenSource::file(&file))
    };
    std::fs::write(&file, "platform-token-1\n").unwrap();
    assert_eq!(call_hello(&url, workload()).await.unwrap(), "hello");
    // The platform rotated its token: the next authorization reads the new one.
    std::fs::write(&file, "platform-token-2").unwrap();
    *accepted.lock().unwrap() = "platform-token-2".to_owned();
    assert_eq!(call_hello(&url, workload()).await.unwrap(), "hello");
    // A token the server refuses: reported, not retried nor swapped for another grant.
    std::fs::write(&file, "stale").unwrap();
    let before = authority.token_requests.load(Ordering::SeqCst);
    let error = call_hello(&url, workload()).await.unwrap_err().to_string();
    assert!(error.contains("invalid_grant"), "{error}");
    assert_eq!(authority.token_requests.load(Ordering::SeqCst), before + 1);
    // No file at all: a clear error, nothing sent.
    std::fs::remove_file(&file).unwrap();
    let error = call_hello(&url, workload()).await.unwrap_err().to_string();
    assert!(error.contains("the workload's platform token"), "{error}");
    assert_eq!(authority.token_requests.load(Ordering::SeqCst), before + 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn enterprise_managed_authorization_exchanges_the_id_token_then_presents_the_id_jag() {
    let (url, authority) = protected().await;
    authority.check(|form, basic| {
        assert_eq!(param(form, "grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
        // The ID-JAG the identity provider issued (its first).
        if param(form, "assertion") != "e30.1.sig" {
            return Err(format!("assertion {}", param(form, "assertion")));
        }
        // client_secret_basic with the client's credentials here.
        assert_eq!(basic, "Basic YXBwOmFwcC1zZWNyZXQ=");
        Ok(())
    });
    let idp =
        EnterpriseIdp::new(format!("{}/idp/token", authority.url), "app-at-idp", TokenSource::fixed("the-id-token"));
    let builder = OAuth::builder(&url)
        .preregistered(ClientCredentials::confidential("app", "app-secret"))
        .enterprise_managed(idp);
    assert_eq!(call_hello(&url, builder).await.unwrap(), "hello");
    let exchanges = authority.exchanges.lock().unwrap();
    assert_eq!(exchanges.len(), 1);
    let exchange = &exchanges[0];
    assert_eq!(param(exchange, "grant_type"), "urn:ietf:params:oauth:grant-type:token-exchange");
    assert_eq!(param(exchange, "requested_token_type"), "urn:ietf:params:oauth:token-type:id-jag");
    assert_eq!(param(exchange, "subject_token"), "the-id-token");
    assert_eq!(param(exchange, "subject_token_type"), "urn:ietf:params:oauth:token-type:id_token");
    // For this authorization server and this MCP server.
    assert_eq!(param(exchange, "audience"), authority.url);
    assert_eq!(param(exchange, "resource"), url);
    assert_eq!(param(exchange, "client_id"), "app-at-idp");
}
