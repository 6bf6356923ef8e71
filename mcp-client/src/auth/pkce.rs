//! PKCE (RFC 7636) with S256, and the random values of a flow (verifier,
//! state).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::Error;

/// One authorization's proof key: the verifier kept for the token
/// request, the challenge sent in the authorization request.
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl Pkce {
    /// A fresh verifier: 32 random bytes, 43 base64url characters (the
    /// RFC's recommendation).
    pub(crate) fn new() -> Result<Pkce, Error> {
        let verifier = random(32)?;
        let challenge = challenge_s256(&verifier);
        Ok(Pkce { verifier, challenge })
    }
}

/// `BASE64URL(SHA256(ASCII(verifier)))`, without padding.
pub(crate) fn challenge_s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes as base64url, for verifiers and `state`.
pub(crate) fn random(bytes: usize) -> Result<String, Error> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer)
        .map_err(|e| Error::transport(format!("authorization: no randomness from the system: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636, appendix B.
    #[test]
    fn the_rfc_example_challenge() {
        assert_eq!(
            challenge_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_well_formed() {
        let a = Pkce::new().unwrap();
        let b = Pkce::new().unwrap();
        assert_ne!(a.verifier, b.verifier);
        // 43..=128 characters of the unreserved set (RFC 7636 §4.1).
        assert_eq!(a.verifier.len(), 43);
        assert!(a.verifier.bytes().all(|c| c.is_ascii_alphanumeric() || b"-._~".contains(&c)));
        assert_eq!(a.challenge, challenge_s256(&a.verifier));
    }
}
