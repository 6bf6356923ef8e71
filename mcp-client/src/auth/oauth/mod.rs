//! The OAuth client as the HTTP transport's [`Authorization`]: a token
//! from the store sent with each request; on a 401 the authorization
//! server discovered again, the token refreshed or a new authorization
//! made; on a 403 `insufficient_scope` a step-up to the union of the
//! scopes held and the scopes asked for.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use reqwest::Url;
use tokio::sync::Mutex;

use super::challenge::Challenge;
use super::discovery::{self, Discovery};
use super::fetch::{failed, invalid};
use super::pkce::{self, Pkce};
use super::registration::{self, ClientCredentials, ClientInfo};
use super::scope;
use super::store::{StoredTokens, TokenStore};
use super::token::{self, Grant};
use super::user_agent::{Callback, UserAgent};
use crate::{Authorization, Error};

mod builder;

pub use builder::OAuthBuilder;

/// How long a failed authorization is the answer to further challenges:
/// requests refused together (or the cancellation of the one that failed)
/// do not each send the user back to the authorization server.
const FAILURE_COOLDOWN: Duration = Duration::from_secs(5);

/// Refresh this long before the token's announced expiry, so a request
/// does not carry a token that expires on the way.
const EXPIRY_MARGIN: u64 = 30;

/// An MCP server's OAuth 2.1 client, per the MCP authorization spec. Give
/// it to [`ClientBuilder::authorization`](crate::ClientBuilder::authorization)
/// (as an `Arc`); it gets and renews tokens as the server asks for them.
///
/// ```no_run
/// # async fn run(browser: impl mcp_runtime_client::auth::UserAgent) -> Result<(), mcp_runtime_client::Error> {
/// use std::sync::Arc;
/// use mcp_runtime_client::Client;
/// use mcp_runtime_client::auth::OAuth;
///
/// let url = "https://mcp.example.com/mcp";
/// let oauth = OAuth::builder(url)
///     .client_name("My app")
///     .redirect_uri("http://127.0.0.1:8765/callback")
///     .user_agent(browser)
///     .build()?;
/// let client = Client::builder().authorization(Arc::new(oauth)).http(url).await?;
/// # Ok(()) }
/// ```
pub struct OAuth {
    server: Url,
    key: String,
    http: reqwest::Client,
    info: ClientInfo,
    redirect_uri: Option<String>,
    user_agent: Option<Arc<dyn UserAgent>>,
    preregistered: Option<ClientCredentials>,
    metadata_document: Option<String>,
    store: Arc<dyn TokenStore>,
    client_credentials: bool,
    state: Mutex<State>,
    /// Bumped whenever new tokens are in place: a challenge that waited
    /// for another one's flow retries with its result instead of starting
    /// its own.
    generation: AtomicU64,
}

#[derive(Default)]
struct State {
    loaded: bool,
    tokens: Option<StoredTokens>,
    /// The client's identity at each authorization server met.
    clients: HashMap<String, ClientCredentials>,
    /// The current tokens came from a refresh made for a 401: a second
    /// 401 means the refresh does not help.
    refreshed_for_challenge: bool,
    /// The last authorization that failed, and when.
    failure: Option<(Instant, Error)>,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth").field("server", &self.server.as_str()).finish_non_exhaustive()
    }
}

impl Authorization for OAuth {
    fn header(&self) -> BoxFuture<'_, Result<Option<String>, Error>> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            self.load(&mut state).await?;
            let refresh = state
                .tokens
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some() && t.expiring(token::now(), EXPIRY_MARGIN));
            if refresh && let Err(error) = self.refresh(&mut state).await {
                // The server will refuse the old token; the challenge
                // that follows starts over.
                tracing::debug!(%error, "authorization: refreshing the expiring token failed");
            }
            Ok(state.tokens.as_ref().map(|t| format!("Bearer {}", t.access_token)))
        })
    }

    fn challenged<'a>(&'a self, status: u16, challenge: Option<&'a str>) -> BoxFuture<'a, Result<bool, Error>> {
        Box::pin(async move {
            let seen = self.generation.load(Ordering::Acquire);
            let mut state = self.state.lock().await;
            if self.generation.load(Ordering::Acquire) != seen {
                // New tokens arrived while this challenge waited.
                return Ok(true);
            }
            if let Some((at, error)) = &state.failure
                && at.elapsed() < FAILURE_COOLDOWN
            {
                return Err(error.clone());
            }
            self.load(&mut state).await?;
            let challenge = challenge.map(Challenge::parse).unwrap_or_default();
            let outcome = match status {
                401 => self.unauthorized(&mut state, &challenge).await,
                403 if challenge.error.as_deref() == Some("insufficient_scope") => {
                    self.step_up(&mut state, &challenge).await
                }
                _ => Ok(false),
            };
            state.failure = outcome.as_ref().err().map(|error| (Instant::now(), error.clone()));
            outcome
        })
    }
}

