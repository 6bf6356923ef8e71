//! DPoP on the resource server (RFC 9449): each request's proof checked
//! against the request and its token, replays refused, nonces issued.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, Method};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{DecodingKey, Validation};
use mcp_core::JsonObject;
use reqwest::Url;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{ALGORITHMS, OAuth, Refused, Verifier, canonical};
use crate::error::Error;
use crate::request::claims::Claims;

/// The signing algorithms a proof may use, as metadata and challenges
/// name them.
pub(super) const ALGS: &str = "RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 EdDSA";

/// Take DPoP-bound access tokens (RFC 9449): a request shows
/// `Authorization: DPoP <token>` and a `DPoP` proof, a JWT its client
/// signed with the key the token is bound to. Give it to
/// [`OAuth::dpop`].
///
/// Each proof must be a `dpop+jwt` signed (asymmetric algorithms only)
/// by the public key in its header; its `htm` and `htu` must be the
/// request's method and this resource's URL (query and fragment aside);
/// its `iat` within the [`window`](Self::window) (default 60 seconds,
/// plus the token leeway); its `ath` the hash of the token shown with it;
/// its `jti` not seen before within the window; and the token's
/// `cnf.jkt` the thumbprint (RFC 7638) of the proof's key. A bad proof
/// gets 401 with `WWW-Authenticate: DPoP error="invalid_dpop_proof"`, a
/// token not bound to the proof's key `error="invalid_token"`.
///
/// - **Bearer tokens** are refused unless [`allow_bearer`](Self::allow_bearer)
///   is set; a DPoP-bound token (one with `cnf.jkt`) shown as a bearer
///   token is always refused (RFC 9449 §7.2).
/// - **Nonces**, with [`nonces`](Self::nonces): a proof must carry a nonce
///   the server issued; one without (or with a stale one) gets 401
///   `error="use_dpop_nonce"` and a fresh nonce in `DPoP-Nonce`. Nonces
///   need no state: each is a keyed hash of the current window, good for
///   that window and the next.
/// - **Replays** are refused by remembering each accepted proof's `jti`
///   (under its key) until its `iat` leaves the window, for at most
///   [`max_proofs`](Self::max_proofs) proofs (default 100,000). Only
///   proofs with a valid token are remembered, so only holders of tokens
///   can fill it; when it is full of live proofs, requests get 503 until
///   some expire, rather than a replay being let through.
#[derive(Clone, Debug)]
pub struct Dpop {
    pub(super) bearer: bool,
    nonces: bool,
    window: Duration,
    max_proofs: usize,
}

impl Default for Dpop {
    fn default() -> Self {
        Dpop::new()
    }
}

impl Dpop {
    /// DPoP-bound tokens only, without nonces.
    pub fn new() -> Self {
        Dpop { bearer: false, nonces: false, window: Duration::from_secs(60), max_proofs: 100_000 }
    }

    /// Also take unbound tokens as bearer tokens (a bound one shown as a
    /// bearer token is still refused).
    pub fn allow_bearer(mut self) -> Self {
        self.bearer = true;
        self
    }

    /// Require server-issued nonces in proofs (RFC 9449 §9), which limits
    /// a proof made in advance to the window it was made in.
    pub fn nonces(mut self) -> Self {
        self.nonces = true;
        self
    }

    /// How old a proof's `iat` may be (default 60 seconds), and how long
    /// its `jti` is remembered.
    pub fn window(mut self, window: Duration) -> Self {
        self.window = window;
        self
    }

    /// How many proofs' `jti`s are remembered at most (default 100,000).
    pub fn max_proofs(mut self, proofs: usize) -> Self {
        self.max_proofs = proofs;
        self
    }
}

impl OAuth {
    /// Take DPoP-bound tokens and check their proofs (see [`Dpop`]).
    pub fn dpop(mut self, dpop: Dpop) -> Self {
        self.dpop = Some(dpop);
        self
    }
}

/// The proof checks of one endpoint.
pub(super) struct Proofs {
    settings: Dpop,
    /// The resource's URL in canonical form, what `htu` must be.
    htu: String,
    /// The key of the nonces' hashes, random per process.
    secret: [u8; 32],
    /// Hash of (key thumbprint, `jti`) → until when it is remembered.
    seen: Mutex<HashMap<[u8; 32], Instant>>,
}

