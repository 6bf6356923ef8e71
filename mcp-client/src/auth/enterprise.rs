//! Enterprise-managed authorization (SEP-990): the user's ID token from
//! the company's identity provider is exchanged there (RFC 8693 token
//! exchange) for an identity assertion authorization grant (ID-JAG) for
//! the MCP server's authorization server, which the client then presents
//! with the JWT bearer grant (RFC 7523 §2.1).

use std::fmt;

use reqwest::Url;
use serde::Deserialize;

use super::fetch::{self, failed, invalid};
use super::source::TokenSource;
use crate::Error;

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// The company identity provider of enterprise-managed authorization:
/// its token endpoint, this client's registration there, and the user's
/// ID token from it (which the application got when the user signed in).
#[derive(Clone)]
pub struct EnterpriseIdp {
    token_endpoint: String,
    client_id: String,
    client_secret: Option<String>,
    id_token: TokenSource,
}

impl EnterpriseIdp {
    /// The identity provider whose token endpoint is `token_endpoint`,
    /// where this client is `client_id`, and the user's `id_token`.
    pub fn new(
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        id_token: TokenSource,
    ) -> EnterpriseIdp {
        EnterpriseIdp {
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: None,
            id_token,
        }
    }

    /// The client's secret at the identity provider, for a confidential
    /// client there (sent with HTTP Basic).
    pub fn client_secret(mut self, secret: impl Into<String>) -> EnterpriseIdp {
        self.client_secret = Some(secret.into());
        self
    }

    pub(crate) fn check(&self) -> Result<(), Error> {
        Url::parse(&self.token_endpoint).map(|_| ()).map_err(|e| {
            Error::transport(format!(
                "authorization: the identity provider's token endpoint `{}`: {e}",
                self.token_endpoint
            ))
        })
    }
}

impl fmt::Debug for EnterpriseIdp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterpriseIdp")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

/// Exchange the user's ID token at the identity provider for an ID-JAG
/// for the authorization server `audience` (its issuer) and the MCP
/// server `resource`, with `scope`.
pub(crate) async fn id_jag(
    http: &reqwest::Client,
    idp: &EnterpriseIdp,
    audience: &str,
    resource: Option<&str>,
    scope: Option<&str>,
) -> Result<String, Error> {
    let url =
        Url::parse(&idp.token_endpoint).map_err(|e| invalid(format!("the identity provider's token endpoint: {e}")))?;
    let id_token = idp.id_token.read("the user's ID token").await?;
    let mut pairs = vec![
        ("grant_type", TOKEN_EXCHANGE),
        ("requested_token_type", ID_JAG),
        ("audience", audience),
        ("subject_token", id_token.as_str()),
        ("subject_token_type", ID_TOKEN),
    ];
    pairs.extend(resource.map(|r| ("resource", r)));
    pairs.extend(scope.map(|s| ("scope", s)));
    let mut post = http.post(url.clone());
    match &idp.client_secret {
        Some(secret) => post = fetch::basic(post, &idp.client_id, secret),
        None => pairs.push(("client_id", &idp.client_id)),
    }
    let what = "the token exchange at the identity provider";
    tracing::debug!(%url, "authorization: {what}");
    let answer = fetch::send(fetch::form(post, &pairs), what).await?;
    if !answer.status.is_success() {
        return Err(failed(format!("{what} was refused: {}", answer.oauth_error())));
    }
    parse(&answer.body)
}

/// The ID-JAG of a token exchange response (RFC 8693 §2.2.1).
fn parse(body: &[u8]) -> Result<String, Error> {
    #[derive(Deserialize)]
    struct Response {
        access_token: String,
        issued_token_type: String,
    }
    let response: Response = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("the identity provider's token exchange response is not valid: {e}")))?;
    if response.issued_token_type != ID_JAG {
        return Err(invalid(format!("the identity provider issued a `{}`, not an ID-JAG", response.issued_token_type)));
    }
    if response.access_token.split('.').count() != 3 {
        return Err(invalid("the identity provider's ID-JAG is not a JWT"));
    }
    Ok(response.access_token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchange_responses() {
        let ok = br#"{"access_token":"a.b.c","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}"#;
        assert_eq!(parse(ok).unwrap(), "a.b.c");
        let wrong = br#"{"access_token":"a.b.c","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#;
        assert!(parse(wrong).is_err());
        assert!(
            parse(br#"{"access_token":"opaque","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag"}"#)
                .is_err()
        );
        assert!(parse(b"<html>").is_err());
        let debug =
            format!("{:?}", EnterpriseIdp::new("https://idp/token", "c", TokenSource::fixed("t")).client_secret("s3"));
        assert!(!debug.contains("s3"), "{debug}");
    }
}
