//! The authorization scenarios (`auth/*`): the OAuth client the suite's
//! authorization servers judge. The user's part is played headlessly: the
//! suite's authorization endpoint approves at once and redirects, so the
//! redirect's `Location` is the answer a browser would have brought back.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use mcp_runtime_client::auth::{ClientCredentials, OAuth, UserAgent};
use mcp_runtime_client::{Authorization, Error};
use serde_json::Value;

/// Where the suite's authorization server sends the "browser" back.
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document the suite expects (its authorization
/// server does not fetch it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The authorization for `scenario` against the server at `url`, given
/// the suite's context (pre-registered credentials, for some scenarios).
pub fn authorization(scenario: &str, url: &str, context: &Value) -> Result<Option<Arc<dyn Authorization>>, String> {
    let text = |name: &str| context.get(name).and_then(Value::as_str);
    if text("private_key_pem").is_some() {
        return Err(format!("{scenario}: private_key_jwt client authentication (RFC 7523) is not supported"));
    }
    let mut builder =
        OAuth::builder(url).client_name("mcp-runtime-conformance-client").client_metadata_url(CLIENT_METADATA_URL);
    if let (Some(id), Some(secret)) = (text("client_id"), text("client_secret")) {
        let mut credentials = ClientCredentials::confidential(id, secret);
        if let Some(issuer) = text("issuer") {
            credentials = credentials.for_issuer(issuer);
        }
        builder = builder.preregistered(credentials);
        if scenario == "auth/client-credentials-basic" {
            builder = builder.client_credentials_grant();
        }
    }
    if !scenario.starts_with("auth/client-credentials") {
        let headless = Headless::new().map_err(message)?;
        builder = builder.redirect_uri(REDIRECT_URI).user_agent(headless);
    }
    let oauth = builder.build().map_err(message)?;
    Ok(Some(Arc::new(oauth)))
}

/// The message of an error the caller reports as a transport failure.
fn message(error: Error) -> String {
    match error {
        Error::Transport(message) => message,
        other => other.to_string(),
    }
}

/// A user who approves everything: GET the authorization URL, do not
/// follow its redirect, hand back where it points.
struct Headless {
    http: reqwest::Client,
}

impl Headless {
    fn new() -> Result<Headless, Error> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::Transport(e.to_string()))?;
        Ok(Headless { http })
    }
}

impl UserAgent for Headless {
    fn authorize<'a>(&'a self, authorization_url: &'a str) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            let response = self
                .http
                .get(authorization_url)
                .send()
                .await
                .map_err(|e| Error::Transport(format!("the authorization endpoint: {e}")))?;
            let location = response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
            match location {
                Some(location) if response.status().is_redirection() => Ok(location.to_owned()),
                _ => Err(Error::Transport(format!(
                    "the authorization endpoint answered HTTP {} without a redirect",
                    response.status().as_u16()
                ))),
            }
        })
    }
}
