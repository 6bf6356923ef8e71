//! The authorization server's signing keys: found through its metadata
//! (RFC 8414, or OpenID Connect discovery) unless a JWKS URL is given,
//! fetched, kept, and fetched again when a token names a key we do not
//! have, at most once per `refetch_interval`, so a flood of tokens with
//! made-up key ids cannot make the server hammer the issuer.

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use reqwest::Url;
use serde_json::Value;

/// The largest metadata or key set document read.
const MAX_DOCUMENT: usize = 1024 * 1024;

/// One verification key of the set.
pub(super) struct Key {
    kid: Option<String>,
    /// The algorithm the set pins it to, if it does.
    alg: Option<Algorithm>,
    pub(super) decoding: DecodingKey,
}

impl Key {
    /// A signing key from one JWK; `None` for keys that cannot verify a
    /// token's signature here: encryption keys and symmetric (`oct`) keys,
    /// which would let anyone who knows them mint tokens, and kinds the
    /// crypto backend does not know.
    fn from_jwk(value: Value) -> Option<Key> {
        let jwk: Jwk = serde_json::from_value(value).ok()?;
        if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))) {
            return None;
        }
        if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_) | AlgorithmParameters::Other(_)) {
            return None;
        }
        let alg = match &jwk.common.key_algorithm {
            Some(alg) => Some(alg.to_string().parse::<Algorithm>().ok()?),
            None => None,
        };
        let decoding = DecodingKey::from_jwk(&jwk).ok()?;
        Some(Key { kid: jwk.common.key_id, alg, decoding })
    }

    /// Whether it may verify a token signed with `alg` under `kid` (a
    /// token without a `kid` may be verified by any key of its kind).
    fn fits(&self, kid: Option<&str>, alg: Algorithm) -> bool {
        kid.is_none_or(|kid| self.kid.as_deref() == Some(kid))
            && self.alg.is_none_or(|pinned| pinned == alg)
            && self.decoding.family().algorithms().contains(&alg)
    }
}

/// A key set as last fetched.
struct KeySet {
    keys: Vec<Arc<Key>>,
    fetched: Instant,
}

/// Why no key verifies a token.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Missing {
    /// The set has no key for it: the token is not ours to accept.
    Unknown,
    /// No key set could be fetched yet: nobody's token can be checked.
    Unavailable,
}

/// Where the keys come from and how often they may be fetched.
pub(super) struct Settings {
    pub(super) issuer: String,
    pub(super) jwks_url: Option<Url>,
    pub(super) refetch_interval: Duration,
    pub(super) max_age: Duration,
    /// Keys known in advance: the set is these, for good.
    pub(super) fixed: Vec<Jwk>,
}

/// The keys of one authorization server, fetched on demand.
pub(super) struct KeyCache {
    settings: Settings,
    client: reqwest::Client,
    current: RwLock<Option<Arc<KeySet>>>,
    /// The JWKS URL, once known (given, or found in the metadata).
    jwks_url: Mutex<Option<Url>>,
    /// When a fetch was last tried: the rate limit counts failures too.
    last_attempt: Mutex<Option<Instant>>,
    /// Held while fetching: tokens arriving meanwhile wait for that fetch
    /// instead of starting their own.
    fetching: tokio::sync::Mutex<()>,
}