impl Proofs {
    pub(super) fn new(settings: Dpop, resource: &str) -> Result<Proofs, Error> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| Error::InvalidOAuth(format!("no randomness for DPoP nonces: {e}")))?;
        let htu = canonical(resource).ok_or_else(|| Error::InvalidOAuth("the resource is not a URL".into()))?;
        Ok(Proofs { settings, htu, secret, seen: Mutex::new(HashMap::new()) })
    }

    pub(super) fn allows_bearer(&self) -> bool {
        self.settings.bearer
    }

    /// The nonce of the current window, when nonces are on.
    pub(super) fn nonce(&self) -> Option<String> {
        self.settings.nonces.then(|| self.nonce_of(unix_now() / self.window_secs()))
    }

    fn window_secs(&self) -> u64 {
        self.settings.window.as_secs().max(1)
    }

    fn nonce_of(&self, slot: u64) -> String {
        let mut hash = Sha256::new();
        hash.update(self.secret);
        hash.update(slot.to_be_bytes());
        let mut nonce = slot.to_be_bytes().to_vec();
        nonce.extend_from_slice(&hash.finalize()[..16]);
        URL_SAFE_NO_PAD.encode(nonce)
    }

    fn nonce_is_good(&self, nonce: &str) -> bool {
        let now = unix_now() / self.window_secs();
        [now, now.saturating_sub(1)].iter().any(|slot| {
            let good = self.nonce_of(*slot);
            bool::from(subtle::ConstantTimeEq::ct_eq(good.as_bytes(), nonce.as_bytes()))
        })
    }

    /// Check `proof` for a request by `method` showing `token`: the key's
    /// thumbprint and the replay key, or why not.
    fn check(
        &self,
        proof: &str,
        method: &Method,
        token: &str,
        leeway: u64,
    ) -> Result<(String, [u8; 32], u64), Refused> {
        let bad = |why: &'static str| Refused::Proof("invalid_dpop_proof", why);
        let header_part = proof.split('.').next().unwrap_or_default();
        let header: JsonObject = URL_SAFE_NO_PAD
            .decode(header_part)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or(bad("the proof is not a JWT"))?;
        if header.get("typ").and_then(Value::as_str) != Some("dpop+jwt") {
            return Err(bad("the proof's typ is not dpop+jwt"));
        }
        let jwk = header.get("jwk").and_then(Value::as_object).ok_or(bad("the proof has no jwk"))?;
        if ["d", "p", "q", "dp", "dq", "qi", "k"].iter().any(|private| jwk.contains_key(*private)) {
            return Err(bad("the proof's jwk is not a public key"));
        }
        let thumbprint = thumbprint(jwk).ok_or(bad("the proof's jwk is not a usable key"))?;
        let decoded = jsonwebtoken::decode_header(proof).map_err(|_| bad("the proof is not a JWT"))?;
        if !ALGORITHMS.contains(&decoded.alg) {
            return Err(bad("the proof is not signed with an asymmetric algorithm"));
        }
        let key = decoded.jwk.as_ref().and_then(|jwk| DecodingKey::from_jwk(jwk).ok());
        let key = key.ok_or(bad("the proof's jwk is not a usable key"))?;
        let mut validation = Validation::new(decoded.alg);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        let claims = jsonwebtoken::decode::<JsonObject>(proof, &key, &validation)
            .map_err(|_| bad("the proof's signature does not verify"))?
            .claims;
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        let jti = text("jti").filter(|j| !j.is_empty() && j.len() <= 256).ok_or(bad("the proof has no usable jti"))?;
        if text("htm") != Some(method.as_str()) {
            return Err(bad("the proof is for another method"));
        }
        let htu = text("htu").and_then(|htu| Url::parse(htu).ok()).and_then(|mut url| {
            url.set_query(None);
            url.set_fragment(None);
            canonical(url.as_str())
        });
        if htu.as_deref() != Some(self.htu.as_str()) {
            return Err(bad("the proof is for another URL"));
        }
        let iat = claims.get("iat").and_then(Value::as_u64).ok_or(bad("the proof has no iat"))?;
        let now = unix_now();
        if iat > now + leeway || iat + self.settings.window.as_secs() + leeway < now {
            return Err(bad("the proof's iat is outside the window"));
        }
        let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
        if text("ath") != Some(ath.as_str()) {
            return Err(bad("the proof's ath is not the token's hash"));
        }
        if self.settings.nonces && !text("nonce").is_some_and(|nonce| self.nonce_is_good(nonce)) {
            return Err(Refused::Proof("use_dpop_nonce", "a fresh nonce is needed in the proof"));
        }
        let seen: [u8; 32] =
            Sha256::new().chain_update(&thumbprint).chain_update([0]).chain_update(jti).finalize().into();
        Ok((thumbprint, seen, iat))
    }

    /// Remember an accepted proof; refused if it was seen already.
    fn remember(&self, seen: [u8; 32], iat: u64, leeway: u64) -> Result<(), Refused> {
        let keep = (iat + self.settings.window.as_secs() + leeway).saturating_sub(unix_now());
        let now = Instant::now();
        let mut proofs = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if proofs.get(&seen).is_some_and(|until| *until > now) {
            return Err(Refused::Proof("invalid_dpop_proof", "the proof was used before"));
        }
        if proofs.len() >= self.settings.max_proofs {
            proofs.retain(|_, until| *until > now);
            if proofs.len() >= self.settings.max_proofs {
                return Err(Refused::Busy);
            }
        }
        proofs.insert(seen, now + Duration::from_secs(keep));
        Ok(())
    }
}

