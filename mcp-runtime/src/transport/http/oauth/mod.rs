//! The endpoint as an OAuth 2.1 protected resource (the MCP spec's
//! authorization, 2025-06-18 onward): JWT access tokens verified against
//! the authorization server's keys and bound to this resource (RFC 8707),
//! the protected resource metadata (RFC 9728) that tells clients where to
//! get one, and the `WWW-Authenticate` challenges of RFC 6750.

mod dpop;
mod introspect;
mod keys;
pub(crate) mod proxy;
mod urls;

use std::collections::HashSet;
use std::time::Duration;

use axum::http::header::{RETRY_AFTER, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use jsonwebtoken::{Algorithm, Validation};
use mcp_core::{ErrorObject, JsonObject};
use serde_json::{Value, json};

use crate::dispatch::reply::Answer;
use crate::error::Error;
use crate::request::claims::{Claims, INSUFFICIENT_SCOPE};
pub use dpop::Dpop;
use dpop::Proofs;
pub use introspect::Introspection;
use introspect::Introspector;
use keys::{KeyCache, Missing, Settings};
use urls::{absolute, canonical};

/// Where RFC 9728 puts protected resource metadata.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Asymmetric algorithms only: an `HS256` token "signed" with the public
/// key (algorithm confusion) or an unsigned one must never pass.
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Protect the HTTP endpoint as an OAuth 2.1 resource server, the MCP
/// spec's authorization: every request needs `Authorization: Bearer` with
/// a JWT access token that the authorization server (`issuer`) signed,
/// that was issued for this server (`aud` names `resource`), and that has
/// not expired. Give it to [`HttpOptions::oauth`](crate::transport::HttpOptions::oauth).
///
/// - **Keys.** The token's signature is checked against the issuer's JSON
///   Web Key Set, found through its metadata (RFC 8414 or OpenID Connect
///   discovery, whose `issuer` must match) unless [`jwks_url`](Self::jwks_url)
///   names it. Keys are kept for an hour; a token naming a key not in the
///   set has it fetched again (so a rotated key works at once), at most
///   once per [`jwks_refetch_interval`](Self::jwks_refetch_interval).
///   Only asymmetric algorithms pass (RS, PS, ES, EdDSA); `none` and `HS*`
///   never do.
/// - **Refusals.** No token, or one that fails any check: 401 with
///   `WWW-Authenticate: Bearer resource_metadata="…"` (and
///   `error="invalid_token"` when one was sent). A valid token without a
///   scope that a tool, resource or prompt requires (`#[tool(scopes =
///   […])]`): 403 with `error="insufficient_scope"` and the scopes to ask
///   for; lists leave out what the token cannot use. Keys that cannot be
///   fetched: 503.
/// - **Metadata.** `GET /.well-known/oauth-protected-resource` (and the
///   same followed by the resource's path, e.g. `…/mcp`) answers without a
///   token, subject to the `Host` allow-list, with `resource`,
///   `authorization_servers`, `scopes_supported` and
///   `bearer_methods_supported`.
/// - **Sessions** belong to the token's subject: another subject's token
///   gets 404 for them.
///
/// The resource, the issuer and a JWKS URL must be `https` (`http` only on
/// a loopback host, for tests), without a fragment.
///
/// ```no_run
/// use mcp_runtime::{Server, transport::{HttpOptions, OAuth}};
///
/// # async fn run() -> Result<(), mcp_runtime::Error> {
/// let oauth = OAuth::new("https://mcp.example.com/mcp", "https://auth.example.com")
///     .scopes_supported(["notes:read", "notes:write"]);
/// let options = HttpOptions::new().allowed_hosts(["mcp.example.com"]).oauth(oauth);
/// Server::new("notes", "1.0.0").serve_http_with("0.0.0.0:8080", options).await
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct OAuth {
    resource: String,
    issuer: String,
    jwks_url: Option<String>,
    audiences: Vec<String>,
    scopes_supported: Vec<String>,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    leeway: Duration,
    refetch_interval: Duration,
    max_key_age: Duration,
    /// Keys known in advance (the OAuth proxy's own): never fetched.
    fixed_keys: Vec<jsonwebtoken::jwk::Jwk>,
    /// Opaque tokens, asked about instead of verified.
    introspection: Option<Introspection>,
    /// DPoP-bound tokens, their proofs checked.
    dpop: Option<Dpop>,
}

impl OAuth {
    /// Accept tokens that `issuer` (the authorization server's issuer
    /// identifier, e.g. `https://auth.example.com`) issued for `resource`
    /// (this server's canonical URI as clients reach it, e.g.
    /// `https://mcp.example.com/mcp`: what they send as RFC 8707's
    /// `resource` and the token's `aud` must contain).
    pub fn new(resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        OAuth {
            resource: resource.into(),
            issuer: issuer.into(),
            jwks_url: None,
            audiences: Vec::new(),
            scopes_supported: Vec::new(),
            resource_name: None,
            resource_documentation: None,
            leeway: Duration::from_secs(30),
            refetch_interval: Duration::from_secs(10),
            max_key_age: Duration::from_secs(60 * 60),
            fixed_keys: Vec::new(),
            introspection: None,
            dpop: None,
        }
    }

    /// Verify with this key, known in advance, and fetch none.
    pub(crate) fn fixed_key(mut self, key: jsonwebtoken::jwk::Jwk) -> Self {
        self.fixed_keys.push(key);
        self
    }

    /// Fetch the signing keys from this JWK Set URL instead of the
    /// `jwks_uri` of the issuer's metadata.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks_url = Some(url.into());
        self
    }

    /// The scopes clients may ask for, published in the metadata's
    /// `scopes_supported` and in the 401 challenge's `scope` (what a
    /// client asks for first, per the spec's scope selection strategy).
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Also accept tokens whose `aud` names `audience` (an authorization
    /// server that cannot put the resource URI in `aud` issues an API
    /// identifier instead). The resource URI is always accepted.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// A name for people, published as the metadata's `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page for developers, published as `resource_documentation`.
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// How far `exp` and `nbf` may be off, for clocks that disagree
    /// (default 30 seconds).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the key set (default 10
    /// seconds): a token naming an unknown key is refused without asking
    /// the issuer again within it, so bogus tokens cannot make the server
    /// hammer the issuer.
    pub fn jwks_refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch_interval = interval;
        self
    }

    /// How long a fetched key set is trusted before it is fetched again
    /// (default an hour), so a key the issuer withdrew stops working.
    pub fn jwks_max_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
        self
    }
}

