//! A server that signs its users in at a company identity provider that
//! MCP clients cannot register with: the server is the authorization
//! server its clients see (metadata, registration, consent, its own
//! tokens) and sends users to the provider with one pre-registered
//! client. Its `whoami` tool shows who signed in.
//!
//! ```sh
//! UPSTREAM_PROVIDER=github UPSTREAM_CLIENT_ID=… UPSTREAM_CLIENT_SECRET=… \
//!   cargo run --example oauth_proxy --features oauth -- --http 127.0.0.1:8000
//! ```
//!
//! Register `{MCP_PUBLIC_URL}/oauth/callback` (by default
//! `http://127.0.0.1:8000/oauth/callback`) as the redirect URI of the
//! client at the provider. The environment it reads:
//! - `UPSTREAM_PROVIDER`: `github`, `google`, `entra` (with
//!   `UPSTREAM_TENANT`), `auth0` or `okta` (with `UPSTREAM_DOMAIN`), or
//!   `oidc` (the default: any OpenID provider, found from
//!   `UPSTREAM_ISSUER`, Keycloak included);
//! - `UPSTREAM_CLIENT_ID`, `UPSTREAM_CLIENT_SECRET`: the client at the provider;
//! - `MCP_PUBLIC_URL`: this server's public base URL (default
//!   `http://ADDR`), the issuer its clients see;
//! - `MCP_PROXY_SECRET`: 32 bytes or more that the signing and sealing
//!   keys come from (default: random, so tokens end with the process);
//! - `MCP_ALLOWED_HOSTS`: the `Host` names clients use, comma-separated,
//!   when not loopback;
//! - `MCP_ACCESS_TOKEN_SECONDS`: how long its access tokens live (default
//!   900).

use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, OAuthProxy, Upstream};
use mcp_runtime::{Claims, Server};
use serde_json::{Value, json};

/// Who signed in, as the server's token says: the provider's subject
/// and the claims it copied from the provider.
#[tool(read_only)]
fn whoami(claims: Claims) -> Json<Value> {
    Json(json!({ "subject": claims.subject(), "client": claims.client_id(), "claims": claims.all() }))
}

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("set {name}"))
}

async fn upstream() -> Result<Upstream, Box<dyn std::error::Error>> {
    let (id, secret) = (env("UPSTREAM_CLIENT_ID")?, env("UPSTREAM_CLIENT_SECRET")?);
    let provider = std::env::var("UPSTREAM_PROVIDER").unwrap_or_else(|_| "oidc".into());
    Ok(match provider.as_str() {
        "github" => Upstream::github(id, secret),
        "google" => Upstream::google(id, secret),
        "entra" => Upstream::entra(&env("UPSTREAM_TENANT")?, id, secret),
        "auth0" => Upstream::auth0(&env("UPSTREAM_DOMAIN")?, id, secret),
        "okta" => Upstream::okta(&env("UPSTREAM_DOMAIN")?, id, secret),
        "oidc" => Upstream::discover(&env("UPSTREAM_ISSUER")?, id, secret).await?,
        other => {
            return Err(
                format!("UPSTREAM_PROVIDER {other:?} is none of github, google, entra, auth0, okta, oidc").into()
            );
        }
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).init();
    let args: Vec<String> = std::env::args().collect();
    let addr = args.windows(2).find(|w| w[0] == "--http").map_or("127.0.0.1:8000", |w| w[1].as_str());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let public =
        std::env::var("MCP_PUBLIC_URL").unwrap_or_else(|_| format!("http://{}", listener.local_addr().unwrap()));
    let mut proxy = OAuthProxy::new(&public, upstream().await?);
    if let Ok(seconds) = std::env::var("MCP_ACCESS_TOKEN_SECONDS") {
        proxy = proxy.access_token_lifetime(std::time::Duration::from_secs(seconds.parse()?));
    }
    if let Ok(secret) = std::env::var("MCP_PROXY_SECRET") {
        proxy = proxy.secret(secret.into_bytes());
    }
    let mut options = HttpOptions::new().oauth_proxy(proxy);
    if let Ok(hosts) = std::env::var("MCP_ALLOWED_HOSTS") {
        options = options.allowed_hosts(hosts.split(',').map(str::trim).filter(|h| !h.is_empty()));
    }
    let server = Server::new("oauth-proxy-example", "1.0.0");
    server.serve_http_on(listener, options).await?;
    Ok(())
}
