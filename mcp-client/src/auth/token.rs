//! The token endpoint: a code exchanged (with its PKCE verifier), a token
//! refreshed, a client-credentials grant or a JWT bearer grant (RFC 7523
//! §2.1: a workload's platform token, an enterprise ID-JAG); the client
//! authenticated as its credentials say; with a DPoP proof (retried once
//! with the server's nonce) when the client uses DPoP; the answer checked
//! before it is used.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Url;
use serde::Deserialize;

use super::assertion::{self, Signer};
use super::discovery::ServerMetadata;
use super::dpop::{DPOP, Dpop};
use super::fetch::{self, failed, invalid};
use super::guard::Fetcher;
use super::registration::{ClientCredentials, TokenEndpointAuth};
use crate::Error;

/// The grant type of the JWT bearer grant (RFC 7523 §2.1).
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// How many times a token request is sent again with a new DPoP nonce:
/// once is what RFC 9449 §8 describes; a server that asks again with
/// each answer is not followed further.
const MAX_NONCE_RETRIES: usize = 1;

/// What the client asks the token endpoint for.
pub(crate) enum Grant<'a> {
    /// RFC 6749 §4.1.3 with RFC 7636 §4.5.
    Code { code: &'a str, verifier: &'a str, redirect_uri: &'a str },
    /// RFC 6749 §6.
    Refresh { refresh_token: &'a str },
    /// RFC 6749 §4.4.
    ClientCredentials { scope: Option<&'a str> },
    /// RFC 7523 §2.1.
    JwtBearer { assertion: &'a str, scope: Option<&'a str> },
}

/// A successful token response (RFC 6749 §5.1).
#[derive(Debug)]
pub(crate) struct Issued {
    pub(crate) access_token: String,
    pub(crate) refresh_token: Option<String>,
    /// Seconds since the Unix epoch.
    pub(crate) expires_at: Option<u64>,
    pub(crate) scope: Option<String>,
    /// A DPoP-bound token (`token_type` DPoP), presented with proofs.
    pub(crate) dpop: bool,
}

/// Ask `server`'s token endpoint for `grant`, for `resource`, with a
/// DPoP proof if `dpop` is given.
pub(crate) async fn request(
    http: &Fetcher,
    dpop: Option<&Dpop>,
    server: &ServerMetadata,
    client: &ClientCredentials,
    grant: Grant<'_>,
    resource: Option<&str>,
) -> Result<Issued, Error> {
    let endpoint = &server.token_endpoint;
    let url = Url::parse(endpoint).map_err(|e| invalid(format!("the token endpoint `{endpoint}`: {e}")))?;
    let what = match grant {
        Grant::Code { .. } => "exchanging the authorization code",
        Grant::Refresh { .. } => "refreshing the token",
        Grant::ClientCredentials { .. } => "the client credentials grant",
        Grant::JwtBearer { .. } => "the JWT bearer grant",
    };
    let http = http.client_for(&url, "the token endpoint")?;
    let mut pairs: Vec<(&str, &str)> = match &grant {
        Grant::Code { code, verifier, redirect_uri } => vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", verifier),
            ("redirect_uri", redirect_uri),
        ],
        Grant::Refresh { refresh_token } => vec![("grant_type", "refresh_token"), ("refresh_token", refresh_token)],
        Grant::ClientCredentials { scope } => {
            let mut pairs = vec![("grant_type", "client_credentials")];
            pairs.extend(scope.map(|s| ("scope", s)));
            pairs
        }
        Grant::JwtBearer { assertion, scope } => {
            let mut pairs = vec![("grant_type", JWT_BEARER), ("assertion", assertion)];
            pairs.extend(scope.map(|s| ("scope", s)));
            pairs
        }
    };
    if let Some(resource) = resource {
        pairs.push(("resource", resource));
    }
    let mut retries = 0;
    loop {
        let mut post = http.post(url.clone());
        // A client assertion is signed for each request (its `jti` is
        // single-use).
        let client_assertion;
        let mut pairs = pairs.clone();
        match client.method(server) {
            TokenEndpointAuth::ClientSecretBasic => {
                post = fetch::basic(post, &client.client_id, client.client_secret.as_deref().unwrap_or(""));
            }
            TokenEndpointAuth::ClientSecretPost => {
                pairs.push(("client_id", &client.client_id));
                pairs.push(("client_secret", client.client_secret.as_deref().unwrap_or("")));
            }
            method @ (TokenEndpointAuth::PrivateKeyJwt | TokenEndpointAuth::ClientSecretJwt) => {
                let signer = match (&client.private_key, &client.client_secret) {
                    (Some(key), _) if method == TokenEndpointAuth::PrivateKeyJwt => Signer::Key(key),
                    (_, Some(secret)) if method == TokenEndpointAuth::ClientSecretJwt => Signer::Secret(secret),
                    _ => return Err(failed(format!("{what}: the client's credentials have no key for {method:?}"))),
                };
                client_assertion = assertion::client_assertion(signer, &client.client_id, &server.issuer)?;
                pairs.push(("client_id", &client.client_id));
                pairs.push(("client_assertion_type", assertion::ASSERTION_TYPE));
                pairs.push(("client_assertion", &client_assertion));
            }
            TokenEndpointAuth::None => pairs.push(("client_id", &client.client_id)),
        }
        if let Some(dpop) = dpop {
            post = post.header(DPOP, dpop.proof("POST", &url, None)?);
        }
        tracing::debug!(%url, "authorization: {what}");
        let answer = fetch::send(fetch::form(post, &pairs), what).await?;
        let new_nonce = match (dpop, &answer.dpop_nonce) {
            (Some(dpop), Some(nonce)) => dpop.set_nonce(&url, nonce),
            _ => false,
        };
        if answer.status.is_success() {
            return parse(&answer.body, now(), dpop.is_some());
        }
        // RFC 9449 §8: the server wants a nonce of its own in the proof.
        if answer.error_code().as_deref() == Some("use_dpop_nonce") && new_nonce && retries < MAX_NONCE_RETRIES {
            retries += 1;
            tracing::debug!(%url, "authorization: retrying with the server's DPoP nonce");
            continue;
        }
        return Err(failed(format!("{what} was refused: {}", answer.oauth_error())));
    }
}

/// Check a token response: an access token of type Bearer (or DPoP, if
/// the client asked with a proof), with what else came.
pub(crate) fn parse(body: &[u8], now: u64, dpop: bool) -> Result<Issued, Error> {
    #[derive(Deserialize)]
    struct Response {
        access_token: String,
        #[serde(default)]
        token_type: Option<String>,
        #[serde(default)]
        expires_in: Option<serde_json::Value>,
        #[serde(default)]
        refresh_token: Option<String>,
        #[serde(default)]
        scope: Option<String>,
    }
    let response: Response =
        serde_json::from_slice(body).map_err(|e| invalid(format!("the token response is not valid: {e}")))?;
    if response.access_token.is_empty() {
        return Err(invalid("the token response has an empty access_token"));
    }
    let bound = match response.token_type.as_deref() {
        None => false,
        Some(kind) if kind.eq_ignore_ascii_case("bearer") => false,
        Some(kind) if kind.eq_ignore_ascii_case("dpop") && dpop => true,
        Some(kind) => {
            let supported = if dpop { "Bearer and DPoP tokens are" } else { "Bearer tokens are" };
            return Err(invalid(format!("the token response is of type `{}`; only {supported} supported", clip(kind))));
        }
    };
    // A number, or (from some servers) a numeric string.
    let expires_in = match &response.expires_in {
        Some(serde_json::Value::Number(n)) => n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)),
        Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    Ok(Issued {
        access_token: response.access_token,
        refresh_token: response.refresh_token.filter(|t| !t.is_empty()),
        expires_at: expires_in.map(|s| now.saturating_add(s)),
        scope: response.scope,
        dpop: bound,
    })
}