/// Why a request was not let through.
pub(crate) enum Refused {
    /// 401: no usable token; `error` says what was wrong with one that was
    /// sent.
    Unauthorized(Option<&'static str>),
    /// 401: a DPoP proof that will not do; its error code and why.
    Proof(&'static str, &'static str),
    /// 503: too many live DPoP proofs remembered to take another.
    Busy,
    /// 503: the keys to check tokens with cannot be had.
    Unavailable,
}

/// The checks of one endpoint, built from its [`OAuth`] settings.
pub(crate) struct Verifier {
    issuer: String,
    /// Every accepted `aud`, exactly and in canonical form.
    audiences: HashSet<String>,
    keys: KeyCache,
    introspector: Option<Introspector>,
    dpop: Option<Proofs>,
    leeway: u64,
    scopes_supported: Vec<String>,
    /// Where our metadata is, for challenges.
    metadata_url: String,
    /// The paths the metadata is served at.
    pub(crate) metadata_paths: Vec<String>,
    metadata: Vec<u8>,
}

impl Verifier {
    /// Check the settings and build the verifier of an endpoint served at
    /// `endpoint_path`.
    pub(crate) fn new(oauth: OAuth, endpoint_path: &str) -> Result<Verifier, Error> {
        let invalid = Error::InvalidOAuth;
        let resource = absolute("resource", &oauth.resource).map_err(invalid)?;
        absolute("issuer", &oauth.issuer).map_err(invalid)?;
        let jwks_url = oauth.jwks_url.as_deref().map(|url| absolute("JWKS URL", url)).transpose().map_err(invalid)?;
        if let Some(bad) = oauth.scopes_supported.iter().find_map(|s| crate::request::claims::scope_problem(s)) {
            return Err(Error::InvalidOAuth(format!("in `scopes_supported`: {bad}")));
        }
        let resource_path = resource.path().trim_end_matches('/').to_owned();
        let mut metadata_url = resource.clone();
        metadata_url.set_path(&format!("{WELL_KNOWN}{resource_path}"));
        metadata_url.set_query(None);
        let mut metadata_paths = Vec::new();
        for path in
            [WELL_KNOWN.to_owned(), format!("{WELL_KNOWN}{resource_path}"), format!("{WELL_KNOWN}{endpoint_path}")]
        {
            if !metadata_paths.contains(&path) && path != endpoint_path {
                metadata_paths.push(path);
            }
        }
        let mut document = JsonObject::new();
        document.insert("resource".into(), oauth.resource.clone().into());
        document.insert("authorization_servers".into(), json!([oauth.issuer]));
        if !oauth.scopes_supported.is_empty() {
            document.insert("scopes_supported".into(), json!(oauth.scopes_supported));
        }
        document.insert("bearer_methods_supported".into(), json!(["header"]));
        if let Some(dpop) = &oauth.dpop {
            document
                .insert("dpop_signing_alg_values_supported".into(), json!(dpop::ALGS.split(' ').collect::<Vec<_>>()));
            document.insert("dpop_bound_access_tokens_required".into(), Value::Bool(!dpop.bearer));
        }
        if let Some(name) = &oauth.resource_name {
            document.insert("resource_name".into(), name.clone().into());
        }
        if let Some(url) = &oauth.resource_documentation {
            document.insert("resource_documentation".into(), url.clone().into());
        }
        let audiences = std::iter::once(&oauth.resource)
            .chain(&oauth.audiences)
            .flat_map(|aud| [Some(aud.clone()), canonical(aud)])
            .flatten()
            .collect();
        // jsonwebtoken picks no backend by itself when another crate of the
        // program enables its second one; a backend installed first stays.
        let _ =
            jsonwebtoken::crypto::CryptoProvider::install_default(&jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER);
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()
            .map_err(|e| Error::InvalidOAuth(format!("cannot make an HTTP client: {e}")))?;
        let settings = Settings {
            issuer: oauth.issuer.clone(),
            jwks_url,
            refetch_interval: oauth.refetch_interval,
            max_age: oauth.max_key_age,
            fixed: oauth.fixed_keys,
        };
        Ok(Verifier {
            issuer: oauth.issuer,
            audiences,
            keys: KeyCache::new(settings, client),
            introspector: oauth.introspection.map(Introspector::new).transpose()?,
            dpop: oauth.dpop.map(|dpop| Proofs::new(dpop, &oauth.resource)).transpose()?,
            leeway: oauth.leeway.as_secs(),
            scopes_supported: oauth.scopes_supported,
            metadata_url: metadata_url.to_string(),
            metadata_paths,
            metadata: serde_json::to_vec(&document).expect("metadata is JSON"),
        })
    }

