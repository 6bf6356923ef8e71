//! DPoP (RFC 9449): one P-256 key per OAuth client, a fresh proof for
//! each request (token requests and the MCP server's), bound to the
//! access token (`ath`) and to the nonce each server last asked for.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use reqwest::Url;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::pkce;
use crate::Error;

/// Nonces kept, one per server origin: an OAuth client talks to a few
/// servers (its MCP server, an authorization server or two), so a client
/// that meets more forgets the oldest rather than grow.
const MAX_NONCES: usize = 16;

/// The header that carries proofs and the one that carries nonces.
pub(crate) const DPOP: &str = "DPoP";
pub(crate) const DPOP_NONCE: &str = "DPoP-Nonce";

/// The client's DPoP key and the nonces servers gave it.
pub(crate) struct Dpop {
    key: SigningKey,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`).
    jwk: serde_json::Value,
    nonces: Mutex<Nonces>,
}

/// Origin → the last nonce it sent, with when it arrived (by a counter
/// of arrivals, the first field).
type Nonces = (u64, HashMap<String, (u64, String)>);

impl fmt::Debug for Dpop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dpop").field("jwk", &self.jwk).finish_non_exhaustive()
    }
}

impl Dpop {
    /// A new key, from the system's randomness.
    pub(crate) fn generate() -> Result<Dpop, Error> {
        // A random scalar below the curve order: any 32 bytes but a
        // vanishing few are one, so this loop ends at once.
        let key = loop {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes)
                .map_err(|e| Error::transport(format!("authorization: no randomness from the system: {e}")))?;
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                break key;
            }
        };
        let point = key.verifying_key().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err(Error::transport("authorization: the DPoP key has no affine point"));
        };
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
        });
        Ok(Dpop { key, jwk, nonces: Mutex::new((0, HashMap::new())) })
    }

    /// The key's JWK thumbprint (RFC 7638), what a server binds tokens to
    /// (`cnf.jkt`).
    pub(crate) fn thumbprint(&self) -> String {
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            self.jwk["x"].as_str().unwrap_or_default(),
            self.jwk["y"].as_str().unwrap_or_default()
        );
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// A proof for `method` on `url`, bound to `access_token` if one is
    /// presented with it, with the nonce `url`'s server last gave.
    pub(crate) fn proof(&self, method: &str, url: &Url, access_token: Option<&str>) -> Result<String, Error> {
        let mut htu = url.clone();
        htu.set_query(None);
        htu.set_fragment(None);
        let header = json!({ "typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk });
        let mut claims = json!({
            "jti": pkce::random(18)?,
            "htm": method,
            "htu": htu.as_str(),
            "iat": super::token::now(),
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = self.nonce(url) {
            claims["nonce"] = json!(nonce);
        }
        let signing_input =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature: Signature = self.key.sign(signing_input.as_bytes());
        Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes())))
    }

    /// The nonce `url`'s server last gave, if any.
    pub(crate) fn nonce(&self, url: &Url) -> Option<String> {
        let nonces = self.nonces.lock().unwrap_or_else(|e| e.into_inner());
        nonces.1.get(&url.origin().ascii_serialization()).map(|(_, nonce)| nonce.clone())
    }

    /// Keep `nonce` for `url`'s server; whether it is new (a server that
    /// repeats the nonce it refused is not worth asking again).
    pub(crate) fn set_nonce(&self, url: &Url, nonce: &str) -> bool {
        // A nonce is an opaque token (RFC 9449 §8.1: NQCHAR); anything
        // else, or an absurd length, is not kept.
        if nonce.is_empty() || nonce.len() > 1024 || !nonce.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b'"') {
            return false;
        }
        let mut guard = self.nonces.lock().unwrap_or_else(|e| e.into_inner());
        let (clock, nonces) = &mut *guard;
        *clock += 1;
        let origin = url.origin().ascii_serialization();
        if nonces.get(&origin).is_some_and(|(_, n)| n == nonce) {
            return false;
        }
        if nonces.len() >= MAX_NONCES
            && !nonces.contains_key(&origin)
            && let Some(oldest) = nonces.iter().min_by_key(|(_, (at, _))| *at).map(|(o, _)| o.clone())
        {
            nonces.remove(&oldest);
        }
        nonces.insert(origin, (*clock, nonce.to_owned()));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier;
    use serde_json::Value;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn proofs_are_signed_fresh_and_bound() {
        let dpop = Dpop::generate().unwrap();
        let url = Url::parse("https://mcp.example.com/mcp?x=1#f").unwrap();
        let proof = dpop.proof("POST", &url, Some("token")).unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        let (header, claims) = (decode(parts[0]), decode(parts[1]));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none());
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(b"token")));
        assert!(claims.get("nonce").is_none());
        // The signature verifies with the key in the header.
        let point = p256::EncodedPoint::from_affine_coordinates(
            URL_SAFE_NO_PAD.decode(header["jwk"]["x"].as_str().unwrap()).unwrap().as_slice().into(),
            URL_SAFE_NO_PAD.decode(header["jwk"]["y"].as_str().unwrap()).unwrap().as_slice().into(),
            false,
        );
        let key = VerifyingKey::from_encoded_point(&point).unwrap();
        let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
        key.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature).unwrap();
        // A second proof is another one.
        let again = dpop.proof("POST", &url, Some("token")).unwrap();
        assert_ne!(decode(again.split('.').nth(1).unwrap())["jti"], claims["jti"]);
    }

    #[test]
    fn nonces_are_kept_per_server_and_bounded() {
        let dpop = Dpop::generate().unwrap();
        let a = Url::parse("https://a.example/token").unwrap();
        assert!(dpop.set_nonce(&a, "n1"));
        assert!(!dpop.set_nonce(&a, "n1"), "the same nonce again is not new");
        assert!(!dpop.set_nonce(&a, "bad\"nonce"));
        assert!(!dpop.set_nonce(&a, ""));
        let proof = dpop.proof("POST", &Url::parse("https://a.example/other").unwrap(), None).unwrap();
        assert_eq!(decode(proof.split('.').nth(1).unwrap())["nonce"], "n1");
        for i in 0..40 {
            dpop.set_nonce(&Url::parse(&format!("https://s{i}.example/")).unwrap(), "n");
        }
        assert!(dpop.nonces.lock().unwrap().1.len() <= MAX_NONCES);
        assert_eq!(dpop.nonce(&a), None, "the oldest was forgotten");
    }
}
