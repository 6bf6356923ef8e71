//! Who the clients are: dynamic registration (RFC 7591), the lookup of a
//! client by id (registered, or a client ID metadata document), redirect
//! URIs checked exactly (a loopback one on any port, RFC 8252 §7.3), and
//! client authentication at the token and revocation endpoints.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use base64::Engine;
use reqwest::Url;
use serde_json::{Value, json};

use super::crypto;
use super::records::{self, Client};
use super::router::{Proxy, json_answer, oauth_error, unavailable, wrong_method};

/// How long a dynamically registered client is kept.
const REGISTRATION_LIFETIME: Duration = Duration::from_secs(180 * 24 * 60 * 60);
/// The most redirect URIs one client may register.
const MAX_REDIRECT_URIS: usize = 10;

/// `POST /register` (RFC 7591).
pub(crate) async fn register(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    if request.method() != Method::POST {
        return wrong_method("POST");
    }
    if !proxy.settings.registration {
        return oauth_error(StatusCode::FORBIDDEN, "access_denied", "dynamic client registration is off");
    }
    let Ok(body) = axum::body::to_bytes(request.into_body(), 16 * 1024).await else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", "the body is too large");
    };
    let Ok(Value::Object(metadata)) = serde_json::from_slice::<Value>(&body) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", "the body is not a JSON object");
    };
    let redirect_uris: Vec<String> = match metadata.get("redirect_uris") {
        Some(Value::Array(uris)) if !uris.is_empty() && uris.len() <= MAX_REDIRECT_URIS => {
            match uris.iter().map(|u| u.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>() {
                Some(uris) => uris,
                None => {
                    return oauth_error(StatusCode::BAD_REQUEST, "invalid_redirect_uri", "redirect URIs are strings");
                }
            }
        }
        _ => {
            let why = format!("`redirect_uris` must list 1 to {MAX_REDIRECT_URIS} URIs");
            return oauth_error(StatusCode::BAD_REQUEST, "invalid_redirect_uri", &why);
        }
    };
    if let Some(why) = redirect_uris.iter().find_map(|uri| redirect_uri_problem(uri)) {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_redirect_uri", &why);
    }
    let text = |name: &str| metadata.get(name).and_then(Value::as_str);
    let method = text("token_endpoint_auth_method").unwrap_or("none");
    if !matches!(method, "none" | "client_secret_post" | "client_secret_basic") {
        let why = "`token_endpoint_auth_method` must be none, client_secret_post or client_secret_basic";
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", why);
    }
    let listed = |name: &str, allowed: &[&str]| match metadata.get(name) {
        None => true,
        Some(Value::Array(items)) => items.iter().all(|i| i.as_str().is_some_and(|i| allowed.contains(&i))),
        Some(_) => false,
    };
    if !listed("grant_types", &["authorization_code", "refresh_token"]) || !listed("response_types", &["code"]) {
        let why = "only the authorization_code and refresh_token grants and the code response type are supported";
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", why);
    }
    let client_name = text("client_name").map(|name| name.chars().take(100).collect::<String>());
    let secret = (method != "none").then(crypto::token);
    let client_id = crypto::token();
    let client = Client {
        client_id: client_id.clone(),
        redirect_uris: redirect_uris.clone(),
        client_name: client_name.clone(),
        secret_hash: secret.as_deref().map(crypto::hashed),
        metadata_document: false,
    };
    if records::put(&*proxy.store, &format!("client:{client_id}"), &client, REGISTRATION_LIFETIME).await.is_err() {
        return unavailable();
    }
    tracing::info!(client = client_name.as_deref().unwrap_or("(no name)"), "registered an OAuth client");
    let mut answer = json!({
        "client_id": client_id,
        "client_id_issued_at": super::now(),
        "redirect_uris": redirect_uris,
        "token_endpoint_auth_method": method,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(name) = client_name {
        answer["client_name"] = name.into();
    }
    if let Some(secret) = secret {
        answer["client_secret"] = secret.into();
        answer["client_secret_expires_at"] = 0.into();
    }
    json_answer(StatusCode::CREATED, &answer)
}

/// Why a redirect URI cannot be registered: it must be absolute, without
/// a fragment, and `https`, `http` on a loopback host, or a private-use
/// scheme of a native app (RFC 8252 §7.1: with a dot, `com.example.app:`);
/// never `javascript:`, `data:` and the like.
pub(crate) fn redirect_uri_problem(uri: &str) -> Option<String> {
    let Ok(url) = Url::parse(uri) else { return Some(format!("{uri:?} is not an absolute URI")) };
    if url.fragment().is_some() {
        return Some(format!("{uri:?} has a fragment"));
    }
    match url.scheme() {
        "https" if url.host_str().is_some() => None,
        "http" if is_loopback(&url) => None,
        "http" => Some(format!("{uri:?} is plain http on a host that is not loopback")),
        scheme if scheme.contains('.') => None,
        _ => Some(format!("{uri:?} has a scheme that cannot be a redirect URI")),
    }
}

fn is_loopback(url: &Url) -> bool {
    url.host_str().is_some_and(|host| {
        host.eq_ignore_ascii_case("localhost")
            || host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    })
}

/// Whether `asked` is one of the client's redirect URIs: exactly, or for
/// a loopback one, on any port (RFC 8252 §7.3: a native app listens on
/// whatever port it gets).
pub(crate) fn redirect_matches(client: &Client, asked: &str) -> bool {
    if client.redirect_uris.iter().any(|uri| uri == asked) {
        return true;
    }
    let Ok(mut asked) = Url::parse(asked) else { return false };
    if asked.scheme() != "http" || !is_loopback(&asked) {
        return false;
    }
    let _ = asked.set_port(None);
    client.redirect_uris.iter().filter_map(|uri| Url::parse(uri).ok()).any(|mut uri| {
        let _ = uri.set_port(None);
        uri.scheme() == "http" && is_loopback(&uri) && uri == asked
    })
}

/// The client of `client_id`: registered, or (an `https` URL) read from
/// its metadata document. `Err` for the store failing.
pub(crate) async fn find(proxy: &Proxy, client_id: &str) -> Result<Option<Client>, Response> {
    if let Some(client) = proxy.preset_client(client_id) {
        return Ok(Some(client));
    }
    let key = format!("client:{client_id}");
    match records::get::<Client>(&*proxy.store, &key).await {
        Err(_) => return Err(unavailable()),
        Ok(Some(client)) => return Ok(Some(client)),
        Ok(None) => {}
    }
    if !client_id.starts_with("https://") {
        return Ok(None);
    }
    match proxy.cimd.fetch(client_id).await {
        Ok((client, ttl)) => {
            // Kept a while, so a sign-in reads it once: a bounded record.
            let _ = records::put(&*proxy.store, &key, &client, ttl).await;
            Ok(Some(client))
        }
        Err(why) => {
            tracing::info!(%why, "refused a client ID metadata document");
            Ok(None)
        }
    }
}

/// A POSTed form (`/token`, `/revoke`), read within its bounds, and the
/// client its credentials (in the form or in `Authorization`) authenticate.
pub(crate) async fn authenticated_form(
    proxy: &Proxy,
    request: Request,
) -> Result<(Client, Vec<(String, String)>), Response> {
    let headers = request.headers().clone();
    let form = super::router::form_body(request).await?;
    let client = authenticate(proxy, &headers, &form).await?;
    Ok((client, form))
}

/// The client a token or revocation request authenticates as (RFC 6749
/// §2.3: HTTP Basic, or `client_id` and `client_secret` in the body; a
/// public client names itself with `client_id` alone). `Err` is the
/// `invalid_client` answer.
pub(crate) async fn authenticate(
    proxy: &Proxy,
    headers: &HeaderMap,
    form: &[(String, String)],
) -> Result<Client, Response> {
    let refused = || oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "client authentication failed");
    let (client_id, secret) = match basic(headers) {
        Some((id, secret)) => (id, Some(secret)),
        None => {
            let field = |name: &str| super::router::single(form, name);
            let (Ok(Some(id)), Ok(secret)) = (field("client_id"), field("client_secret")) else {
                return Err(refused());
            };
            (id.to_owned(), secret.map(str::to_owned))
        }
    };
    let Some(client) = find(proxy, &client_id).await? else { return Err(refused()) };
    match (&client.secret_hash, secret) {
        (None, None) => Ok(client),
        (Some(hash), Some(secret)) if crypto::same(hash, &crypto::hashed(&secret)) => Ok(client),
        _ => Err(refused()),
    }
}

/// The client id and secret of `Authorization: Basic` (form-encoded, RFC
/// 6749 §2.3.1).
fn basic(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let unescape = |s: &str| form_urlencoded::parse(format!("v={s}").as_bytes()).next().map(|(_, v)| v.into_owned());
    Some((unescape(id)?, unescape(secret)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(uris: &[&str]) -> Client {
        Client {
            client_id: "c".into(),
            redirect_uris: uris.iter().map(|u| (*u).to_owned()).collect(),
            client_name: None,
            secret_hash: None,
            metadata_document: false,
        }
    }

    #[test]
    fn redirect_uris_match_exactly_and_loopback_ones_on_any_port() {
        let c = client(&["https://app.example.com/cb", "http://127.0.0.1/callback", "com.example.app:/cb"]);
        assert!(redirect_matches(&c, "https://app.example.com/cb"));
        assert!(!redirect_matches(&c, "https://app.example.com/cb/"));
        assert!(!redirect_matches(&c, "https://app.example.com/cb?x=1"));
        assert!(!redirect_matches(&c, "https://app.example.com:444/cb"));
        assert!(!redirect_matches(&c, "https://evil.example.com/cb"));
        assert!(redirect_matches(&c, "http://127.0.0.1:53127/callback"));
        assert!(!redirect_matches(&c, "http://127.0.0.1:53127/other"));
        assert!(!redirect_matches(&c, "http://localhost:53127/callback"), "the host is compared too");
        assert!(redirect_matches(&c, "com.example.app:/cb"));
    }

    #[test]
    fn only_safe_redirect_uris_register() {
        assert_eq!(redirect_uri_problem("https://app.example.com/cb"), None);
        assert_eq!(redirect_uri_problem("http://localhost:3000/cb"), None);
        assert_eq!(redirect_uri_problem("http://[::1]/cb"), None);
        assert_eq!(redirect_uri_problem("com.example.app:/cb"), None);
        for bad in
            ["http://app.example.com/cb", "javascript:alert(1)", "data:text/html,x", "https://a.example/#f", "/cb"]
        {
            assert!(redirect_uri_problem(bad).is_some(), "{bad}");
        }
    }
}
