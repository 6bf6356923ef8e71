//! The token endpoint: a code exchanged (with its PKCE verifier), a token
//! refreshed, or a client-credentials grant; the client authenticated as
//! its credentials say; the answer checked before it is used.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::Url;
use serde::Deserialize;

use super::discovery::ServerMetadata;
use super::fetch::{self, failed, invalid};
use super::registration::{ClientCredentials, TokenEndpointAuth};
use crate::Error;

/// What the client asks the token endpoint for.
pub(crate) enum Grant<'a> {
    /// RFC 6749 §4.1.3 with RFC 7636 §4.5.
    Code { code: &'a str, verifier: &'a str, redirect_uri: &'a str },
    /// RFC 6749 §6.
    Refresh { refresh_token: &'a str },
    /// RFC 6749 §4.4.
    ClientCredentials { scope: Option<&'a str> },
}

/// A successful token response (RFC 6749 §5.1).
#[derive(Debug)]
pub(crate) struct Issued {
    pub(crate) access_token: String,
    pub(crate) refresh_token: Option<String>,
    /// Seconds since the Unix epoch.
    pub(crate) expires_at: Option<u64>,
    pub(crate) scope: Option<String>,
}

/// Ask `server`'s token endpoint for `grant`, for `resource`.
pub(crate) async fn request(
    http: &reqwest::Client,
    server: &ServerMetadata,
    client: &ClientCredentials,
    grant: Grant<'_>,
    resource: Option<&str>,
) -> Result<Issued, Error> {
    let endpoint = &server.token_endpoint;
    let url = Url::parse(endpoint).map_err(|e| invalid(format!("the token endpoint `{endpoint}`: {e}")))?;
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
    };
    if let Some(resource) = resource {
        pairs.push(("resource", resource));
    }
    let mut post = http.post(url.clone());
    match client.method(server) {
        TokenEndpointAuth::ClientSecretBasic => {
            // RFC 6749 §2.3.1: each part form-encoded, then Basic.
            let id = fetch::encode(&[("", &client.client_id)]);
            let secret = fetch::encode(&[("", client.client_secret.as_deref().unwrap_or(""))]);
            post = post.basic_auth(&id[1..], Some(&secret[1..]));
        }
        TokenEndpointAuth::ClientSecretPost => {
            pairs.push(("client_id", &client.client_id));
            pairs.push(("client_secret", client.client_secret.as_deref().unwrap_or("")));
        }
        TokenEndpointAuth::None => pairs.push(("client_id", &client.client_id)),
    }
    let what = match grant {
        Grant::Code { .. } => "exchanging the authorization code",
        Grant::Refresh { .. } => "refreshing the token",
        Grant::ClientCredentials { .. } => "the client credentials grant",
    };
    tracing::debug!(%url, "authorization: {what}");
    let answer = fetch::send(fetch::form(post, &pairs), what).await?;
    if !answer.status.is_success() {
        return Err(failed(format!("{what} was refused: {}", answer.oauth_error())));
    }
    parse(&answer.body, now())
}

/// Check a token response: an access token of type Bearer, with what
/// else came.
pub(crate) fn parse(body: &[u8], now: u64) -> Result<Issued, Error> {
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
    if let Some(kind) = &response.token_type
        && !kind.eq_ignore_ascii_case("bearer")
    {
        return Err(invalid(format!("the token response is of type `{kind}`; only Bearer tokens are supported")));
    }
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
    })
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
        )
        .unwrap();
        assert_eq!(issued.access_token, "a");
        assert_eq!(issued.expires_at, Some(3700));
        assert_eq!(issued.refresh_token.as_deref(), Some("r"));
        assert_eq!(issued.scope.as_deref(), Some("x y"));
        let issued = parse(br#"{"access_token":"a","token_type":"Bearer","expires_in":"60"}"#, 0).unwrap();
        assert_eq!(issued.expires_at, Some(60));
        assert!(parse(br#"{"access_token":"a","token_type":"DPoP"}"#, 0).is_err());
        assert!(parse(br#"{"access_token":""}"#, 0).is_err());
        assert!(parse(br#"{"error":"invalid_grant"}"#, 0).is_err());
        assert!(parse(b"not json", 0).is_err());
        assert_eq!(parse(br#"{"access_token":"a","expires_in":-5}"#, 10).unwrap().expires_at, Some(10));
    }
}