    /// The claims of a valid access token, or why it is not one.
    pub(crate) async fn verify(&self, token: &str) -> Result<Claims, Refused> {
        let invalid = |why: &'static str| Refused::Unauthorized(Some(why));
        if let Some(introspector) = &self.introspector {
            // RFC 7662 makes `iss` and `aud` optional: checked when given.
            return introspector.verify(token, self.leeway, |claims| self.check_claims(claims, false)).await;
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| invalid("the token is not a signed JWT"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(invalid("the token is not signed with an asymmetric algorithm"));
        }
        let keys = match self.keys.keys_for(header.kid.as_deref(), header.alg).await {
            Ok(keys) => keys,
            Err(Missing::Unknown) => return Err(invalid("the token is not signed by a key of the issuer")),
            Err(Missing::Unavailable) => return Err(Refused::Unavailable),
        };
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        // Checked below: exactly, and the audience in canonical form too.
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp"]);
        let mut last = None;
        for key in keys {
            match jsonwebtoken::decode::<JsonObject>(token, &key.decoding, &validation) {
                Ok(data) => return self.check_claims(&data.claims, true).map(|()| Claims::new(data.claims)),
                Err(error) => last = Some(error),
            }
        }
        use jsonwebtoken::errors::ErrorKind;
        Err(match last.map(|e| e.into_kind()) {
            Some(ErrorKind::ExpiredSignature) => invalid("the token has expired"),
            Some(ErrorKind::ImmatureSignature) => invalid("the token is not valid yet"),
            Some(ErrorKind::InvalidSignature) => invalid("the token's signature does not verify"),
            _ => invalid("the token is invalid"),
        })
    }

    /// The issuer and audience, which a signature alone does not vouch
    /// for: a token the same issuer made for another server must not work
    /// here (RFC 8707; the spec forbids accepting it).
    /// `required`: whether they must be there (a JWT) or only right when
    /// there (an introspection answer).
    fn check_claims(&self, claims: &JsonObject, required: bool) -> Result<(), Refused> {
        let issuer = claims.get("iss");
        if (required || issuer.is_some()) && issuer.and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err(Refused::Unauthorized(Some("the token was issued by another authorization server")));
        }
        let ours = |aud: &Value| {
            aud.as_str().is_some_and(|aud| {
                self.audiences.contains(aud) || canonical(aud).is_some_and(|c| self.audiences.contains(&c))
            })
        };
        let for_us = match claims.get("aud") {
            Some(Value::Array(auds)) => auds.iter().any(ours),
            Some(aud) => ours(aud),
            None => !required,
        };
        if !for_us {
            return Err(Refused::Unauthorized(Some("the token was not issued for this resource")));
        }
        Ok(())
    }

