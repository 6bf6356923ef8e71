//! Enterprise-managed authorization (SEP-990) at `/token`: an identity
//! assertion authorization grant (ID-JAG) from a trusted company identity
//! provider, presented with the JWT bearer grant (RFC 7523 §2.1), checked
//! and exchanged for the proxy's own access token.

use std::time::Duration;

use axum::http::StatusCode;
use axum::response::Response;
use jsonwebtoken::Validation;
use mcp_core::JsonObject;
use serde_json::Value;

use super::super::keys::{KeyCache, Missing, Settings};
use super::super::{ALGORITHMS, absolute};
use super::authorize::same_resource;
use super::records::{self, Client, Grant};
use super::router::{Proxy, oauth_error, unavailable};
use super::{OAuthProxy, crypto};
use crate::error::Error;

/// The grant type ID-JAGs are presented with.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// The ID-JAG's JWT type.
const TYP: &str = "oauth-id-jag+jwt";

/// A company identity provider whose ID-JAGs the proxy accepts
/// (enterprise-managed authorization, SEP-990): give it to
/// [`OAuthProxy::trust_idp`].
///
/// A client of the proxy (a confidential one, authenticating at `/token`)
/// presents `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` with
/// `assertion` an ID-JAG the provider issued it. The proxy checks that it
/// is a `oauth-id-jag+jwt` signed by one of the provider's keys (from
/// its JWKS, found through its metadata unless [`jwks_url`](Self::jwks_url)
/// names it; asymmetric algorithms only), that `iss` is the provider,
/// `aud` the proxy's issuer, `resource` this server, `client_id` the
/// client presenting it, and that it has a `sub` and has not expired; an
/// assertion is good once. It then issues its own access token for the
/// `sub` (no refresh token: a new ID-JAG is the way to go on, so the
/// provider's policy is asked again), with the ID-JAG's `scope` (those
/// of [`OAuthProxy::scopes_supported`] it names; all of them if it names
/// none; a `scope` asked for narrows them) and its `email` and `name`
/// among the claims tools see. Any failed check: `400 invalid_grant`.
#[derive(Clone, Debug)]
pub struct TrustedIdp {
    issuer: String,
    jwks_url: Option<String>,
}

impl TrustedIdp {
    /// Accept ID-JAGs issued by `issuer` (the provider's issuer
    /// identifier).
    pub fn new(issuer: impl Into<String>) -> Self {
        TrustedIdp { issuer: issuer.into(), jwks_url: None }
    }

    /// Fetch its keys from this JWK Set URL instead of its metadata's
    /// `jwks_uri`.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks_url = Some(url.into());
        self
    }
}

impl OAuthProxy {
    /// Accept ID-JAGs from this identity provider at `/token` (see
    /// [`TrustedIdp`]); call again to trust more than one.
    pub fn trust_idp(mut self, idp: TrustedIdp) -> Self {
        self.idps.push(idp);
        self
    }
}

/// The trusted providers' keys, one cache each.
pub(crate) struct Idps(Vec<(String, KeyCache)>);

impl Idps {
    pub(crate) fn new(idps: &[TrustedIdp]) -> Result<Idps, Error> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::InvalidOAuth(format!("cannot make an HTTP client: {e}")))?;
        let mut caches = Vec::new();
        for idp in idps {
            absolute("trusted identity provider", &idp.issuer).map_err(Error::InvalidOAuth)?;
            let jwks_url = idp.jwks_url.as_deref().map(|url| absolute("JWKS URL", url)).transpose();
            let settings = Settings {
                issuer: idp.issuer.clone(),
                jwks_url: jwks_url.map_err(Error::InvalidOAuth)?,
                refetch_interval: Duration::from_secs(10),
                max_age: Duration::from_secs(60 * 60),
                fixed: Vec::new(),
            };
            caches.push((idp.issuer.clone(), KeyCache::new(settings, client.clone())));
        }
        Ok(Idps(caches))
    }

    pub(crate) fn any(&self) -> bool {
        !self.0.is_empty()
    }
}

fn invalid_grant(why: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why)
}