impl Verifier {
    /// The claims of the request's access token, shown as the settings
    /// allow (bearer, or DPoP with its proof), or why not.
    pub(crate) async fn authenticate(&self, method: &Method, headers: &HeaderMap) -> Result<Claims, Refused> {
        let authorization = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok());
        let (scheme, token) = authorization.and_then(|v| v.split_once(' ')).ok_or(Refused::Unauthorized(None))?;
        let token = token.trim();
        if token.is_empty() {
            return Err(Refused::Unauthorized(None));
        }
        let Some(proofs) = &self.dpop else {
            if !scheme.eq_ignore_ascii_case("bearer") {
                return Err(Refused::Unauthorized(None));
            }
            return self.verify(token).await;
        };
        if scheme.eq_ignore_ascii_case("bearer") {
            if !proofs.allows_bearer() {
                return Err(Refused::Unauthorized(Some("this resource takes DPoP-bound tokens only")));
            }
            let claims = self.verify(token).await?;
            if claims.all().get("cnf").and_then(|cnf| cnf.get("jkt")).is_some() {
                return Err(Refused::Unauthorized(Some("a DPoP-bound token needs a DPoP proof")));
            }
            return Ok(claims);
        }
        if !scheme.eq_ignore_ascii_case("dpop") {
            return Err(Refused::Unauthorized(None));
        }
        let mut sent = headers.get_all("dpop").iter();
        let (Some(proof), None) = (sent.next(), sent.next()) else {
            return Err(Refused::Proof("invalid_dpop_proof", "one DPoP proof is needed"));
        };
        let proof = proof.to_str().map_err(|_| Refused::Proof("invalid_dpop_proof", "the proof is not a JWT"))?;
        let (thumbprint, seen, iat) = proofs.check(proof, method, token, self.leeway)?;
        let claims = self.verify(token).await?;
        let bound = claims.all().get("cnf").and_then(|cnf| cnf.get("jkt")).and_then(Value::as_str);
        if bound != Some(thumbprint.as_str()) {
            return Err(Refused::Unauthorized(Some("the token is not bound to the proof's key")));
        }
        proofs.remember(seen, iat, self.leeway)?;
        Ok(claims)
    }
}

/// The JWK thumbprint (RFC 7638) of a public key: the hash of its
/// required members, in lexicographic order, without whitespace.
fn thumbprint(jwk: &JsonObject) -> Option<String> {
    let member = |name: &str| jwk.get(name).and_then(Value::as_str).map(|v| serde_json::to_string(v).ok());
    let members: &[&str] = match jwk.get("kty").and_then(Value::as_str)? {
        "EC" => &["crv", "kty", "x", "y"],
        "RSA" => &["e", "kty", "n"],
        "OKP" => &["crv", "kty", "x"],
        _ => return None,
    };
    let mut canonical = String::from("{");
    for (i, name) in members.iter().enumerate() {
        if i > 0 {
            canonical.push(',');
        }
        canonical.push_str(&format!("\"{name}\":{}", member(name)??));
    }
    canonical.push('}');
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())))
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbprints_follow_rfc_7638() {
        // RFC 7638 §3.1's example key and thumbprint.
        let jwk: JsonObject = serde_json::from_value(serde_json::json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29",
        }))
        .unwrap();
        assert_eq!(thumbprint(&jwk).as_deref(), Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"));
        let mut unknown = jwk.clone();
        unknown.insert("kty".into(), "oct".into());
        assert_eq!(thumbprint(&unknown), None);
    }

    #[test]
    fn nonces_are_good_for_their_window_and_the_next_only() {
        let proofs = Proofs::new(Dpop::new().nonces(), "https://mcp.example.com/mcp").unwrap();
        let nonce = proofs.nonce().unwrap();
        assert!(proofs.nonce_is_good(&nonce));
        let slot = unix_now() / proofs.window_secs();
        assert!(proofs.nonce_is_good(&proofs.nonce_of(slot - 1)));
        assert!(!proofs.nonce_is_good(&proofs.nonce_of(slot - 2)));
        assert!(!proofs.nonce_is_good("made-up"));
        let other = Proofs::new(Dpop::new().nonces(), "https://mcp.example.com/mcp").unwrap();
        assert!(!other.nonce_is_good(&nonce), "another process's secret");
    }
}
