//! Client ID metadata documents: a `client_id` that is an `https` URL
//! names the client's own description, which the proxy fetches. The URL
//! is someone else's, so the fetch is guarded against server-side
//! request forgery: only public addresses (no private, loopback,
//! link-local, shared or multicast ones unless configured), the address
//! checked is the one connected to (no second DNS answer), no redirects,
//! at most 5 KB within 5 seconds.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use mcp_runtime_client::ssrf::is_public;
use reqwest::Url;
use serde_json::Value;

use super::clients::redirect_uri_problem;
use super::records::Client;

/// The largest document read (the draft's suggested limit).
const MAX_DOCUMENT: usize = 5 * 1024;
/// How long a fetched document is used before it is fetched again.
const KEPT_FOR: Duration = Duration::from_secs(10 * 60);

/// Fetches metadata documents.
pub(crate) struct Fetcher {
    allow_private: bool,
}

impl Fetcher {
    pub(crate) fn new(allow_private: bool) -> Result<Fetcher, String> {
        Ok(Fetcher { allow_private })
    }

    /// The client the document at `client_id` describes, and how long to
    /// keep it; `Err` says why it is refused (for the log).
    pub(crate) async fn fetch(&self, client_id: &str) -> Result<(Client, Duration), String> {
        let url = self.check_url(client_id)?;
        let host = url.host_str().ok_or("no host")?.to_owned();
        let port = url.port_or_known_default().ok_or("no port")?;
        let address = self.resolve(&host, port).await?;
        let http = reqwest::Client::builder()
            .resolve(&host, address)
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        let mut response = http
            .get(url.clone())
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| format!("fetching {client_id}: {}", e.without_url()))?;
        if !response.status().is_success() {
            return Err(format!("{client_id} answered {} (redirects are not followed)", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) =
            response.chunk().await.map_err(|e| format!("reading {client_id}: {}", e.without_url()))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(format!("{client_id} is larger than {MAX_DOCUMENT} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        let Ok(Value::Object(document)) = serde_json::from_slice::<Value>(&body) else {
            return Err(format!("{client_id} is not a JSON object"));
        };
        client_of(client_id, &document).map(|client| (client, KEPT_FOR))
    }

    /// The draft's rules for the URL: `https` with a path, no fragment,
    /// no credentials, no dot segments.
    fn check_url(&self, client_id: &str) -> Result<Url, String> {
        let url = Url::parse(client_id).map_err(|_| "not a URL".to_owned())?;
        let loopback_http = self.allow_private && url.scheme() == "http";
        if url.scheme() != "https" && !loopback_http {
            return Err("a client ID metadata document must be https".into());
        }
        if url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
            return Err("the client id has a fragment or credentials".into());
        }
        if url.path() == "/" || client_id.contains("/./") || client_id.contains("/../") {
            return Err("the client id must have a path, without dot segments".into());
        }
        Ok(url)
    }

    /// The first address of `host` that may be connected to.
    async fn resolve(&self, host: &str, port: u16) -> Result<SocketAddr, String> {
        let addresses: Vec<SocketAddr> = match host.trim_matches(['[', ']']).parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => tokio::time::timeout(Duration::from_secs(3), tokio::net::lookup_host((host, port)))
                .await
                .map_err(|_| format!("resolving {host} took too long"))?
                .map_err(|e| format!("resolving {host}: {e}"))?
                .collect(),
        };
        addresses
            .into_iter()
            .find(|address| self.allow_private || is_public(address.ip()))
            .ok_or_else(|| format!("{host} has no public address"))
    }
}

/// The client a document describes, if it is a valid one for `client_id`.
fn client_of(client_id: &str, document: &serde_json::Map<String, Value>) -> Result<Client, String> {
    if document.get("client_id").and_then(Value::as_str) != Some(client_id) {
        return Err(format!("the document's `client_id` is not {client_id}"));
    }
    if document.contains_key("client_secret") {
        return Err("a metadata document must not hold a secret".into());
    }
    match document.get("token_endpoint_auth_method").and_then(Value::as_str) {
        None | Some("none") => {}
        Some(other) => return Err(format!("token_endpoint_auth_method {other} is not supported here")),
    }
    let redirect_uris: Vec<String> = document
        .get("redirect_uris")
        .and_then(Value::as_array)
        .map(|uris| uris.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if redirect_uris.is_empty() || redirect_uris.len() > 10 {
        return Err("the document must list 1 to 10 redirect URIs".into());
    }
    if let Some(problem) = redirect_uris.iter().find_map(|uri| redirect_uri_problem(uri)) {
        return Err(problem);
    }
    let client_name = document.get("client_name").and_then(Value::as_str).map(|n| n.chars().take(100).collect());
    Ok(Client {
        client_id: client_id.to_owned(),
        redirect_uris,
        client_name,
        secret_hash: None,
        metadata_document: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn urls_at_private_addresses_are_refused_before_any_request() {
        let fetcher = Fetcher::new(false).unwrap();
        for url in [
            "https://127.0.0.1/client.json",
            "https://[::1]/c",
            "https://169.254.169.254/latest/meta-data",
            "https://localhost/client.json",
            // 6to4 and NAT64 forms of 127.0.0.1, an IPv4-mapped 10.0.0.1.
            "https://[2002:7f00:1::1]/c",
            "https://[64:ff9b::7f00:1]/c",
            "https://[::ffff:10.0.0.1]/c",
        ] {
            let refused = fetcher.fetch(url).await.unwrap_err();
            assert!(refused.contains("no public address"), "{url}: {refused}");
        }
        assert!(fetcher.fetch("http://93.184.216.34/c").await.unwrap_err().contains("https"));
        assert!(fetcher.fetch("https://93.184.216.34/").await.unwrap_err().contains("path"));
        assert!(fetcher.fetch("https://u:p@93.184.216.34/c").await.unwrap_err().contains("credentials"));
    }

    #[test]
    fn a_document_must_name_itself_and_hold_no_secret() {
        let id = "https://app.example.com/client.json";
        let doc = |v: Value| v.as_object().unwrap().clone();
        let good =
            doc(serde_json::json!({"client_id": id, "client_name": "App", "redirect_uris": ["http://127.0.0.1/cb"]}));
        assert_eq!(client_of(id, &good).unwrap().client_name.as_deref(), Some("App"));
        let other =
            doc(serde_json::json!({"client_id": "https://evil.example/c", "redirect_uris": ["http://127.0.0.1/cb"]}));
        assert!(client_of(id, &other).is_err());
        let secret =
            doc(serde_json::json!({"client_id": id, "client_secret": "s", "redirect_uris": ["http://127.0.0.1/cb"]}));
        assert!(client_of(id, &secret).is_err());
        let js = doc(serde_json::json!({"client_id": id, "redirect_uris": ["javascript:alert(1)"]}));
        assert!(client_of(id, &js).is_err());
    }
}
