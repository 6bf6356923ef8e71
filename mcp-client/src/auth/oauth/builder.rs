//! Building an [`OAuth`]: who the client is, how the user is reached,
//! which credentials it has and where tokens are kept, checked once at
//! [`OAuthBuilder::build`].

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use reqwest::Url;
use tokio::sync::Mutex;

use super::{OAuth, State};
use crate::Error;
use crate::auth::registration::{ClientCredentials, ClientInfo};
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

    /// The HTTP client for the authorization server (proxies, TLS roots).
    /// Redirects should stay limited: metadata and tokens come from where
    /// they were asked.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// The OAuth client; fails when something it will need is missing.
    pub fn build(self) -> Result<OAuth, Error> {
        let server = Url::parse(&self.server)
            .map_err(|e| Error::transport(format!("authorization: `{}` is not a URL: {e}", self.server)))?;
        if !self.client_credentials {
            let Some(redirect) = &self.redirect_uri else {
                return Err(Error::transport("authorization: a redirect URI is needed (OAuthBuilder::redirect_uri)"));
            };
            Url::parse(redirect)
                .map_err(|e| Error::transport(format!("authorization: the redirect URI `{redirect}`: {e}")))?;
            if self.user_agent.is_none() {
                return Err(Error::transport("authorization: a user agent is needed (OAuthBuilder::user_agent)"));
            }
        } else if self.preregistered.as_ref().is_none_or(|c| c.client_secret.is_none()) {
            return Err(Error::transport(
                "authorization: the client credentials grant needs credentials with a secret \
                 (OAuthBuilder::preregistered)",
            ));
        }
        if let Some(url) = &self.metadata_document
            && !Url::parse(url).is_ok_and(|u| u.scheme() == "https" && u.path() != "/")
        {
            return Err(Error::transport(format!(
                "authorization: a client metadata document URL must be https with a path, not `{url}`"
            )));
        }
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::limited(5))
                .timeout(Duration::from_secs(30))
                .build()
                .map_err(|e| Error::transport(format!("authorization: HTTP setup: {e}")))?,
        };
        Ok(OAuth {
            key: self.server.clone(),
            server,
            http,
            info: ClientInfo {
                name: self.name,
                redirect_uri: self.redirect_uri.clone(),
                application_type: self.application_type,
                refresh: self.offline_access,
                client_credentials_grant: self.client_credentials,
            },
            redirect_uri: self.redirect_uri,
            user_agent: self.user_agent,
            preregistered: self.preregistered,
            metadata_document: self.metadata_document,
            store: self.store.unwrap_or_else(|| Arc::new(MemoryTokenStore::new())),
            client_credentials: self.client_credentials,
            state: Mutex::new(State::default()),
            generation: AtomicU64::new(0),
        })
    }
}