fn clip(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(40).collect()
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_responses() {
        let issued = parse(
            br#"{"access_token":"a","token_type":"bearer","expires_in":3600,"refresh_token":"r","scope":"x y"}"#,
            100,
            false,
        )
        .unwrap();
        assert_eq!(issued.access_token, "a");
        assert_eq!(issued.expires_at, Some(3700));
        assert_eq!(issued.refresh_token.as_deref(), Some("r"));
        assert_eq!(issued.scope.as_deref(), Some("x y"));
        let issued = parse(br#"{"access_token":"a","token_type":"Bearer","expires_in":"60"}"#, 0, false).unwrap();
        assert_eq!(issued.expires_at, Some(60));
        assert!(parse(br#"{"access_token":"a","token_type":"DPoP"}"#, 0, false).is_err());
        assert!(parse(br#"{"access_token":"a","token_type":"DPoP"}"#, 0, true).unwrap().dpop);
        assert!(!parse(br#"{"access_token":"a","token_type":"Bearer"}"#, 0, true).unwrap().dpop);
        assert!(parse(br#"{"access_token":"a","token_type":"MAC"}"#, 0, true).is_err());
        // Garbage of every shape is an error, never a panic.
        for body in
            [&b""[..], b"null", b"[]", b"{}", b"{\"access_token\":7}", b"\xff\xfe", b"{\"token_type\":\"DPoP\"}"]
        {
            assert!(parse(body, 0, true).is_err(), "{body:?}");
        }
        assert!(parse(br#"{"access_token":""}"#, 0, false).is_err());
        assert!(parse(br#"{"error":"invalid_grant"}"#, 0, false).is_err());
        assert!(parse(b"not json", 0, false).is_err());
        assert_eq!(parse(br#"{"access_token":"a","expires_in":-5}"#, 10, false).unwrap().expires_at, Some(10));
    }
}
