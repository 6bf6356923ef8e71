//! Finding the authorization server: the protected resource metadata
//! (RFC 9728) from the challenge or its well-known URLs, then the
//! authorization server's metadata (RFC 8414, OpenID Connect Discovery)
//! in the MCP spec's order, each checked against where it was found. A
//! server without resource metadata is treated as the 2025-03-26 spec
//! said: its origin is the authorization server, with default endpoints
//! when it has no metadata either.

use reqwest::Url;
use serde::Deserialize;

use super::challenge::Challenge;
use super::fetch::{self, failed, invalid};
use super::guard::Fetcher;
use crate::Error;

/// RFC 9728 §2, the fields the client uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ResourceMetadata {
    pub(crate) resource: String,
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// RFC 8414 §2, the fields the client uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: String,
    #[serde(default)]
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    /// The DPoP proof algorithms the server takes (RFC 9449 §5.1).
    #[serde(default)]
    pub(crate) dpop_signing_alg_values_supported: Option<Vec<String>>,
}

/// Where to get a token for the server, and for what resource.
#[derive(Debug, Clone)]
pub(crate) struct Discovery {
    /// The resource metadata's `resource`, sent as-is as the `resource`
    /// parameter (RFC 8707); none without resource metadata.
    pub(crate) resource: Option<String>,
    /// The resource metadata's `scopes_supported`.
    pub(crate) resource_scopes: Option<Vec<String>>,
    /// The authorization server's metadata (or the 2025-03-26 defaults).
    pub(crate) server: ServerMetadata,
    /// Whether `server` is the 2025-03-26 defaults rather than a document.
    pub(crate) defaults: bool,
}

/// Discover the authorization server of `server_url` after `challenge`.
pub(crate) async fn discover(http: &Fetcher, server_url: &Url, challenge: &Challenge) -> Result<Discovery, Error> {
    let Some(resource) = resource_metadata(http, server_url, challenge).await? else {
        return legacy(http, server_url).await;
    };
    if !resource_matches(server_url, &resource.resource) {
        return Err(invalid(format!(
            "the protected resource metadata is for `{}`, not for `{server_url}`: refusing to get a token for it",
            resource.resource
        )));
    }
    let issuer = resource
        .authorization_servers
        .first()
        .ok_or_else(|| invalid("the protected resource metadata names no authorization server"))?;
    let server = server_metadata(http, issuer)
        .await?
        .ok_or_else(|| failed(format!("no authorization server metadata found for `{issuer}`")))?;
    Ok(Discovery {
        resource: Some(resource.resource),
        resource_scopes: resource.scopes_supported,
        server,
        defaults: false,
    })
}

