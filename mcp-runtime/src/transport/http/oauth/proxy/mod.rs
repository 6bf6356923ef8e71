//! The OAuth proxy: the server is the authorization server its MCP
//! clients see (RFC 8414 metadata, dynamic registration and client ID
//! metadata documents, authorization code with PKCE, consent, refresh,
//! revocation) and signs users in at an upstream identity provider with
//! one pre-registered client, issuing its own short-lived tokens bound
//! to the upstream identity and to this resource. This file holds the
//! settings; each endpoint is a file of its own.

mod authorize;
mod callback;
mod cimd;
mod clients;
mod crypto;
mod issue;
mod jag;
mod metadata;
mod pages;
mod presets;
mod records;
#[cfg(feature = "redis")]
mod redis;
mod revoke;
mod router;
mod store;
mod token;
mod upstream;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use jag::TrustedIdp;
pub use store::{MemoryProxyStore, ProxyStore};
pub use upstream::Upstream;

pub(crate) use router::{Proxy, paths, routes};

/// The server as an OAuth 2.1 authorization server in front of an
/// identity provider that MCP clients cannot register with (GitHub,
/// Google, Microsoft Entra ID, most company providers): give it to
/// [`HttpOptions::oauth_proxy`](crate::transport::HttpOptions::oauth_proxy).
///
/// MCP clients find this server's metadata (RFC 9728, then RFC 8414 at
/// `issuer`), register (RFC 7591 at `/register`, or with a client ID
/// metadata document: a `client_id` that is an `https` URL, fetched with
/// no private, loopback or link-local target, at most 5 KB within 5
/// seconds and no redirect), and send the user to `/authorize` with PKCE
/// (S256 only) and an exactly registered redirect URI (a loopback one on
/// any port, RFC 8252 §7.3). The user sees a consent page naming the
/// client, then signs in at the [`Upstream`] provider (authorization code
/// with PKCE there too, a state and verifier per sign-in); the proxy keeps
/// the provider's tokens (sealed in its store) and gives the client a
/// code, then at `/token` an access token of its own (a JWT signed with
/// EdDSA, `aud` the resource, RFC 8707, valid for
/// [`access_token_lifetime`](Self::access_token_lifetime)) and a refresh
/// token that rotates at each use (a reused one revokes the grant).
/// `/revoke` (RFC 7009) ends a grant. Tools read the user through
/// [`Claims`](crate::Claims): `sub` is the provider's subject, and the
/// provider's claims chosen by [`Upstream::claims`] are there too.
///
/// Every sign-in, code and token expires, and every kind of record is
/// bounded (see [`MemoryProxyStore`]). Replicas share a
/// [`store`](Self::store) and a [`secret`](Self::secret).
///
/// ```no_run
/// use mcp_runtime::{Server, transport::{HttpOptions, OAuthProxy, Upstream}};
///
/// # async fn run() -> Result<(), mcp_runtime::Error> {
/// let github = Upstream::github(std::env::var("GITHUB_CLIENT_ID").unwrap(), std::env::var("GITHUB_CLIENT_SECRET").unwrap());
/// let proxy = OAuthProxy::new("https://mcp.example.com", github).scopes_supported(["notes"]);
/// let options = HttpOptions::new().allowed_hosts(["mcp.example.com"]).oauth_proxy(proxy);
/// Server::new("notes", "1.0.0").serve_http_with("0.0.0.0:8080", options).await
/// # }
/// ```
#[derive(Clone)]
pub struct OAuthProxy {
    pub(crate) issuer: String,
    pub(crate) upstream: Upstream,
    pub(crate) resource: Option<String>,
    pub(crate) scopes_supported: Vec<String>,
    pub(crate) secret: Option<Vec<u8>>,
    pub(crate) store: Option<Arc<dyn ProxyStore>>,
    pub(crate) access_lifetime: Duration,
    pub(crate) refresh_lifetime: Duration,
    pub(crate) transaction_lifetime: Duration,
    pub(crate) callback_path: String,
    pub(crate) registration: bool,
    pub(crate) private_cimd_hosts: bool,
    pub(crate) clients: Vec<(String, Vec<String>, Option<String>)>,
    pub(crate) idps: Vec<TrustedIdp>,
}

impl std::fmt::Debug for OAuthProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProxy")
            .field("issuer", &self.issuer)
            .field("upstream", &self.upstream)
            .field("resource", &self.resource)
            .field("scopes_supported", &self.scopes_supported)
            .finish_non_exhaustive()
    }
}

impl OAuthProxy {
    /// Be the authorization server `issuer` (this server's public base
    /// URL, e.g. `https://mcp.example.com`; `https`, or `http` on a
    /// loopback host for tests) in front of `upstream`.
    pub fn new(issuer: impl Into<String>, upstream: Upstream) -> Self {
        OAuthProxy {
            issuer: issuer.into().trim_end_matches('/').to_owned(),
            upstream,
            resource: None,
            scopes_supported: Vec::new(),
            secret: None,
            store: None,
            access_lifetime: Duration::from_secs(15 * 60),
            refresh_lifetime: Duration::from_secs(30 * 24 * 60 * 60),
            transaction_lifetime: Duration::from_secs(10 * 60),
            callback_path: "/oauth/callback".into(),
            registration: true,
            private_cimd_hosts: false,
            clients: Vec::new(),
            idps: Vec::new(),
        }
    }

    /// The resource clients ask tokens for (RFC 8707; the tokens' `aud`):
    /// by default the issuer followed by the endpoint's path.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }

    /// The scopes of this server that clients may ask for (the per-tool
    /// scopes); a client asking for none gets them all.
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The secret (at least 32 bytes) the signing and sealing keys are
    /// derived from. Without it, a random one per process: tokens end
    /// with the process and replicas cannot share them.
    pub fn secret(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.secret = Some(secret.into());
        self
    }

    /// Keep clients, sign-ins, codes and grants in `store` (replicas share
    /// one, e.g. the `redis` feature's `RedisStore`) instead of a
    /// [`MemoryProxyStore`].
    pub fn store(mut self, store: Arc<dyn ProxyStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// How long an access token is good for (default 15 minutes).
    pub fn access_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.access_lifetime = lifetime;
        self
    }

    /// How long a grant lasts without being refreshed (default 30 days).
    pub fn refresh_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.refresh_lifetime = lifetime;
        self
    }

    /// How long a user has from `/authorize` to coming back from the
    /// provider (default 10 minutes).
    pub fn transaction_lifetime(mut self, lifetime: Duration) -> Self {
        self.transaction_lifetime = lifetime;
        self
    }

    /// Where the provider sends the user back, under the issuer (default
    /// `/oauth/callback`): the redirect URI registered there.
    pub fn callback_path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.callback_path = if path.starts_with('/') { path } else { format!("/{path}") };
        self
    }

    /// Refuse dynamic client registration (RFC 7591): clients register
    /// with a metadata document or are [pre-registered](Self::client).
    pub fn without_registration(mut self) -> Self {
        self.registration = false;
        self
    }

    /// A pre-registered client: `client_id`, its redirect URIs, and
    /// optionally a secret (a confidential client; without it, a public
    /// one that authenticates with PKCE alone).
    pub fn client<I, S>(mut self, client_id: impl Into<String>, redirect_uris: I, secret: Option<String>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.clients.push((client_id.into(), redirect_uris.into_iter().map(Into::into).collect(), secret));
        self
    }

    /// Fetch client ID metadata documents from private, loopback and
    /// link-local addresses too: for tests, or clients inside one network.
    pub fn allow_private_metadata_hosts(mut self) -> Self {
        self.private_cimd_hosts = true;
        self
    }
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}
