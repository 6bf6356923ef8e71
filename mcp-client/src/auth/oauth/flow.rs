//! How a new authorization is made: the user's authorization (code and
//! PKCE), the client credentials grant, a workload's platform token
//! (SEP-1933) or an enterprise ID-JAG (SEP-990) in the JWT bearer grant;
//! and the client's identity at the authorization server for it.

use reqwest::Url;

use super::{OAuth, State};
use crate::Error;
use crate::auth::discovery::Discovery;
use crate::auth::dpop::Dpop;
use crate::auth::enterprise::{self, EnterpriseIdp};
use crate::auth::fetch::{failed, invalid};
use crate::auth::pkce::{self, Pkce};
use crate::auth::registration::{self, ClientCredentials};
use crate::auth::scope;
use crate::auth::source::TokenSource;
use crate::auth::store::StoredTokens;
use crate::auth::token::{self, Grant};
use crate::auth::user_agent::Callback;

/// Which grant gets the client a token.
pub(crate) enum Flow {
    /// The user's authorization in a browser (RFC 6749 §4.1 with PKCE).
    UserAuthorization,
    /// The client's own credentials (RFC 6749 §4.4, SEP-1046).
    ClientCredentials,
    /// A platform token presented as a JWT bearer grant (SEP-1933).
    WorkloadIdentity(TokenSource),
    /// An ID-JAG from the company's identity provider (SEP-990).
    Enterprise(EnterpriseIdp),
}

impl Flow {
    fn needs_user(&self) -> bool {
        matches!(self, Flow::UserAuthorization)
    }
}

impl OAuth {
    /// A new authorization for `scopes` at the discovered server.
    pub(super) async fn authorize(
        &self,
        state: &mut State,
        discovery: &Discovery,
        scopes: Vec<String>,
    ) -> Result<(), Error> {
        let server = &discovery.server;
        let scopes = scope::with_offline_access(scopes, server.scopes_supported.as_deref(), self.offline_access());
        let client = self.client_at(state, discovery).await?;
        let resource = discovery.resource.as_deref();
        let scope = scope::join(&scopes);
        let scope = scope.as_deref();
        // DPoP where the server takes ES256 proofs, or names no algorithms
        // (a server that ignores the header issues a Bearer token).
        let dpop = self.dpop.as_ref().filter(|_| {
            server.dpop_signing_alg_values_supported.as_ref().is_none_or(|algs| algs.iter().any(|a| a == "ES256"))
        });
        let http = &self.http;
        let issued = match &self.flow {
            Flow::UserAuthorization => {
                let redirect_uri = self.redirect_uri.as_deref().unwrap_or_default();
                let (code, verifier) = self.user_authorization(discovery, &client, &scopes).await?;
                let grant = Grant::Code { code: &code, verifier: &verifier, redirect_uri };
                token::request(http, dpop, server, &client, grant, resource).await?
            }
            Flow::ClientCredentials => {
                let grant = Grant::ClientCredentials { scope };
                token::request(http, dpop, server, &client, grant, resource).await?
            }
            Flow::WorkloadIdentity(source) => {
                let assertion = source.read("the workload's platform token").await?;
                let grant = Grant::JwtBearer { assertion: &assertion, scope };
                token::request(http, dpop, server, &client, grant, resource).await?
            }
            Flow::Enterprise(idp) => {
                // The identity provider is the application's own choice,
                // not a server's: fetched as configured.
                let jag = enterprise::id_jag(http.trusted(), idp, &server.issuer, resource, scope).await?;
                let grant = Grant::JwtBearer { assertion: &jag, scope };
                token::request(http, dpop, server, &client, grant, resource).await?
            }
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
            dpop_jkt: dpop.filter(|_| issued.dpop).map(Dpop::thumbprint),
        };
        self.keep(state, tokens).await?;
        state.refreshed_for_challenge = false;
        Ok(())
    }

    fn offline_access(&self) -> bool {
        self.info.refresh && self.flow.needs_user()
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
        if matches!(self.flow, Flow::WorkloadIdentity(_) | Flow::Enterprise(_)) {
            return Err(failed(format!(
                "no pre-registered credentials for `{issuer}`: a workload or enterprise client does not register \
                 itself"
            )));
        }
        let client = match &self.metadata_document {
            Some(url) if server.client_id_metadata_document_supported && self.flow.needs_user() => {
                ClientCredentials::public(url.clone()).for_issuer(issuer.clone())
            }
            _ => registration::register(&self.http, server, &self.info).await?,
        };
        state.clients.insert(issuer.clone(), client.clone());
        Ok(client)
    }
}
