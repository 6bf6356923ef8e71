//! The client's identity at an authorization server: credentials given
//! by the application (pre-registration), a client ID metadata document
//! URL, or a dynamic registration (RFC 7591), in that order of preference.

use std::fmt;

use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::assertion::PrivateKey;
use super::discovery::ServerMetadata;
use super::fetch::{self, failed, invalid};
use super::guard::Fetcher;
use crate::Error;

/// How the client proves its identity at the token endpoint (RFC 7591
/// §2 `token_endpoint_auth_method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TokenEndpointAuth {
    /// The secret in an HTTP Basic `Authorization` header; the default of
    /// RFC 8414 when a server names none.
    ClientSecretBasic,
    /// The secret in the form body, for servers that only take that.
    ClientSecretPost,
    /// No secret: a public client, protected by PKCE alone.
    None,
    /// A JWT signed with the client's private key (RFC 7523 §2.2,
    /// `private_key_jwt`): the key never leaves the client.
    PrivateKeyJwt,
    /// A JWT signed with the client's secret (HS256, `client_secret_jwt`):
    /// the secret itself is never sent.
    ClientSecretJwt,
}

impl TokenEndpointAuth {
    fn parse(name: &str) -> Option<TokenEndpointAuth> {
        match name {
            "client_secret_basic" => Some(TokenEndpointAuth::ClientSecretBasic),
            "client_secret_post" => Some(TokenEndpointAuth::ClientSecretPost),
            "none" => Some(TokenEndpointAuth::None),
            "private_key_jwt" => Some(TokenEndpointAuth::PrivateKeyJwt),
            "client_secret_jwt" => Some(TokenEndpointAuth::ClientSecretJwt),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            TokenEndpointAuth::ClientSecretBasic => "client_secret_basic",
            TokenEndpointAuth::ClientSecretPost => "client_secret_post",
            TokenEndpointAuth::None => "none",
            TokenEndpointAuth::PrivateKeyJwt => "private_key_jwt",
            TokenEndpointAuth::ClientSecretJwt => "client_secret_jwt",
        }
    }
}

/// A client's identity at one authorization server. Pre-registered
/// credentials come from the server's operator; registered ones are kept
/// (in the [`TokenStore`](super::TokenStore)) so the client does not
/// register again on every connection.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCredentials {
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How to authenticate at the token endpoint; chosen from the
    /// server's metadata when not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_method: Option<TokenEndpointAuth>,
    /// The issuer these credentials belong to. Credentials are never
    /// presented to another authorization server (SEP-2352); without an
    /// issuer, pre-registered credentials are used with any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The private key of a `private_key_jwt` client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<PrivateKey>,
}

impl ClientCredentials {
    /// Credentials of a public client (no secret).
    pub fn public(client_id: impl Into<String>) -> ClientCredentials {
        ClientCredentials {
            client_id: client_id.into(),
            client_secret: None,
            auth_method: None,
            issuer: None,
            private_key: None,
        }
    }

    /// Credentials of a client that authenticates with a JWT signed by its
    /// private key (`private_key_jwt`, RFC 7523 §2.2; SEP-1046 for the
    /// client credentials grant): the key is registered with the
    /// authorization server beforehand (see [`PrivateKey::new`]).
    pub fn private_key_jwt(client_id: impl Into<String>, key: PrivateKey) -> ClientCredentials {
        ClientCredentials {
            private_key: Some(key),
            auth_method: Some(TokenEndpointAuth::PrivateKeyJwt),
            ..ClientCredentials::public(client_id)
        }
    }

    /// Credentials of a confidential client.
    pub fn confidential(client_id: impl Into<String>, client_secret: impl Into<String>) -> ClientCredentials {
        ClientCredentials { client_secret: Some(client_secret.into()), ..ClientCredentials::public(client_id) }
    }

    /// The same credentials, for `issuer` only.
    pub fn for_issuer(mut self, issuer: impl Into<String>) -> ClientCredentials {
        self.issuer = Some(issuer.into());
        self
    }

    /// The same credentials, with this token endpoint authentication.
    pub fn with_auth_method(mut self, method: TokenEndpointAuth) -> ClientCredentials {
        self.auth_method = Some(method);
        self
    }

    /// Whether these may be presented to `issuer`.
    pub(crate) fn usable_at(&self, issuer: &str) -> bool {
        self.issuer.as_deref().is_none_or(|i| i == issuer)
    }

