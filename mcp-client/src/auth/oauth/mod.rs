//! The OAuth client as the HTTP transport's [`Authorization`]: a token
//! from the store sent with each request (with a DPoP proof for a
//! DPoP-bound one); on a 401 the authorization server discovered again,
//! the token refreshed or a new authorization made (a `use_dpop_nonce`
//! 401 only retried with the server's nonce); on a 403
//! `insufficient_scope` a step-up to the union of the scopes held and the
//! scopes asked for. How a new authorization is made is in `flow`.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use reqwest::Url;
use tokio::sync::Mutex;

use super::challenge::Challenge;
use super::discovery;
use super::dpop::{DPOP, Dpop};
use super::fetch::failed;
use super::guard::Fetcher;
use super::registration::{ClientCredentials, ClientInfo};
use super::scope;
use super::store::{StoredTokens, TokenStore};
use super::token::{self, Grant};
use super::user_agent::UserAgent;
use crate::{Authorization, Error};

mod builder;
mod flow;

pub use builder::OAuthBuilder;
use flow::Flow;

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
    http: Fetcher,
    info: ClientInfo,
    redirect_uri: Option<String>,
    user_agent: Option<Arc<dyn UserAgent>>,
    preregistered: Option<ClientCredentials>,
    metadata_document: Option<String>,
    store: Arc<dyn TokenStore>,
    flow: Flow,
    /// The client's DPoP key, when it uses DPoP: one for its lifetime.
    dpop: Option<Dpop>,
    /// A `DPoP-Nonce` the server had not given before arrived: a
    /// `use_dpop_nonce` refusal is worth retrying once more.
    fresh_nonce: AtomicBool,
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
            let token = self.current().await?;
            Ok(token.map(|(token, bound)| format!("{} {token}", if bound { "DPoP" } else { "Bearer" })))
        })
    }

    fn request_headers<'a>(
        &'a self,
        method: &'a str,
        url: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, Error>> {
        Box::pin(async move {
            let Some((token, bound)) = self.current().await? else { return Ok(Vec::new()) };
            match (&self.dpop, bound) {
                (Some(dpop), true) => {
                    let url = Url::parse(url).map_err(|e| failed(format!("the request URL: {e}")))?;
                    let proof = dpop.proof(method, &url, Some(&token))?;
                    Ok(vec![("Authorization".to_owned(), format!("DPoP {token}")), (DPOP.to_owned(), proof)])
                }
                _ => Ok(vec![("Authorization".to_owned(), format!("Bearer {token}"))]),
            }
        })
    }

    fn dpop_nonce(&self, url: &str, nonce: &str) {
        if let (Some(dpop), Ok(url)) = (&self.dpop, Url::parse(url))
            && dpop.set_nonce(&url, nonce)
        {
            self.fresh_nonce.store(true, Ordering::Release);
        }
    }

    fn challenged<'a>(&'a self, status: u16, challenge: Option<&'a str>) -> BoxFuture<'a, Result<bool, Error>> {
        Box::pin(async move {
            let challenge = challenge.map(Challenge::parse).unwrap_or_default();
            if challenge.error.as_deref() == Some("use_dpop_nonce") {
                // RFC 9449 §9: the same token, with the server's nonce in
                // the proof; only if the nonce is one not tried yet.
                return Ok(self.dpop.is_some() && self.fresh_nonce.swap(false, Ordering::AcqRel));
            }
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
    /// The access token to present now (refreshed first if it is about
    /// to expire), and whether it is DPoP-bound.
    async fn current(&self) -> Result<Option<(String, bool)>, Error> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        let refresh =
            state.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some() && t.expiring(token::now(), EXPIRY_MARGIN));
        if refresh && let Err(error) = self.refresh(&mut state).await {
            // The server will refuse the old token; the challenge that
            // follows starts over.
            tracing::debug!(%error, "authorization: refreshing the expiring token failed");
        }
        Ok(state.tokens.as_ref().map(|t| (t.access_token.clone(), t.dpop_jkt.is_some())))
    }

    async fn load(&self, state: &mut State) -> Result<(), Error> {
        if !state.loaded {
            let tokens = self.store.load(&self.key).await?;
            // A DPoP-bound token is only good with the key it is bound
            // to; another client's (or another run's) is not used.
            let mine = self.dpop.as_ref().map(Dpop::thumbprint);
            state.tokens = tokens.filter(|t| t.dpop_jkt.is_none() || t.dpop_jkt == mine);
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
            dpop_signing_alg_values_supported: None,
        };
        let grant = Grant::Refresh { refresh_token };
        let dpop = self.dpop.as_ref().filter(|_| tokens.dpop_jkt.is_some());
        let resource = tokens.resource.as_deref();
        let issued = match token::request(&self.http, dpop, &server, &tokens.client, grant, resource).await {
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
            dpop_jkt: self.dpop.as_ref().filter(|_| issued.dpop).map(Dpop::thumbprint),
            ..tokens
        };
        self.keep(state, renewed).await?;
        state.refreshed_for_challenge = false;
        Ok(())
    }

    async fn keep(&self, state: &mut State, tokens: StoredTokens) -> Result<(), Error> {
        self.store.save(&self.key, tokens.clone()).await?;
        state.tokens = Some(tokens);
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}
