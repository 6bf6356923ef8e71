//! The proxy as built for one endpoint ([`Proxy`]: its settings checked,
//! keys derived, clients loaded) and its routes, each behind the `Host`
//! allow-list.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, any};
use reqwest::Url;
use serde_json::json;

use super::crypto::{self, Keys};
use super::records::Client;
use super::store::{MemoryProxyStore, ProxyStore};
use super::upstream::Provider;
use super::{OAuthProxy, authorize, callback, metadata, revoke, token};
use crate::error::Error;
use crate::transport::http::cors;
use crate::transport::http::guard::{self, AllowList};
use crate::transport::http::oauth::OAuth;

/// One endpoint's proxy.
pub(crate) struct Proxy {
    pub(crate) settings: OAuthProxy,
    pub(crate) issuer: Url,
    pub(crate) resource: String,
    pub(crate) keys: Keys,
    pub(crate) store: Arc<dyn ProxyStore>,
    pub(crate) provider: Provider,
    pub(crate) cimd: super::cimd::Fetcher,
    pub(crate) hosts: AllowList,
    pub(crate) idps: super::jag::Idps,
}

impl Proxy {
    /// Check the settings and make the proxy of the endpoint at
    /// `endpoint_path`, with the resource-server settings that accept
    /// its tokens.
    pub(crate) fn new(settings: OAuthProxy, endpoint_path: &str, hosts: AllowList) -> Result<(Proxy, OAuth), Error> {
        let invalid = Error::InvalidOAuth;
        let issuer = super::super::absolute("issuer", &settings.issuer).map_err(invalid)?;
        if issuer.query().is_some() {
            return Err(Error::InvalidOAuth("the issuer has a query".into()));
        }
        let resource = settings.resource.clone().unwrap_or_else(|| format!("{}{endpoint_path}", settings.issuer));
        super::super::absolute("resource", &resource).map_err(invalid)?;
        settings.upstream.check().map_err(invalid)?;
        let secret = settings.secret.clone().unwrap_or_else(crypto::random_secret);
        let keys = Keys::derive(&secret).map_err(invalid)?;
        let store = settings.store.clone().unwrap_or_else(|| Arc::new(MemoryProxyStore::default()));
        let provider = Provider::new(settings.upstream.clone()).map_err(invalid)?;
        let cimd = super::cimd::Fetcher::new(settings.private_cimd_hosts).map_err(invalid)?;
        let idps = super::jag::Idps::new(&settings.idps)?;
        let oauth = OAuth::new(resource.clone(), settings.issuer.clone())
            .scopes_supported(settings.scopes_supported.clone())
            .fixed_key(keys.jwk.clone())
            // The proxy checks what it signed itself: no other clock to
            // allow for, and an expired token is refused at once.
            .leeway(std::time::Duration::ZERO);
        let proxy = Proxy { settings, issuer, resource, keys, store, provider, cimd, hosts, idps };
        Ok((proxy, oauth))
    }

    /// A pre-registered client, by id.
    pub(crate) fn preset_client(&self, client_id: &str) -> Option<Client> {
        let (id, redirect_uris, secret) = self.settings.clients.iter().find(|(id, _, _)| id == client_id)?;
        Some(Client {
            client_id: id.clone(),
            redirect_uris: redirect_uris.clone(),
            client_name: None,
            secret_hash: secret.as_deref().map(crypto::hashed),
            metadata_document: false,
        })
    }

    /// A path under the issuer.
    pub(crate) fn path(&self, path: &str) -> String {
        format!("{}{path}", self.issuer.path().trim_end_matches('/'))
    }

    /// An absolute URL under the issuer.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.settings.issuer)
    }

    /// Whether the grant an access token names is still live: a revoked
    /// grant's access tokens stop working at once, not when they expire.
    pub(crate) async fn alive(&self, claims: &crate::request::claims::Claims) -> bool {
        let Some(grant) = claims.claim::<String>("sid") else { return false };
        matches!(self.store.get(&format!("grant:{grant}")).await, Ok(Some(_)))
    }

    /// Whether the issuer is reached over TLS (cookies are then `Secure`).
    pub(crate) fn secure(&self) -> bool {
        self.issuer.scheme() == "https"
    }
}