/// The resource metadata: the challenge's `resource_metadata`, else the
/// path-inserted well-known URL, else the root one (RFC 9728 §3.1).
async fn resource_metadata(
    http: &Fetcher,
    server_url: &Url,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, Error> {
    let named = challenge.resource_metadata.as_deref().and_then(|u| server_url.join(u).ok());
    for url in named.into_iter().chain(resource_metadata_urls(server_url)) {
        let answer = fetch::get(http, &url, "protected resource metadata").await?;
        if !answer.status.is_success() {
            continue;
        }
        match serde_json::from_slice::<ResourceMetadata>(&answer.body) {
            Ok(metadata) => return Ok(Some(metadata)),
            Err(error) => {
                let url = crate::error::redact_url(url.as_str());
                return Err(invalid(format!("the protected resource metadata at `{url}` is not valid: {error}")));
            }
        }
    }
    Ok(None)
}

/// The first authorization server metadata of `issuer`'s well-known URLs
/// whose `issuer` is `issuer`; a document naming another issuer is an
/// error (RFC 8414 §3.3), whatever the other URLs hold.
async fn server_metadata(http: &Fetcher, issuer: &str) -> Result<Option<ServerMetadata>, Error> {
    let url =
        Url::parse(issuer).map_err(|e| invalid(format!("the authorization server `{issuer}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.query().is_some() || url.fragment().is_some() {
        return Err(invalid(format!("the authorization server `{issuer}` is not an issuer identifier")));
    }
    for url in server_metadata_urls(&url) {
        let answer = fetch::get(http, &url, "authorization server metadata").await?;
        if !answer.status.is_success() {
            continue;
        }
        let metadata = match serde_json::from_slice::<ServerMetadata>(&answer.body) {
            Ok(metadata) => metadata,
            Err(error) => {
                tracing::debug!(%url, %error, "authorization: not authorization server metadata");
                continue;
            }
        };
        if metadata.issuer != issuer {
            return Err(invalid(format!(
                "the authorization server metadata at `{url}` names issuer `{}`, not `{issuer}`: refusing to use it",
                metadata.issuer
            )));
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// No resource metadata: the 2025-03-26 rules. The server's origin is the
/// authorization server; its metadata is at the root well-known URLs, or
/// its endpoints are `/authorize`, `/token` and `/register`.
async fn legacy(http: &Fetcher, server_url: &Url) -> Result<Discovery, Error> {
    let origin = server_url.origin().ascii_serialization();
    tracing::debug!(%origin, "authorization: no protected resource metadata; using the server's origin");
    if let Some(server) = server_metadata(http, &origin).await? {
        return Ok(Discovery { resource: None, resource_scopes: None, server, defaults: false });
    }
    let server = ServerMetadata {
        issuer: origin.clone(),
        authorization_endpoint: Some(format!("{origin}/authorize")),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
        scopes_supported: None,
        code_challenge_methods_supported: None,
        token_endpoint_auth_methods_supported: None,
        client_id_metadata_document_supported: false,
        authorization_response_iss_parameter_supported: false,
        dpop_signing_alg_values_supported: None,
    };
    Ok(Discovery { resource: None, resource_scopes: None, server, defaults: true })
}

/// `/.well-known/oauth-protected-resource` with the server's path
/// inserted, then at the root.
pub(crate) fn resource_metadata_urls(server_url: &Url) -> Vec<Url> {
    let path = server_url.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(at(server_url, &format!("/.well-known/oauth-protected-resource{path}")));
    }
    urls.push(at(server_url, "/.well-known/oauth-protected-resource"));
    urls
}

/// The MCP spec's order: for an issuer with a path, RFC 8414 and OpenID
/// Connect with the path inserted, then OpenID Connect with it appended;
/// for one without, RFC 8414 then OpenID Connect.
pub(crate) fn server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![at(issuer, "/.well-known/oauth-authorization-server"), at(issuer, "/.well-known/openid-configuration")]
    } else {
        vec![
            at(issuer, &format!("/.well-known/oauth-authorization-server{path}")),
            at(issuer, &format!("/.well-known/openid-configuration{path}")),
            at(issuer, &format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

fn at(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// Whether resource metadata naming `resource` may be used for
/// `server_url`: the same origin, and a path that is the server's or a
/// parent of it (a server may publish one resource for all its paths).
pub(crate) fn resource_matches(server_url: &Url, resource: &str) -> bool {
    let Ok(resource) = Url::parse(resource) else { return false };
    if resource.origin() != server_url.origin() || resource.fragment().is_some() {
        return false;
    }
    let prefix = resource.path().trim_end_matches('/');
    let path = server_url.path().trim_end_matches('/');
    path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn resource_metadata_path_insertion_then_root() {
        assert_eq!(
            strings(resource_metadata_urls(&url("https://mcp.example.com/tenant/mcp/?x=1"))),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            strings(resource_metadata_urls(&url("http://localhost:3000"))),
            ["http://localhost:3000/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn server_metadata_order_of_the_spec() {
        assert_eq!(
            strings(server_metadata_urls(&url("https://auth.example.com/tenant1"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            strings(server_metadata_urls(&url("https://auth.example.com"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn resource_must_be_this_server_or_a_parent() {
        let server = url("http://localhost:3000/mcp");
        assert!(resource_matches(&server, "http://localhost:3000/mcp"));
        assert!(resource_matches(&server, "http://localhost:3000"));
        assert!(resource_matches(&server, "http://LOCALHOST:3000/"));
        assert!(!resource_matches(&server, "https://evil.example.com/mcp"));
        assert!(!resource_matches(&server, "http://localhost:3001/mcp"));
        assert!(!resource_matches(&server, "https://localhost:3000/mcp"));
        assert!(!resource_matches(&server, "http://localhost:3000/mc"));
        assert!(!resource_matches(&server, "http://localhost:3000/mcp/other"));
        assert!(!resource_matches(&server, "http://localhost:3000/mcp#frag"));
        assert!(!resource_matches(&server, "not a url"));
    }

    #[test]
    fn metadata_documents_parse_leniently_but_not_blindly() {
        let metadata: ServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://as", "token_endpoint": "https://as/token", "extra": [1, 2]
        }))
        .unwrap();
        assert!(!metadata.authorization_response_iss_parameter_supported);
        assert!(metadata.code_challenge_methods_supported.is_none());
        let bad = serde_json::from_value::<ServerMetadata>(serde_json::json!({ "issuer": 7, "token_endpoint": "x" }));
        assert!(bad.is_err());
        let bad = serde_json::from_value::<ResourceMetadata>(
            serde_json::json!({ "resource": "x", "scopes_supported": "a b" }),
        );
        assert!(bad.is_err());
    }
}