    /// Whether these can authenticate a confidential client (a secret or
    /// a private key).
    pub(crate) fn confidential_client(&self) -> bool {
        self.client_secret.is_some() || self.private_key.is_some()
    }

    /// The method to use at `server`: the one set, else a private key's
    /// JWT, else none without a secret, else Basic if the server takes it
    /// (or names nothing), else form-body, else a JWT signed with the
    /// secret.
    pub(crate) fn method(&self, server: &ServerMetadata) -> TokenEndpointAuth {
        if let Some(method) = self.auth_method {
            return method;
        }
        if self.private_key.is_some() {
            return TokenEndpointAuth::PrivateKeyJwt;
        }
        if self.client_secret.is_none() {
            return TokenEndpointAuth::None;
        }
        match &server.token_endpoint_auth_methods_supported {
            Some(methods) if !methods.iter().any(|m| m == "client_secret_basic") => {
                if methods.iter().any(|m| m == "client_secret_post") {
                    TokenEndpointAuth::ClientSecretPost
                } else if methods.iter().any(|m| m == "client_secret_jwt") {
                    TokenEndpointAuth::ClientSecretJwt
                } else {
                    TokenEndpointAuth::ClientSecretBasic
                }
            }
            _ => TokenEndpointAuth::ClientSecretBasic,
        }
    }
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .field("auth_method", &self.auth_method)
            .field("issuer", &self.issuer)
            .field("private_key", &self.private_key)
            .finish()
    }
}

/// What the client says about itself when it registers.
#[derive(Debug, Clone)]
pub(crate) struct ClientInfo {
    pub(crate) name: String,
    pub(crate) redirect_uri: Option<String>,
    pub(crate) application_type: Option<String>,
    pub(crate) refresh: bool,
    pub(crate) client_credentials_grant: bool,
}

impl ClientInfo {
    /// `native` for a redirect to the user's own machine (a loopback
    /// address or a private scheme), `web` otherwise (SEP-837).
    fn application_type(&self) -> &str {
        if let Some(kind) = &self.application_type {
            return kind;
        }
        let Some(uri) = self.redirect_uri.as_deref().and_then(|u| Url::parse(u).ok()) else { return "native" };
        let loopback = matches!(uri.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
        if loopback || !matches!(uri.scheme(), "http" | "https") { "native" } else { "web" }
    }

    /// The RFC 7591 request body, asking for `method` at `server`.
    pub(crate) fn registration_request(&self, server: &ServerMetadata) -> Value {
        let mut grant_types = Vec::new();
        if self.client_credentials_grant {
            grant_types.push("client_credentials");
        } else {
            grant_types.push("authorization_code");
        }
        if self.refresh {
            grant_types.push("refresh_token");
        }
        let mut body = json!({
            "client_name": self.name,
            "grant_types": grant_types,
            "token_endpoint_auth_method": requested_method(server, self.client_credentials_grant).name(),
            "application_type": self.application_type(),
        });
        if !self.client_credentials_grant {
            body["response_types"] = json!(["code"]);
            body["redirect_uris"] = json!(self.redirect_uri.iter().collect::<Vec<_>>());
        }
        body
    }
}

/// A public client if the server takes one (PKCE protects the code), else
/// the first secret-based method it takes. A client-credentials client
/// needs a secret.
fn requested_method(server: &ServerMetadata, confidential: bool) -> TokenEndpointAuth {
    let supported = server.token_endpoint_auth_methods_supported.as_deref();
    let takes = |m: TokenEndpointAuth| supported.is_none_or(|s| s.iter().any(|n| n == m.name()));
    if !confidential && takes(TokenEndpointAuth::None) && supported.is_some() {
        return TokenEndpointAuth::None;
    }
    if takes(TokenEndpointAuth::ClientSecretBasic) {
        TokenEndpointAuth::ClientSecretBasic
    } else if takes(TokenEndpointAuth::ClientSecretPost) {
        TokenEndpointAuth::ClientSecretPost
    } else if confidential {
        TokenEndpointAuth::ClientSecretBasic
    } else {
        TokenEndpointAuth::None
    }
}

/// Register with `server` (RFC 7591 §3).
pub(crate) async fn register(
    http: &Fetcher,
    server: &ServerMetadata,
    info: &ClientInfo,
) -> Result<ClientCredentials, Error> {
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(failed(format!(
            "`{}` offers no dynamic client registration, client ID metadata documents are not configured or not \
             supported there, and no pre-registered credentials were given for it",
            server.issuer
        )));
    };
    let url = Url::parse(endpoint).map_err(|e| invalid(format!("the registration endpoint `{endpoint}`: {e}")))?;
    tracing::debug!(%url, "authorization: registering the client");
    let body = info.registration_request(server);
    let client = http.client_for(&url, "the registration endpoint")?;
    let answer = fetch::send(client.post(url).json(&body), "client registration").await?;
    if !answer.status.is_success() {
        return Err(failed(format!("client registration was refused: {}", answer.oauth_error())));
    }
    parse_registration(&answer.body, &server.issuer)
}

