//! Building an [`OAuth`]: who the client is, how the user is reached,
//! which credentials it has and where tokens are kept, checked once at
//! [`OAuthBuilder::build`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};

use reqwest::Url;
use tokio::sync::Mutex;

use super::{Flow, OAuth, State};
use crate::Error;
use crate::auth::dpop::Dpop;
use crate::auth::enterprise::EnterpriseIdp;
use crate::auth::guard::Fetcher;
use crate::auth::registration::{ClientCredentials, ClientInfo};
use crate::auth::source::TokenSource;
use crate::auth::store::{MemoryTokenStore, TokenStore};
use crate::auth::user_agent::UserAgent;

/// How to build an [`OAuth`]: who the client is, how the user is reached,
/// which credentials it has, where tokens are kept.
pub struct OAuthBuilder {
    server: String,
    name: String,
    redirect_uri: Option<String>,
    user_agent: Option<Arc<dyn UserAgent>>,
    preregistered: Option<ClientCredentials>,
    metadata_document: Option<String>,
    store: Option<Arc<dyn TokenStore>>,
    application_type: Option<String>,
    offline_access: bool,
    client_credentials: bool,
    workload_identity: Option<TokenSource>,
    enterprise: Option<EnterpriseIdp>,
    dpop: bool,
    allow_private: bool,
    http: Option<reqwest::Client>,
}

impl OAuth {
    /// Start building the OAuth client of the MCP server at `server_url`
    /// (the URL the [`Client`](crate::Client) connects to).
    pub fn builder(server_url: impl Into<String>) -> OAuthBuilder {
        OAuthBuilder {
            server: server_url.into(),
            name: env!("CARGO_PKG_NAME").to_owned(),
            redirect_uri: None,
            user_agent: None,
            preregistered: None,
            metadata_document: None,
            store: None,
            application_type: None,
            offline_access: true,
            client_credentials: false,
            workload_identity: None,
            enterprise: None,
            dpop: false,
            allow_private: false,
            http: None,
        }
    }
}

