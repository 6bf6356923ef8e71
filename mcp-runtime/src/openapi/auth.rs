//! How requests to the API authenticate: one credential for every call, or
//! one chosen per MCP request (from its caller's `Claims`).

use std::fmt;
use std::sync::Arc;

use crate::request::RequestParts;

/// A credential sent with each request to the API. Its `Debug` shows the
/// kind and header or parameter name, never the secret.
#[derive(Clone)]
#[non_exhaustive]
pub enum Auth {
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// A key in a header (`X-API-Key: <key>`): (header, key).
    HeaderKey(String, String),
    /// A key in the query string (`?api_key=<key>`): (parameter, key).
    QueryKey(String, String),
    /// A key in a cookie (`Cookie: session=<key>`): (cookie, key).
    CookieKey(String, String),
    /// HTTP Basic: (user, password).
    Basic(String, Option<String>),
}

/// What a credential adds to a request besides its query.
#[derive(Default)]
pub(crate) struct Credential {
    pub(crate) headers: Vec<(String, String)>,
    /// `name=value` pairs for the `Cookie` header.
    pub(crate) cookies: Vec<String>,
}

impl Auth {
    /// `Authorization: Bearer <token>`.
    pub fn bearer(token: impl Into<String>) -> Auth {
        Auth::Bearer(token.into())
    }

    /// An API key in the header `header`.
    pub fn header(header: impl Into<String>, key: impl Into<String>) -> Auth {
        Auth::HeaderKey(header.into(), key.into())
    }

    /// An API key in the query parameter `parameter`.
    pub fn query(parameter: impl Into<String>, key: impl Into<String>) -> Auth {
        Auth::QueryKey(parameter.into(), key.into())
    }

    /// An API key in the cookie `cookie`.
    pub fn cookie(cookie: impl Into<String>, key: impl Into<String>) -> Auth {
        Auth::CookieKey(cookie.into(), key.into())
    }

    /// HTTP Basic authentication.
    pub fn basic(user: impl Into<String>, password: Option<String>) -> Auth {
        Auth::Basic(user.into(), password)
    }

    /// Add the credential to a request whose URL is `url`; what goes in
    /// headers and cookies is returned.
    pub(crate) fn apply(&self, url: &mut reqwest::Url) -> Credential {
        let header =
            |name: &str, value: String| Credential { headers: vec![(name.to_owned(), value)], cookies: vec![] };
        match self {
            Auth::QueryKey(name, key) => {
                url.query_pairs_mut().append_pair(name, key);
                Credential::default()
            }
            Auth::Bearer(token) => header("authorization", format!("Bearer {token}")),
            Auth::HeaderKey(name, key) => header(name, key.clone()),
            Auth::CookieKey(name, key) => Credential { headers: vec![], cookies: vec![format!("{name}={key}")] },
            Auth::Basic(user, password) => {
                use base64::Engine;
                let pair = format!("{user}:{}", password.as_deref().unwrap_or(""));
                let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
                header("authorization", format!("Basic {encoded}"))
            }
        }
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::Bearer(_) => f.write_str("Auth::Bearer(..)"),
            Auth::HeaderKey(name, _) => write!(f, "Auth::HeaderKey({name:?}, ..)"),
            Auth::QueryKey(name, _) => write!(f, "Auth::QueryKey({name:?}, ..)"),
            Auth::CookieKey(name, _) => write!(f, "Auth::CookieKey({name:?}, ..)"),
            Auth::Basic(user, _) => write!(f, "Auth::Basic({user:?}, ..)"),
        }
    }
}

/// Chooses a credential for each MCP request, e.g. one the caller's
/// [`Claims`](crate::Claims) identify; `None` sends the request without
/// one (or with the fixed [`OpenApi::auth`](super::OpenApi::auth), if set).
pub(crate) type PerRequest = Arc<dyn Fn(&RequestParts) -> Option<Auth> + Send + Sync>;