impl OAuth {
    async fn load(&self, state: &mut State) -> Result<(), Error> {
        if !state.loaded {
            state.tokens = self.store.load(&self.key).await?;
            state.loaded = true;
        }
        Ok(())
    }

    /// A 401: the token is missing, expired or no longer good here.
    async fn unauthorized(&self, state: &mut State, challenge: &Challenge) -> Result<bool, Error> {
        let discovery = discovery::discover(&self.http, &self.server, challenge).await?;
        let refreshable = state.tokens.as_ref().is_some_and(|t| {
            t.refresh_token.is_some() && t.issuer == discovery.server.issuer && t.resource == discovery.resource
        });
        if refreshable && !state.refreshed_for_challenge {
            match self.refresh(state).await {
                Ok(()) => {
                    state.refreshed_for_challenge = true;
                    return Ok(true);
                }
                Err(error) => tracing::debug!(%error, "authorization: refreshing failed; authorizing again"),
            }
        }
        let previous = state.tokens.as_ref().map(|t| t.requested_scopes.clone()).unwrap_or_default();
        let selected = scope::select(&challenge.scopes(), discovery.resource_scopes.as_deref());
        self.authorize(state, &discovery, scope::union(&previous, &selected)).await?;
        Ok(true)
    }

    /// A 403 `insufficient_scope`: authorize again for the scopes held
    /// plus the ones asked for, unless the token already has them all
    /// (asking again would get the same refusal, forever).
    async fn step_up(&self, state: &mut State, challenge: &Challenge) -> Result<bool, Error> {
        let wanted = challenge.scopes();
        let held = state.tokens.as_ref().map(|t| t.scopes().to_vec()).unwrap_or_default();
        if wanted.is_empty() || scope::covered(&wanted, &held) {
            tracing::debug!(
                scope = challenge.scope.as_deref().unwrap_or(""),
                "authorization: refused for scopes the token already has; not asking again"
            );
            return Ok(false);
        }
        let discovery = discovery::discover(&self.http, &self.server, challenge).await?;
        let previous = state.tokens.as_ref().map(|t| t.requested_scopes.clone()).unwrap_or_default();
        self.authorize(state, &discovery, scope::union(&previous, &wanted)).await?;
        Ok(true)
    }

    /// Get a new token from the store's refresh token.
    async fn refresh(&self, state: &mut State) -> Result<(), Error> {
        let Some(tokens) = state.tokens.clone() else { return Err(failed("no token to refresh")) };
        let Some(refresh_token) = tokens.refresh_token.as_deref() else { return Err(failed("no refresh token")) };
        let server = discovery::ServerMetadata {
            issuer: tokens.issuer.clone(),
            authorization_endpoint: None,
            token_endpoint: tokens.token_endpoint.clone(),
            registration_endpoint: None,
            scopes_supported: None,
            code_challenge_methods_supported: None,
            token_endpoint_auth_methods_supported: None,
            client_id_metadata_document_supported: false,
            authorization_response_iss_parameter_supported: false,
        };
        let grant = Grant::Refresh { refresh_token };
        let issued = match token::request(&self.http, &server, &tokens.client, grant, tokens.resource.as_deref()).await
        {
            Ok(issued) => issued,
            Err(error) => {
                // The refresh token is spent or revoked: forget it.
                state.tokens = None;
                self.store.clear(&self.key).await?;
                return Err(error);
            }
        };
        let renewed = StoredTokens {
            access_token: issued.access_token,
            refresh_token: issued.refresh_token.or(tokens.refresh_token.clone()),
            expires_at: issued.expires_at,
            granted_scopes: issued.scope.as_deref().map(scope::split).or(tokens.granted_scopes.clone()),
            ..tokens
        };
        self.keep(state, renewed).await?;
        state.refreshed_for_challenge = false;
        Ok(())
    }

