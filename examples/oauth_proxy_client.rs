//! The client crate signing in to a server behind an OAuth proxy, with
//! the user's part handed to whoever runs it: it prints `authorize URL`
//! on stdout and reads the final redirect (the URL the browser was sent
//! back to) from stdin. CI drives it headless (`.ci/oauth-proxy-oidc.mjs`);
//! a person can paste the redirect from a browser's address bar.
//!
//! ```sh
//! cargo run --example oauth_proxy_client -- http://127.0.0.1:8000/mcp
//! ```
//!
//! It registers itself (dynamic registration), calls `whoami` twice and
//! prints each answer as `whoami JSON`; a token that expires within 30
//! seconds is refreshed before each call.

use std::io::Write;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use mcp_runtime_client::auth::{OAuth, UserAgent};
use mcp_runtime_client::{Client, Error};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The user, over stdin and stdout.
struct Stdio;

impl UserAgent for Stdio {
    fn authorize<'a>(&'a self, authorization_url: &'a str) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            println!("authorize {authorization_url}");
            std::io::stdout().flush().map_err(|e| Error::Transport(e.to_string()))?;
            let mut line = String::new();
            BufReader::new(tokio::io::stdin())
                .read_line(&mut line)
                .await
                .map_err(|e| Error::Transport(e.to_string()))?;
            Ok(line.trim().to_owned())
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).ok_or("give the server's URL")?;
    let oauth = OAuth::builder(&url)
        .client_name("mcp-runtime-client")
        .redirect_uri("http://127.0.0.1:1/callback")
        .user_agent(Stdio)
        .build()?;
    let client = Client::builder().authorization(Arc::new(oauth)).http(&url).await?;
    for _ in 0..2 {
        let me: Value = client.call_structured("whoami", json!({})).await?;
        println!("whoami {me}");
    }
    client.close().await;
    Ok(())
}
