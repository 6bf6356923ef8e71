//! The proxy's secrets: one master secret from which the token signing
//! key (Ed25519) and the key that seals upstream tokens at rest
//! (ChaCha20-Poly1305) are derived, random identifiers, and the hashes
//! under which codes and tokens are stored.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use hmac::{KeyInit as _, Mac};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use sha2::{Digest, Sha256};

/// PKCS #8 for an Ed25519 private key, before its 32-byte seed.
const ED25519_PKCS8_PREFIX: [u8; 16] =
    [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];

/// The keys of one proxy. Replicas given the same secret sign and seal
/// alike, so a token or record made by one is good on the others.
pub(crate) struct Keys {
    pub(crate) signing: EncodingKey,
    /// The public key, as the JWK Set publishes it.
    pub(crate) jwk: Jwk,
    pub(crate) verifying: DecodingKey,
    pub(crate) kid: String,
    sealing: ChaCha20Poly1305,
}

impl Keys {
    /// The keys derived from `secret` (at least 32 bytes).
    pub(crate) fn derive(secret: &[u8]) -> Result<Keys, String> {
        if secret.len() < 32 {
            return Err("the proxy's secret must be at least 32 bytes".into());
        }
        let seed = derive(secret, b"mcp-runtime oauth proxy: token signing key");
        let mut der = ED25519_PKCS8_PREFIX.to_vec();
        der.extend_from_slice(&seed);
        let signing = EncodingKey::from_ed_der(&der);
        let mut jwk = Jwk::from_encoding_key(&signing, Algorithm::EdDSA).map_err(|e| format!("signing key: {e}"))?;
        let kid = URL_SAFE_NO_PAD.encode(&Sha256::digest(derive(secret, b"mcp-runtime oauth proxy: key id"))[..12]);
        jwk.common.key_id = Some(kid.clone());
        jwk.common.public_key_use = Some(jsonwebtoken::jwk::PublicKeyUse::Signature);
        let verifying = DecodingKey::from_jwk(&jwk).map_err(|e| format!("verifying key: {e}"))?;
        let sealing = derive(secret, b"mcp-runtime oauth proxy: sealing key");
        Ok(Keys { signing, jwk, verifying, kid, sealing: ChaCha20Poly1305::new(&Key::from(sealing)) })
    }

    /// `plain`, encrypted and authenticated, bound to `context` (the
    /// record's key), so a sealed value moved to another record does not
    /// open.
    pub(crate) fn seal(&self, plain: &[u8], context: &str) -> Vec<u8> {
        let mut nonce = [0u8; 12];
        fill(&mut nonce);
        let payload = chacha20poly1305::aead::Payload { msg: plain, aad: context.as_bytes() };
        let mut sealed = nonce.to_vec();
        sealed.extend(self.sealing.encrypt(&Nonce::from(nonce), payload).unwrap_or_default());
        sealed
    }

    /// What [`seal`](Self::seal) sealed under `context`; `None` if it was
    /// altered, moved, or sealed with another secret.
    pub(crate) fn open(&self, sealed: &[u8], context: &str) -> Option<Vec<u8>> {
        let (nonce, body) = sealed.split_at_checked(12)?;
        let nonce = Nonce::from(<[u8; 12]>::try_from(nonce).ok()?);
        let payload = chacha20poly1305::aead::Payload { msg: body, aad: context.as_bytes() };
        self.sealing.decrypt(&nonce, payload).ok()
    }
}

/// HMAC-SHA-256 of `label` under `secret`: one independent key per use.
fn derive(secret: &[u8], label: &[u8]) -> [u8; 32] {
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(label);
    mac.finalize().into_bytes().into()
}

fn fill(bytes: &mut [u8]) {
    getrandom::fill(bytes).expect("the system's random source failed");
}

/// A fresh random secret of 32 bytes.
pub(crate) fn random_secret() -> Vec<u8> {
    let mut secret = vec![0u8; 32];
    fill(&mut secret);
    secret
}

/// A fresh unguessable token: 32 random bytes, base64url.
pub(crate) fn token() -> String {
    let mut bytes = [0u8; 32];
    fill(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// What a secret is stored under: its SHA-256, base64url, so the store
/// never holds a usable code or token.
pub(crate) fn hashed(secret: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(secret.as_bytes()))
}

/// The PKCE S256 challenge of `verifier` (RFC 7636 §4.2).
pub(crate) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Compare two secrets in constant time.
pub(crate) fn same(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_in_their_record_and_with_their_secret() {
        let keys = Keys::derive(&[7u8; 32]).unwrap();
        let sealed = keys.seal(b"upstream token", "grant:a");
        assert!(!sealed.windows(8).any(|w| w == b"upstream"), "not in the clear");
        assert_eq!(keys.open(&sealed, "grant:a").as_deref(), Some(&b"upstream token"[..]));
        assert_eq!(keys.open(&sealed, "grant:b"), None);
        assert_eq!(Keys::derive(&[8u8; 32]).unwrap().open(&sealed, "grant:a"), None);
        assert!(Keys::derive(&[1u8; 16]).is_err());
    }

    #[test]
    fn the_signing_key_is_the_same_for_the_same_secret_and_verifies_its_tokens() {
        let _ =
            jsonwebtoken::crypto::CryptoProvider::install_default(&jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER);
        let (a, b) = (Keys::derive(&[7u8; 32]).unwrap(), Keys::derive(&[7u8; 32]).unwrap());
        assert_eq!(a.jwk, b.jwk);
        let token = jsonwebtoken::encode(
            &jsonwebtoken::Header::new(Algorithm::EdDSA),
            &serde_json::json!({"sub": "u", "exp": 4_000_000_000u64}),
            &a.signing,
        )
        .unwrap();
        let validation = jsonwebtoken::Validation::new(Algorithm::EdDSA);
        let mut validation = validation;
        validation.validate_aud = false;
        assert!(jsonwebtoken::decode::<serde_json::Value>(&token, &b.verifying, &validation).is_ok());
        assert_eq!(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    }
}