/// `grant_type=…jwt-bearer` at `/token`, by `client` with `assertion` and
/// maybe `scope`.
pub(crate) async fn exchange(proxy: &Proxy, client: &Client, assertion: &str, scope: Option<&str>) -> Response {
    if !proxy.idps.any() {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "no identity provider is trusted");
    }
    if client.secret_hash.is_none() {
        return oauth_error(StatusCode::BAD_REQUEST, "unauthorized_client", "only confidential clients may");
    }
    let claims = match verify(proxy, assertion).await {
        Ok(claims) => claims,
        Err(Some(why)) => return invalid_grant(why),
        Err(None) => return unavailable(),
    };
    let text = |name: &str| claims.get(name).and_then(Value::as_str);
    if text("client_id") != Some(client.client_id.as_str()) {
        return invalid_grant("the assertion was issued to another client");
    }
    if !text("resource").is_some_and(|resource| same_resource(resource, &proxy.resource)) {
        return invalid_grant("the assertion is not for this resource");
    }
    let Some(subject) = text("sub").filter(|s| !s.is_empty()) else {
        return invalid_grant("the assertion names no subject");
    };
    let supported = &proxy.settings.scopes_supported;
    let mut granted: Vec<String> = match text("scope") {
        Some(scope) => scope
            .split_ascii_whitespace()
            .filter(|s| supported.is_empty() || supported.iter().any(|x| x == s))
            .map(str::to_owned)
            .collect(),
        None => supported.clone(),
    };
    // Asked for more than the assertion allows: the part it allows (RFC
    // 6749 §3.3; the answer's `scope` says which), none of it: refused.
    if let Some(asked) = scope.map(|s| s.split_ascii_whitespace().collect::<Vec<_>>()).filter(|a| !a.is_empty()) {
        granted.retain(|g| asked.contains(&g.as_str()));
        if granted.is_empty() {
            return oauth_error(StatusCode::BAD_REQUEST, "invalid_scope", "the assertion grants none of the scopes");
        }
    }
    // Good once: the assertion's hash is kept until it would have expired.
    let exp = claims.get("exp").and_then(Value::as_u64).unwrap_or_default();
    let ttl = Duration::from_secs(exp.saturating_sub(super::now()).max(1) + 60);
    let used_key = format!("jag:{}", crypto::hashed(assertion));
    match records::swap::<_, bool>(&*proxy.store, &used_key, &true).await {
        Err(_) => return unavailable(),
        Ok(Some(_)) => return invalid_grant("the assertion was already used"),
        Ok(None) => {
            if records::put(&*proxy.store, &used_key, &true, ttl).await.is_err() {
                return unavailable();
            }
        }
    }
    let mut kept = JsonObject::new();
    kept.insert("idp".into(), claims.get("iss").cloned().unwrap_or_default());
    for name in ["email", "name"] {
        if let Some(value) = claims.get(name) {
            kept.insert(name.into(), value.clone());
        }
    }
    let grant = Grant {
        client_id: client.client_id.clone(),
        subject: subject.to_owned(),
        claims: kept,
        scope: granted,
        resource: proxy.resource.clone(),
        upstream: String::new(),
    };
    tracing::info!(client = %client.client_id, "exchanged an ID-JAG for an access token");
    super::issue::tokens(proxy, &crypto::token(), &grant, false).await
}

/// The claims of an ID-JAG a trusted provider signed for this proxy;
/// `Err(None)` when its keys cannot be had.
async fn verify(proxy: &Proxy, assertion: &str) -> Result<JsonObject, Option<&'static str>> {
    let header = jsonwebtoken::decode_header(assertion).map_err(|_| Some("the assertion is not a signed JWT"))?;
    if header.typ.as_deref() != Some(TYP) {
        return Err(Some("the assertion is not an ID-JAG (typ oauth-id-jag+jwt)"));
    }
    if !ALGORITHMS.contains(&header.alg) {
        return Err(Some("the assertion is not signed with an asymmetric algorithm"));
    }
    // Which provider: its `iss`, read before the signature is checked
    // only to pick the keys that must then verify it.
    let unverified = assertion.split('.').nth(1).and_then(|part| {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).ok()?;
        serde_json::from_slice::<JsonObject>(&bytes).ok()
    });
    let issuer = unverified.as_ref().and_then(|c| c.get("iss")).and_then(Value::as_str);
    let Some((issuer, keys)) = proxy.idps.0.iter().find(|(iss, _)| Some(iss.as_str()) == issuer) else {
        return Err(Some("the assertion's issuer is not trusted"));
    };
    let keys = match keys.keys_for(header.kid.as_deref(), header.alg).await {
        Ok(keys) => keys,
        Err(Missing::Unknown) => return Err(Some("the assertion is not signed by a key of its issuer")),
        Err(Missing::Unavailable) => return Err(None),
    };
    let mut validation = Validation::new(header.alg);
    validation.leeway = 30;
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[&proxy.settings.issuer]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    let mut last = None;
    for key in keys {
        match jsonwebtoken::decode::<JsonObject>(assertion, &key.decoding, &validation) {
            Ok(data) => return Ok(data.claims),
            Err(error) => last = Some(error.into_kind()),
        }
    }
    use jsonwebtoken::errors::ErrorKind;
    Err(Some(match last {
        Some(ErrorKind::InvalidAudience) => "the assertion is for another authorization server",
        Some(ErrorKind::ExpiredSignature) => "the assertion has expired",
        Some(ErrorKind::InvalidSignature) => "the assertion's signature does not verify",
        _ => "the assertion is invalid",
    }))
}
