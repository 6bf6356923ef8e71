//! The authorization scenarios (`auth/*`): the OAuth client the suite's
//! authorization servers judge. The user's part is played headlessly: the
//! suite's authorization endpoint approves at once and redirects, so the
//! redirect's `Location` is the answer a browser would have brought back.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use mcp_runtime_client::auth::{ClientCredentials, EnterpriseIdp, OAuth, PrivateKey, TokenSource, UserAgent};
use mcp_runtime_client::{Authorization, Error};
use serde_json::Value;

/// Where the suite's authorization server sends the "browser" back.
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document the suite expects (its authorization
/// server does not fetch it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The authorization for `scenario` against the server at `url`, given
/// the suite's context (pre-registered credentials, keys and tokens, for
/// some scenarios). Every server of the suite is on loopback, which an
/// application allows explicitly.
pub fn authorization(scenario: &str, url: &str, context: &Value) -> Result<Option<Arc<dyn Authorization>>, String> {
    let text = |name: &str| context.get(name).and_then(Value::as_str);
    let mut builder = OAuth::builder(url)
        .client_name("mcp-runtime-conformance-client")
        .client_metadata_url(CLIENT_METADATA_URL)
        .allow_private_addresses(true);
    let mut machine = false;
    if let (Some(id), Some(pem)) = (text("client_id"), text("private_key_pem")) {
        // private_key_jwt (SEP-1046): the key the suite registered.
        let key = PrivateKey::new(pem, text("signing_algorithm").unwrap_or("ES256")).map_err(message)?;
        builder = builder.preregistered(ClientCredentials::private_key_jwt(id, key)).client_credentials_grant();
        machine = true;
    } else if let (Some(id), Some(secret)) = (text("client_id"), text("client_secret")) {
        let mut credentials = ClientCredentials::confidential(id, secret);
        if let Some(issuer) = text("issuer") {
            credentials = credentials.for_issuer(issuer);
        }
        builder = builder.preregistered(credentials);
        if scenario == "auth/client-credentials-basic" {
            builder = builder.client_credentials_grant();
            machine = true;
        }
    }
    if let (Some(endpoint), Some(idp_client), Some(id_token)) =
        (text("idp_token_endpoint"), text("idp_client_id"), text("idp_id_token"))
    {
        // Enterprise-managed (SEP-990): the user's ID token, as the
        // application's own sign-in at the company IdP would have it.
        builder = builder.enterprise_managed(EnterpriseIdp::new(endpoint, idp_client, TokenSource::fixed(id_token)));
        machine = true;
    }
    if scenario == "auth/wif-jwt-bearer" {
        // Workload identity (SEP-1933): the platform's token in a file,
        // where a platform mounts it.
        let (Some(id), Some(jwt)) = (text("client_id"), text("valid_jwt")) else {
            return Err(format!("{scenario}: the context has no client_id or valid_jwt"));
        };
        let path = std::env::temp_dir().join(format!("mcp-conformance-wif-{}.jwt", std::process::id()));
        std::fs::write(&path, jwt).map_err(|e| format!("{scenario}: writing the platform token: {e}"))?;
        builder = builder.preregistered(ClientCredentials::public(id)).workload_identity(TokenSource::file(path));
        machine = true;
    }
    if scenario.starts_with("auth/dpop") {
        builder = builder.dpop(true);
    }
    if !machine {
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