impl KeyCache {
    pub(super) fn new(settings: Settings, client: reqwest::Client) -> KeyCache {
        let jwks_url = Mutex::new(settings.jwks_url.clone());
        let fixed: Vec<Arc<Key>> = settings
            .fixed
            .iter()
            .filter_map(|jwk| serde_json::to_value(jwk).ok())
            .filter_map(Key::from_jwk)
            .map(Arc::new)
            .collect();
        let current = (!fixed.is_empty()).then(|| Arc::new(KeySet { keys: fixed, fetched: Instant::now() }));
        KeyCache {
            settings,
            client,
            current: RwLock::new(current),
            jwks_url,
            last_attempt: Mutex::default(),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The keys that may verify a token signed with `alg` under `kid`.
    pub(super) async fn keys_for(&self, kid: Option<&str>, alg: Algorithm) -> Result<Vec<Arc<Key>>, Missing> {
        if let Some(found) = self.fresh_match(kid, alg) {
            return Ok(found);
        }
        let _fetching = self.fetching.lock().await;
        // Another request may have fetched what this one needs while it
        // waited.
        if let Some(found) = self.fresh_match(kid, alg) {
            return Ok(found);
        }
        if self.may_fetch() {
            self.fetch().await;
        }
        match self.current() {
            None => Err(Missing::Unavailable),
            Some(set) => {
                let found = matching(&set, kid, alg);
                if found.is_empty() { Err(Missing::Unknown) } else { Ok(found) }
            }
        }
    }

    fn current(&self) -> Option<Arc<KeySet>> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The matching keys of a set young enough to trust without asking
    /// the issuer again.
    fn fresh_match(&self, kid: Option<&str>, alg: Algorithm) -> Option<Vec<Arc<Key>>> {
        let set = self.current()?;
        if self.settings.fixed.is_empty() && set.fetched.elapsed() >= self.settings.max_age {
            return None;
        }
        Some(matching(&set, kid, alg)).filter(|found| !found.is_empty())
    }

    /// Claim the next fetch if the rate limit allows one now.
    fn may_fetch(&self) -> bool {
        if !self.settings.fixed.is_empty() {
            return false;
        }
        let mut last = self.last_attempt.lock().unwrap_or_else(|e| e.into_inner());
        let allowed = last.is_none_or(|at| at.elapsed() >= self.settings.refetch_interval);
        if allowed {
            *last = Some(Instant::now());
        }
        allowed
    }

    /// Fetch the key set, keeping the one we had if that fails (a stale
    /// key set still verifies the tokens it verified before).
    async fn fetch(&self) {
        match self.fetch_set().await {
            Ok(keys) => {
                tracing::debug!(keys = keys.len(), issuer = %self.settings.issuer, "fetched the authorization server's keys");
                let set = Arc::new(KeySet { keys, fetched: Instant::now() });
                *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(set);
            }
            Err(error) => {
                tracing::warn!(issuer = %self.settings.issuer, %error, "could not fetch the authorization server's keys");
            }
        }
    }

    async fn fetch_set(&self) -> Result<Vec<Arc<Key>>, String> {
        let known = self.jwks_url.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let url = match known {
            Some(url) => url,
            None => {
                let url = self.discover().await?;
                *self.jwks_url.lock().unwrap_or_else(|e| e.into_inner()) = Some(url.clone());
                url
            }
        };
        let document = self.get_json(&url).await?;
        let Some(Value::Array(keys)) = document.get("keys").cloned() else {
            return Err(format!("{url} is not a JWK set (no `keys` array)"));
        };
        Ok(keys.into_iter().filter_map(Key::from_jwk).map(Arc::new).collect())
    }

    /// The issuer's `jwks_uri`, from its metadata at the first of the
    /// well-known places that has it (RFC 8414 §3.1, then OpenID Connect
    /// discovery, in the order the MCP spec gives clients). The metadata
    /// must name our issuer exactly (RFC 8414 §3.3), or anyone serving a
    /// document there could pick the keys we trust.
    async fn discover(&self) -> Result<Url, String> {
        let issuer = &self.settings.issuer;
        let mut tried = Vec::new();
        for url in metadata_urls(issuer)? {
            let document = match self.get_json(&url).await {
                Ok(document) => document,
                Err(error) => {
                    tried.push(error);
                    continue;
                }
            };
            if document.get("issuer").and_then(Value::as_str) != Some(issuer.as_str()) {
                return Err(format!("the metadata at {url} names another issuer than {issuer}"));
            }
            let jwks_uri = document
                .get("jwks_uri")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("the metadata at {url} has no `jwks_uri`"))?;
            let jwks_uri = Url::parse(jwks_uri).map_err(|e| format!("`jwks_uri` {jwks_uri:?}: {e}"))?;
            super::urls::check_secure(&jwks_uri).map_err(|why| format!("`jwks_uri`: {why}"))?;
            return Ok(jwks_uri);
        }
        Err(format!("no authorization server metadata found for {issuer} ({})", tried.join("; ")))
    }

    /// GET `url` as JSON: a 2xx answer, at most [`MAX_DOCUMENT`] bytes.
    async fn get_json(&self, url: &Url) -> Result<Value, String> {
        let fail = |e: reqwest::Error| format!("GET {url}: {e}");
        let mut response = self.client.get(url.clone()).send().await.map_err(fail)?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(fail)? {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(format!("GET {url}: the document is larger than {MAX_DOCUMENT} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("GET {url}: not JSON: {e}"))
    }
}

fn matching(set: &KeySet, kid: Option<&str>, alg: Algorithm) -> Vec<Arc<Key>> {
    set.keys.iter().filter(|key| key.fits(kid, alg)).cloned().collect()
}

/// Where an issuer's metadata may be: for `https://as.example/tenant`,
/// `/.well-known/oauth-authorization-server/tenant`,
/// `/.well-known/openid-configuration/tenant` and
/// `/tenant/.well-known/openid-configuration`.
fn metadata_urls(issuer: &str) -> Result<Vec<Url>, String> {
    let base = Url::parse(issuer).map_err(|e| format!("issuer {issuer:?}: {e}"))?;
    let path = base.path().trim_end_matches('/').to_owned();
    let at = |path: String| {
        let mut url = base.clone();
        url.set_path(&path);
        url.set_query(None);
        url
    };
    let mut urls = vec![
        at(format!("/.well-known/oauth-authorization-server{path}")),
        at(format!("/.well-known/openid-configuration{path}")),
    ];
    if !path.is_empty() {
        urls.push(at(format!("{path}/.well-known/openid-configuration")));
    }
    Ok(urls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_for_where_rfc_8414_and_openid_put_it() {
        let urls = |issuer| metadata_urls(issuer).unwrap().iter().map(Url::to_string).collect::<Vec<_>>();
        assert_eq!(
            urls("https://as.example.com"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            urls("https://as.example.com/tenant1/"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://as.example.com/.well-known/openid-configuration/tenant1",
                "https://as.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn symmetric_and_encryption_keys_are_never_used() {
        let oct = serde_json::json!({"kty": "oct", "k": "c2VjcmV0", "kid": "h"});
        assert!(Key::from_jwk(oct).is_none());
        let rsa = serde_json::json!({"kty": "RSA", "n": "sXch", "e": "AQAB", "kid": "r", "use": "enc"});
        assert!(Key::from_jwk(rsa).is_none());
        let rsa = serde_json::json!({"kty": "RSA", "n": "sXch", "e": "AQAB", "kid": "r", "alg": "RS256"});
        let key = Key::from_jwk(rsa).unwrap();
        assert!(key.fits(Some("r"), Algorithm::RS256) && key.fits(None, Algorithm::RS256));
        assert!(!key.fits(Some("x"), Algorithm::RS256));
        assert!(!key.fits(Some("r"), Algorithm::PS256), "the set pins RS256");
        assert!(!key.fits(Some("r"), Algorithm::HS256));
        assert!(!key.fits(Some("r"), Algorithm::ES256));
    }
}
