//! JWT client authentication (RFC 7523 §2.2, OpenID Connect Core §9):
//! `private_key_jwt` signs an assertion with the client's private key,
//! `client_secret_jwt` with its secret; either is sent as
//! `client_assertion` instead of the secret itself.

use std::fmt;
use std::str::FromStr;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::pkce;
use crate::Error;

/// The `client_assertion_type` of a JWT assertion (RFC 7523 §2.2).
pub(crate) const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long a client assertion is good for: one request's worth.
const LIFETIME: u64 = 60;

/// A private key the client signs its assertions with (`private_key_jwt`):
/// PEM (PKCS#8 for EC and Ed25519 keys, PKCS#1 or PKCS#8 for RSA) and the
/// JWS algorithm it signs with.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrivateKey {
    algorithm: String,
    pem: String,
}

impl PrivateKey {
    /// `pem` signing with `algorithm` (`ES256`, `ES384`, `RS256`,
    /// `RS384`, `RS512`, `PS256`, `PS384`, `PS512` or `EdDSA`); fails if
    /// the key cannot sign with it.
    pub fn new(pem: impl Into<String>, algorithm: &str) -> Result<PrivateKey, Error> {
        let key = PrivateKey { algorithm: algorithm.to_owned(), pem: pem.into() };
        key.encoding()?;
        Ok(key)
    }

    /// The algorithm and the key jsonwebtoken signs with.
    fn encoding(&self) -> Result<(Algorithm, EncodingKey), Error> {
        let bad = |why: String| Error::transport(format!("authorization: the client's private key: {why}"));
        let algorithm = Algorithm::from_str(&self.algorithm)
            .map_err(|_| bad(format!("`{}` is not a JWS algorithm", self.algorithm)))?;
        let pem = self.pem.as_bytes();
        let key = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
            _ => return Err(bad(format!("{} is not a signature algorithm", self.algorithm))),
        }
        .map_err(|e| bad(format!("not a PEM key for {}: {e}", self.algorithm)))?;
        // Sign once now, so a key that does not fit the algorithm (an
        // RSA key for ES256) fails here rather than at the first request.
        jsonwebtoken::encode(&Header::new(algorithm), &json!({}), &key)
            .map_err(|e| bad(format!("it cannot sign with {}: {e}", self.algorithm)))?;
        Ok((algorithm, key))
    }
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey").field("algorithm", &self.algorithm).field("pem", &"<redacted>").finish()
    }
}

/// What signs an assertion.
pub(crate) enum Signer<'a> {
    Key(&'a PrivateKey),
    Secret(&'a str),
}

/// A client assertion for `client_id`, for the authorization server
/// `audience` (its issuer identifier, as RFC 7523bis has it).
pub(crate) fn client_assertion(signer: Signer<'_>, client_id: &str, audience: &str) -> Result<String, Error> {
    let (algorithm, key) = match signer {
        Signer::Key(key) => key.encoding()?,
        Signer::Secret(secret) => (Algorithm::HS256, EncodingKey::from_secret(secret.as_bytes())),
    };
    let now = super::token::now();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "jti": pkce::random(18)?,
        "iat": now,
        "exp": now + LIFETIME,
    });
    let mut header = Header::new(algorithm);
    header.typ = Some("JWT".to_owned());
    jsonwebtoken::encode(&header, &claims, &key)
        .map_err(|e| Error::transport(format!("authorization: signing the client assertion: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};

    const EC_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPFtuYnzm0CRSl8qq
5/f0Ax6A8n2aRkSwoODsv5ojLJmhRANCAASYkh+G7ZsX4ObuXEBWclCrfVBeAq8e
GxfpyYBam2u73fZEVewC3c7G/fLotyAlRKdlIjMqZPOP4o3+yoyO6lGq
-----END PRIVATE KEY-----
";

    #[test]
    fn private_key_assertions_verify_with_the_public_key() {
        let key = PrivateKey::new(EC_KEY, "ES256").unwrap();
        let jwt = client_assertion(Signer::Key(&key), "client", "https://as.example.com").unwrap();
        let public = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEmJIfhu2bF+Dm7lxAVnJQq31QXgKv
HhsX6cmAWptru932RFXsAt3Oxv3y6LcgJUSnZSIzKmTzj+KN/sqMjupRqg==
-----END PUBLIC KEY-----
";
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_audience(&["https://as.example.com"]);
        validation.set_issuer(&["client"]);
        let data = jsonwebtoken::decode::<serde_json::Value>(
            &jwt,
            &DecodingKey::from_ec_pem(public.as_bytes()).unwrap(),
            &validation,
        )
        .unwrap();
        assert_eq!(data.claims["sub"], "client");
        assert!(data.claims["jti"].as_str().is_some_and(|j| !j.is_empty()));
        assert!(!format!("{key:?}").contains("MIGH"), "the key stays out of Debug");
    }

    #[test]
    fn secret_assertions_use_hs256() {
        let jwt = client_assertion(Signer::Secret("s3cret"), "c", "https://as").unwrap();
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&["https://as"]);
        assert!(
            jsonwebtoken::decode::<serde_json::Value>(&jwt, &DecodingKey::from_secret(b"s3cret"), &validation).is_ok()
        );
    }

    #[test]
    fn bad_keys_fail_when_given() {
        assert!(PrivateKey::new("not a key", "ES256").is_err());
        assert!(PrivateKey::new(EC_KEY, "HS256").is_err());
        assert!(PrivateKey::new(EC_KEY, "RS256").is_err());
        assert!(PrivateKey::new(EC_KEY, "nope").is_err());
    }
}