    /// A new authorization for `scopes` at the discovered server.
    async fn authorize(&self, state: &mut State, discovery: &Discovery, scopes: Vec<String>) -> Result<(), Error> {
        let server = &discovery.server;
        let scopes = scope::with_offline_access(scopes, server.scopes_supported.as_deref(), self.offline_access());
        let client = self.client_at(state, discovery).await?;
        let resource = discovery.resource.as_deref();
        let issued = if self.client_credentials {
            let scope = scope::join(&scopes);
            let grant = Grant::ClientCredentials { scope: scope.as_deref() };
            token::request(&self.http, server, &client, grant, resource).await?
        } else {
            let redirect_uri = self.redirect_uri.as_deref().unwrap_or_default();
            let (code, verifier) = self.user_authorization(discovery, &client, &scopes).await?;
            let grant = Grant::Code { code: &code, verifier: &verifier, redirect_uri };
            token::request(&self.http, server, &client, grant, resource).await?
        };
        let tokens = StoredTokens {
            access_token: issued.access_token,
            refresh_token: issued.refresh_token,
            expires_at: issued.expires_at,
            requested_scopes: scopes,
            granted_scopes: issued.scope.as_deref().map(scope::split),
            issuer: server.issuer.clone(),
            token_endpoint: server.token_endpoint.clone(),
            resource: discovery.resource.clone(),
            client,
        };
        self.keep(state, tokens).await?;
        state.refreshed_for_challenge = false;
        Ok(())
    }

    fn offline_access(&self) -> bool {
        self.info.refresh && !self.client_credentials
    }

    /// Send the user to the authorization endpoint and check what comes
    /// back; the code and its PKCE verifier.
    async fn user_authorization(
        &self,
        discovery: &Discovery,
        client: &ClientCredentials,
        scopes: &[String],
    ) -> Result<(String, String), Error> {
        let server = &discovery.server;
        let advertised = server.code_challenge_methods_supported.as_deref().unwrap_or_default();
        if !discovery.defaults && !advertised.iter().any(|m| m == "S256") {
            return Err(invalid(format!(
                "`{}` does not advertise PKCE with S256 (code_challenge_methods_supported); the MCP spec forbids \
                 authorizing without it",
                server.issuer
            )));
        }
        let endpoint = server
            .authorization_endpoint
            .as_deref()
            .ok_or_else(|| invalid(format!("`{}` has no authorization_endpoint", server.issuer)))?;
        let mut url = Url::parse(endpoint)
            .map_err(|e| invalid(format!("the authorization endpoint `{endpoint}` is not a URL: {e}")))?;
        let pkce = Pkce::new()?;
        let state = pkce::random(16)?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", self.redirect_uri.as_deref().unwrap_or_default())
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state);
            if let Some(scope) = scope::join(scopes) {
                query.append_pair("scope", &scope);
            }
            if let Some(resource) = &discovery.resource {
                query.append_pair("resource", resource);
            }
        }
        let user_agent = self.user_agent.as_ref().ok_or_else(|| failed("no user agent to authorize with"))?;
        tracing::debug!(issuer = %server.issuer, scope = scope::join(scopes).unwrap_or_default(), "authorization: sending the user to the authorization server");
        let answer = user_agent.authorize(url.as_str()).await?;
        let code = Callback::parse(&answer).code(
            &state,
            &server.issuer,
            server.authorization_response_iss_parameter_supported,
        )?;
        Ok((code, pkce.verifier))
    }

    /// The client's identity at the discovered server: one it already has
    /// there, the pre-registered one, its metadata document URL, or a new
    /// registration.
    async fn client_at(&self, state: &mut State, discovery: &Discovery) -> Result<ClientCredentials, Error> {
        let server = &discovery.server;
        let issuer = &server.issuer;
        if let Some(client) = &self.preregistered
            && client.usable_at(issuer)
        {
            return Ok(client.clone());
        }
        if let Some(client) = state.clients.get(issuer) {
            return Ok(client.clone());
        }
        if let Some(tokens) = &state.tokens
            && tokens.issuer == *issuer
            && tokens.client.usable_at(issuer)
        {
            return Ok(tokens.client.clone());
        }
        let client = match &self.metadata_document {
            Some(url) if server.client_id_metadata_document_supported && !self.client_credentials => {
                ClientCredentials::public(url.clone()).for_issuer(issuer.clone())
            }
            _ => registration::register(&self.http, server, &self.info).await?,
        };
        state.clients.insert(issuer.clone(), client.clone());
        Ok(client)
    }

    async fn keep(&self, state: &mut State, tokens: StoredTokens) -> Result<(), Error> {
        self.store.save(&self.key, tokens.clone()).await?;
        state.tokens = Some(tokens);
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}