impl OAuthBuilder {
    /// The name shown to the user when registering dynamically.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Where the authorization server sends the user back; the
    /// [`UserAgent`] listens there.
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = Some(uri.into());
        self
    }

    /// How the user is taken to the authorization server.
    pub fn user_agent(mut self, user_agent: impl UserAgent) -> Self {
        self.user_agent = Some(Arc::new(user_agent));
        self
    }

    /// Credentials registered beforehand with the authorization server
    /// (preferred over any other way of getting a client ID). Tie them to
    /// their issuer with [`ClientCredentials::for_issuer`] so they are
    /// never shown to another server.
    pub fn preregistered(mut self, credentials: ClientCredentials) -> Self {
        self.preregistered = Some(credentials);
        self
    }

    /// The `https://` URL of this client's metadata document, used as its
    /// client ID where the authorization server supports client ID
    /// metadata documents (before falling back to dynamic registration).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_document = Some(url.into());
        self
    }

    /// Where tokens are kept; a [`MemoryTokenStore`] of its own if not
    /// set. Share one store between connections to reuse their tokens.
    pub fn token_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// `native` or `web` in dynamic registration; guessed from the
    /// redirect URI (a loopback address is `native`) if not set.
    pub fn application_type(mut self, kind: impl Into<String>) -> Self {
        self.application_type = Some(kind.into());
        self
    }

    /// Whether to ask for a refresh token (`offline_access` where the
    /// authorization server lists it, the `refresh_token` grant when
    /// registering). On by default: without one, every expiry sends the
    /// user back to the authorization server.
    pub fn offline_access(mut self, wanted: bool) -> Self {
        self.offline_access = wanted;
        self
    }

    /// Use the client credentials grant (RFC 6749 §4.4) instead of the
    /// user's authorization: for a machine client with its own
    /// [`preregistered`](Self::preregistered) credentials; no user agent.
    pub fn client_credentials_grant(mut self) -> Self {
        self.client_credentials = true;
        self
    }

    /// Workload identity federation (SEP-1933): get tokens with the JWT
    /// bearer grant (RFC 7523 §2.1), presenting the platform's token for
    /// this workload (read from `source` each time: a file the platform
    /// rotates, or an environment variable) instead of a secret. Needs
    /// [`preregistered`](Self::preregistered) credentials (the client ID
    /// the authorization server trusts the platform's tokens for); no user
    /// agent. A refused token is reported, not retried.
    pub fn workload_identity(mut self, source: TokenSource) -> Self {
        self.workload_identity = Some(source);
        self
    }

    /// Enterprise-managed authorization (SEP-990): exchange the user's ID
    /// token at the company's identity provider for an ID-JAG (RFC 8693)
    /// naming the MCP server's authorization server and the server, and
    /// present it there with the JWT bearer grant. Needs
    /// [`preregistered`](Self::preregistered) credentials at the
    /// authorization server; no user agent (the user signed in to the
    /// identity provider already).
    pub fn enterprise_managed(mut self, idp: EnterpriseIdp) -> Self {
        self.enterprise = Some(idp);
        self
    }

    /// DPoP (RFC 9449): ask for tokens bound to a key of this client's
    /// (a P-256 key made for it, kept in memory for its lifetime), and
    /// present them with a fresh proof on every request, answering a
    /// server's `use_dpop_nonce` with its nonce (once per new nonce). A
    /// server that issues Bearer tokens anyway gets them used as Bearer.
    pub fn dpop(mut self, enabled: bool) -> Self {
        self.dpop = enabled;
        self
    }

    /// Let servers send this client to private, loopback and link-local
    /// addresses (off by default). The MCP server's own origin, and the
    /// endpoints the application configures, are always reachable; every
    /// other URL a server names (its authorization server, their
    /// endpoints) must resolve to public addresses unless this is on: a
    /// hostile server could otherwise reach this machine or its network
    /// through the client (SSRF). Turn it on for an authorization server
    /// on the local network, and in tests on loopback. Behind an HTTP proxy
    /// from the environment (`HTTPS_PROXY` and the like), the proxy resolves
    /// the names: a proxy named by a host on a private address is refused
    /// like any other target (turn this on, or give a client of your own
    /// with [`http_client`](Self::http_client)), and what it reaches is the
    /// proxy's to police.
    pub fn allow_private_addresses(mut self, allowed: bool) -> Self {
        self.allow_private = allowed;
        self
    }

    /// The HTTP client for the authorization server (proxies, TLS roots),
    /// used as it is: its resolver and redirect policy replace the
    /// built-in ones, which refuse non-public addresses and redirects to
    /// another host (a literal private address is still refused unless
    /// [`allow_private_addresses`](Self::allow_private_addresses)).
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// The OAuth client; fails when something it will need is missing.
    pub fn build(self) -> Result<OAuth, Error> {
        let server = Url::parse(&self.server)
            .map_err(|e| Error::transport(format!("authorization: `{}` is not a URL: {e}", self.server)))?;
        let flows = [self.client_credentials, self.workload_identity.is_some(), self.enterprise.is_some()];
        if flows.iter().filter(|&&f| f).count() > 1 {
            return Err(Error::transport(
                "authorization: choose one of the client credentials grant, workload identity and enterprise-managed \
                 authorization",
            ));
        }
        let flow = if self.client_credentials {
            if !self.preregistered.as_ref().is_some_and(ClientCredentials::confidential_client) {
                return Err(Error::transport(
                    "authorization: the client credentials grant needs credentials with a secret or a private key \
                     (OAuthBuilder::preregistered)",
                ));
            }
            Flow::ClientCredentials
        } else if let Some(source) = self.workload_identity {
            if self.preregistered.is_none() {
                return Err(Error::transport(
                    "authorization: workload identity needs the client's ID (OAuthBuilder::preregistered)",
                ));
            }
            Flow::WorkloadIdentity(source)
        } else if let Some(idp) = self.enterprise {
            idp.check()?;
            if self.preregistered.is_none() {
                return Err(Error::transport(
                    "authorization: enterprise-managed authorization needs the client's credentials at the \
                     authorization server (OAuthBuilder::preregistered)",
                ));
            }
            Flow::Enterprise(idp)
        } else {
            let Some(redirect) = &self.redirect_uri else {
                return Err(Error::transport("authorization: a redirect URI is needed (OAuthBuilder::redirect_uri)"));
            };
            Url::parse(redirect)
                .map_err(|e| Error::transport(format!("authorization: the redirect URI `{redirect}`: {e}")))?;
            if self.user_agent.is_none() {
                return Err(Error::transport("authorization: a user agent is needed (OAuthBuilder::user_agent)"));
            }
            Flow::UserAuthorization
        };
        if let Some(url) = &self.metadata_document
            && !Url::parse(url).is_ok_and(|u| u.scheme() == "https" && u.path() != "/")
        {
            return Err(Error::transport(format!(
                "authorization: a client metadata document URL must be https with a path, not `{url}`"
            )));
        }
        let http = match self.http {
            Some(http) => Fetcher::custom(&server, http, self.allow_private),
            None => Fetcher::new(&server, self.allow_private)?,
        };
        let dpop = if self.dpop { Some(Dpop::generate()?) } else { None };
        let client_credentials_grant = matches!(flow, Flow::ClientCredentials);
        Ok(OAuth {
            key: self.server.clone(),
            server,
            http,
            info: ClientInfo {
                name: self.name,
                redirect_uri: self.redirect_uri.clone(),
                application_type: self.application_type,
                refresh: self.offline_access,
                client_credentials_grant,
            },
            redirect_uri: self.redirect_uri,
            user_agent: self.user_agent,
            preregistered: self.preregistered,
            metadata_document: self.metadata_document,
            store: self.store.unwrap_or_else(|| Arc::new(MemoryTokenStore::new())),
            flow,
            dpop,
            fresh_nonce: AtomicBool::new(false),
            state: Mutex::new(State::default()),
            generation: AtomicU64::new(0),
        })
    }
}