/// The proxy's paths and their handlers: its routes, and the paths the
/// program's own routes must keep clear of.
fn table(proxy: &Proxy) -> Vec<(String, MethodRouter<Arc<Proxy>>)> {
    let issuer_path = proxy.issuer.path().trim_end_matches('/').to_owned();
    let mut table = vec![
        (format!("/.well-known/oauth-authorization-server{issuer_path}"), any(metadata::authorization_server)),
        (proxy.path("/jwks"), any(metadata::jwks)),
        (proxy.path("/register"), any(super::clients::register)),
        (proxy.path("/authorize"), any(authorize::authorize)),
        (proxy.path("/oauth/consent"), any(authorize::consent)),
        (proxy.path(&proxy.settings.callback_path), any(callback::callback)),
        (proxy.path("/token"), any(token::token)),
        (proxy.path("/revoke"), any(revoke::revoke)),
    ];
    if !issuer_path.is_empty() {
        // Some clients look where OpenID Connect puts it, after the path.
        table.push((
            format!("{issuer_path}/.well-known/oauth-authorization-server"),
            any(metadata::authorization_server),
        ));
    }
    table
}

/// The paths the proxy serves.
pub(crate) fn paths(proxy: &Proxy) -> Vec<String> {
    table(proxy).into_iter().map(|(path, _)| path).collect()
}

/// The proxy's routes.
pub(crate) fn routes(proxy: Arc<Proxy>) -> Router {
    let router = table(&proxy).into_iter().fold(Router::new(), |router, (path, route)| router.route(&path, route));
    router.layer(axum::middleware::from_fn_with_state(proxy.clone(), checked)).with_state(proxy)
}

/// Every route answers only to the hosts the server answers to. The
/// endpoints a client calls from a web page (metadata, keys,
/// registration, token, revocation) answer any origin's preflight and
/// let it read their answers: they take no cookie, so no page can act
/// as the user through them. The user's own pages (`/authorize`, the
/// consent form, the callback) are never readable across origins.
async fn checked(State(proxy): State<Arc<Proxy>>, request: Request, next: axum::middleware::Next) -> Response {
    if guard::check(request.headers(), &proxy.hosts, &None, None).is_err() {
        return (StatusCode::FORBIDDEN, guard::HOST_REFUSED).into_response();
    }
    let path = request.uri().path();
    let for_pages = path.contains("/.well-known/")
        || ["/jwks", "/register", "/token", "/revoke"].iter().any(|p| path == proxy.path(p));
    if !for_pages {
        return next.run(request).await;
    }
    if request.method() == Method::OPTIONS {
        let mut response = cors::preflight(request.headers(), HeaderValue::from_static("GET, POST, OPTIONS"));
        cors::public(&mut response);
        return response;
    }
    let mut response = next.run(request).await;
    cors::public(&mut response);
    response
}

/// An OAuth error answer (RFC 6749 §5.2), never cached.
pub(crate) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut response = json_answer(status, &json!({"error": error, "error_description": description}));
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert("www-authenticate", HeaderValue::from_static("Basic realm=\"oauth\""));
    }
    response
}

/// The store failed: retry later.
pub(crate) fn unavailable() -> Response {
    oauth_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "temporarily_unavailable",
        "the server cannot keep state now; retry later",
    )
}

/// A JSON answer that no cache keeps.
pub(crate) fn json_answer(status: StatusCode, body: &serde_json::Value) -> Response {
    let mut response = (status, body.to_string()).into_response();
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response.headers_mut().insert("pragma", HeaderValue::from_static("no-cache"));
    response
}

/// 302 to `url`.
pub(crate) fn redirect(url: &str) -> Response {
    let mut response = StatusCode::FOUND.into_response();
    if let Ok(value) = HeaderValue::from_str(url) {
        response.headers_mut().insert(LOCATION, value);
    }
    response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// 405 naming the methods a route takes.
pub(crate) fn wrong_method(allowed: &'static str) -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    response.headers_mut().insert("allow", HeaderValue::from_static(allowed));
    response
}

/// The pairs of a form body or query; a repeated name is refused by the
/// callers that care (RFC 6749 §3.1: parameters must not repeat).
pub(crate) fn pairs(text: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(text).into_owned().collect()
}

/// The one value of `name`: `Err` when it repeats.
pub(crate) fn single<'a>(pairs: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, String> {
    let mut found = pairs.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let first = found.next();
    if found.next().is_some() {
        return Err(format!("`{name}` is repeated"));
    }
    Ok(first.filter(|v| !v.is_empty()))
}

/// The body of a POST, at most 64 KB, read within the body timeout the
/// server applies; `None` for another method or a larger body.
pub(crate) async fn form_body(request: Request) -> Result<Vec<(String, String)>, Response> {
    if request.method() != Method::POST {
        return Err(wrong_method("POST"));
    }
    let form = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/x-www-form-urlencoded"));
    if !form {
        return Err(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the body must be a form (application/x-www-form-urlencoded)",
        ));
    }
    match axum::body::to_bytes(request.into_body(), 64 * 1024).await {
        Ok(bytes) => Ok(pairs(&bytes)),
        Err(_) => Err(oauth_error(StatusCode::PAYLOAD_TOO_LARGE, "invalid_request", "the body is too large")),
    }
}