    /// The answer to a refused request.
    pub(crate) fn refusal(&self, refused: Refused) -> Response {
        let error = match refused {
            Refused::Unauthorized(error) => error.map(|why| ("invalid_token", why)),
            Refused::Proof(code, why) => Some((code, why)),
            Refused::Busy => {
                let error = ErrorObject::new(-32000, "too many DPoP proofs in flight; retry later");
                let mut response = super::responses::error_response(StatusCode::SERVICE_UNAVAILABLE, error);
                response.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("5"));
                return response;
            }
            Refused::Unavailable => {
                let error = ErrorObject::new(
                    -32000,
                    "the authorization server's keys cannot be fetched, so no token can be checked; retry later",
                );
                let mut response = super::responses::error_response(StatusCode::SERVICE_UNAVAILABLE, error);
                response.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("10"));
                return response;
            }
        };
        let mut shared = Vec::new();
        if !self.scopes_supported.is_empty() {
            shared.push(format!(r#"scope="{}""#, self.scopes_supported.join(" ")));
        }
        shared.push(format!(r#"resource_metadata="{}""#, self.metadata_url));
        let with_error = |scheme: &str, extra: &[String]| {
            let mut params: Vec<String> = extra.to_vec();
            if let Some((code, why)) = error {
                params.insert(0, format!(r#"error="{code}", error_description="{why}""#));
            }
            params.extend(shared.iter().cloned());
            format!("{scheme} {}", params.join(", "))
        };
        let mut challenges = Vec::new();
        match &self.dpop {
            Some(proofs) => {
                challenges.push(with_error("DPoP", &[format!(r#"algs="{}""#, dpop::ALGS)]));
                if proofs.allows_bearer() {
                    challenges.push(format!("Bearer {}", shared.join(", ")));
                }
            }
            None => challenges.push(with_error("Bearer", &[])),
        }
        let message = if error.is_some() { "Unauthorized: invalid access token" } else { "Unauthorized" };
        let answer = Answer::error(None, ErrorObject::new(-32000, message));
        let mut response = challenged(StatusCode::UNAUTHORIZED, &answer, &challenges[0]);
        for challenge in &challenges[1..] {
            if let Ok(value) = HeaderValue::from_str(challenge) {
                response.headers_mut().append(WWW_AUTHENTICATE, value);
            }
        }
        if let Some(nonce) = self.dpop.as_ref().and_then(Proofs::nonce)
            && let Ok(value) = HeaderValue::from_str(&nonce)
        {
            response.headers_mut().insert("dpop-nonce", value);
        }
        response
    }
    /// The 403 for an answer that refuses a request for a scope its token
    /// lacks (the error's `data.scope` is what to ask for next); `None`
    /// for any other answer.
    pub(crate) fn forbidden(&self, answer: &Answer) -> Option<Response> {
        let error = answer.error_object().filter(|e| e.code == INSUFFICIENT_SCOPE)?;
        let scope = error.data.as_ref().and_then(|d| d.get("scope")).and_then(Value::as_str).unwrap_or_default();
        let scheme = if self.dpop.as_ref().is_some_and(|d| !d.allows_bearer()) { "DPoP" } else { "Bearer" };
        let challenge = format!(
            r#"{scheme} error="insufficient_scope", scope="{scope}", resource_metadata="{}", error_description="the access token lacks a scope this request needs""#,
            self.metadata_url
        );
        Some(challenged(StatusCode::FORBIDDEN, answer, &challenge))
    }

    /// The protected resource metadata document (RFC 9728 §3.2).
    pub(crate) fn metadata(&self) -> Response {
        let mut response = Response::new(axum::body::Body::from(self.metadata.clone()));
        response.headers_mut().insert(axum::http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

fn challenged(status: StatusCode, answer: &Answer, challenge: &str) -> Response {
    let mut response = super::responses::json_response(status, answer);
    // Every part is a fixed text, a checked scope or a parsed URL: no
    // quote or control character can be in it.
    if let Ok(value) = HeaderValue::from_str(challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

#[cfg(test)]
mod tests;