/// The credentials of a registration response (RFC 7591 §3.2.1).
pub(crate) fn parse_registration(body: &[u8], issuer: &str) -> Result<ClientCredentials, Error> {
    #[derive(Deserialize)]
    struct Response {
        client_id: String,
        #[serde(default)]
        client_secret: Option<String>,
        #[serde(default)]
        token_endpoint_auth_method: Option<String>,
    }
    let response: Response = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("the client registration response is not valid: {e}")))?;
    if response.client_id.is_empty() {
        return Err(invalid("the client registration response has an empty client_id"));
    }
    let auth_method = response.token_endpoint_auth_method.as_deref().and_then(TokenEndpointAuth::parse);
    Ok(ClientCredentials {
        client_id: response.client_id,
        client_secret: response.client_secret.filter(|s| !s.is_empty()),
        auth_method,
        issuer: Some(issuer.to_owned()),
        private_key: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(methods: Option<&[&str]>) -> ServerMetadata {
        serde_json::from_value(json!({
            "issuer": "https://as",
            "token_endpoint": "https://as/token",
            "token_endpoint_auth_methods_supported": methods,
        }))
        .unwrap()
    }

    #[test]
    fn method_follows_the_credentials_then_the_server() {
        let public = ClientCredentials::public("c");
        let secret = ClientCredentials::confidential("c", "s");
        assert_eq!(public.method(&server(Some(&["client_secret_basic"]))), TokenEndpointAuth::None);
        assert_eq!(secret.method(&server(None)), TokenEndpointAuth::ClientSecretBasic);
        assert_eq!(secret.method(&server(Some(&["client_secret_post"]))), TokenEndpointAuth::ClientSecretPost);
        assert_eq!(
            secret.method(&server(Some(&["client_secret_post", "client_secret_basic"]))),
            TokenEndpointAuth::ClientSecretBasic
        );
        let explicit = secret.clone().with_auth_method(TokenEndpointAuth::ClientSecretPost);
        assert_eq!(explicit.method(&server(Some(&["client_secret_basic"]))), TokenEndpointAuth::ClientSecretPost);
        assert_eq!(secret.method(&server(Some(&["client_secret_jwt"]))), TokenEndpointAuth::ClientSecretJwt);
    }

    #[test]
    fn registration_asks_for_what_the_server_takes() {
        let info = ClientInfo {
            name: "app".into(),
            redirect_uri: Some("http://127.0.0.1:8080/callback".into()),
            application_type: None,
            refresh: true,
            client_credentials_grant: false,
        };
        let body = info.registration_request(&server(Some(&["client_secret_basic"])));
        assert_eq!(body["token_endpoint_auth_method"], "client_secret_basic");
        assert_eq!(body["grant_types"], json!(["authorization_code", "refresh_token"]));
        assert_eq!(body["redirect_uris"], json!(["http://127.0.0.1:8080/callback"]));
        assert_eq!(body["application_type"], "native");
        let body = info.registration_request(&server(Some(&["none", "client_secret_post"])));
        assert_eq!(body["token_endpoint_auth_method"], "none");
        let web = ClientInfo { redirect_uri: Some("https://app.example.com/cb".into()), ..info };
        assert_eq!(web.registration_request(&server(None))["application_type"], "web");
    }

    #[test]
    fn registration_responses() {
        let c = parse_registration(
            br#"{"client_id":"id","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}"#,
            "https://as",
        )
        .unwrap();
        assert_eq!(c.auth_method, Some(TokenEndpointAuth::ClientSecretPost));
        assert_eq!(c.issuer.as_deref(), Some("https://as"));
        assert!(c.usable_at("https://as") && !c.usable_at("https://other"));
        assert!(!format!("{c:?}").contains("\"s\""));
        assert!(parse_registration(br#"{"client_id":""}"#, "x").is_err());
        assert!(parse_registration(b"<html>", "x").is_err());
        assert!(parse_registration(br#"{"client_id":5}"#, "x").is_err());
    }
}
