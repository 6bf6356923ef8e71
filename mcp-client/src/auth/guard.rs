//! Fetching URLs a server named, safely (SSRF): the OAuth client follows
//! metadata, token and registration endpoints that the MCP server and its
//! authorization server name, so a hostile one could point it at this
//! machine or its network. URLs on the origin the application gave (the
//! MCP server's own) and endpoints the application configured are
//! trusted; any other target must be a public address (by name, checked
//! when it resolves, so a name that changes its answer is caught too)
//! unless private addresses are allowed; redirects stay on their host.
//! Through a proxy from the environment the proxy resolves the names (only
//! a proxy named by host is checked here, and literal addresses in URLs).

use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::redirect::Policy;

use super::fetch::invalid;
use crate::Error;
use crate::ssrf::{PublicOnly, is_public, literal_ip};

/// What allows what the guard refuses.
const HINT: &str = "OAuthBuilder::allow_private_addresses allows it";

/// How long one authorization exchange may take, end to end.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Redirects followed, at most.
const MAX_REDIRECTS: usize = 5;

/// The HTTP clients of the OAuth client: one for what the application
/// named, one for what a server named.
#[derive(Clone)]
pub(crate) struct Fetcher {
    trusted: reqwest::Client,
    guarded: reqwest::Client,
    /// The MCP server's origin, as the application gave it.
    origin: String,
    allow_private: bool,
}

impl Fetcher {
    /// The built-in clients, for the MCP server at `server`.
    pub(crate) fn new(server: &Url, allow_private: bool) -> Result<Fetcher, Error> {
        let setup = |e: reqwest::Error| Error::transport(format!("authorization: HTTP setup: {e}"));
        let trusted = reqwest::Client::builder()
            .redirect(same_origin_redirects())
            .timeout(TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(setup)?;
        let mut guarded = reqwest::Client::builder()
            .redirect(same_host_redirects())
            .timeout(TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT);
        if !allow_private {
            guarded = guarded.dns_resolver(Arc::new(PublicOnly::new(HINT)));
        }
        let guarded = guarded.build().map_err(setup)?;
        Ok(Fetcher { trusted, guarded, origin: server.origin().ascii_serialization(), allow_private })
    }

    /// The application's own client for everything: its resolver and
    /// redirect policy are its own; literal addresses are still checked.
    pub(crate) fn custom(server: &Url, http: reqwest::Client, allow_private: bool) -> Fetcher {
        Fetcher { trusted: http.clone(), guarded: http, origin: server.origin().ascii_serialization(), allow_private }
    }

    /// The client for an endpoint the application configured itself.
    pub(crate) fn trusted(&self) -> &reqwest::Client {
        &self.trusted
    }

    /// The client to fetch `url` with, `what` it is, if it may be fetched.
    pub(crate) fn client_for(&self, url: &Url, what: &str) -> Result<&reqwest::Client, Error> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid(format!("{what}: `{}` is not an http(s) URL", crate::error::redact_url(url.as_str()))));
        }
        if url.origin().ascii_serialization() == self.origin {
            return Ok(&self.trusted);
        }
        if !self.allow_private
            && let Some(ip) = literal_ip(url)
            && !is_public(ip)
        {
            return Err(refused(what, url, &ip.to_string()));
        }
        Ok(&self.guarded)
    }
}

fn refused(what: &str, url: &Url, address: &str) -> Error {
    invalid(format!(
        "{what}: refusing `{}`: {address} is a private, loopback or link-local address, which a server may not \
         send this client to ({HINT})",
        crate::error::redact_url(url.as_str())
    ))
}

/// Redirects within the same origin, a few at most.
fn same_origin_redirects() -> Policy {
    Policy::custom(|attempt| {
        let first = attempt.previous().first().map(Url::origin);
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if first.is_some_and(|origin| origin != attempt.url().origin()) {
            attempt.error("a redirect to another origin was refused")
        } else {
            attempt.follow()
        }
    })
}

/// Redirects within the same host (and never from https to http), a few
/// at most; the resolver checks where they lead.
fn same_host_redirects() -> Policy {
    Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first().cloned() else { return attempt.follow() };
        let downgrade = first.scheme() == "https" && attempt.url().scheme() != "https";
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if first.host_str() != attempt.url().host_str() || downgrade {
            attempt.error("a redirect to another host was refused")
        } else {
            attempt.follow()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_private_targets_are_refused_unless_allowed() {
        let server = Url::parse("https://mcp.example.com/mcp").unwrap();
        let fetcher = Fetcher::new(&server, false).unwrap();
        for url in
            ["http://127.0.0.1:8080/token", "http://[::1]/x", "http://169.254.169.254/latest", "http://10.0.0.1/"]
        {
            let error = fetcher.client_for(&Url::parse(url).unwrap(), "the token endpoint").err().unwrap();
            assert!(error.to_string().contains("allow_private_addresses"), "{error}");
        }
        assert!(fetcher.client_for(&Url::parse("https://auth.example.com/token").unwrap(), "x").is_ok());
        assert!(fetcher.client_for(&Url::parse("file:///etc/passwd").unwrap(), "x").is_err());
        // The application's own server is trusted, wherever it is.
        let local = Url::parse("http://127.0.0.1:3000/mcp").unwrap();
        let fetcher = Fetcher::new(&local, false).unwrap();
        assert!(fetcher.client_for(&Url::parse("http://127.0.0.1:3000/.well-known/x").unwrap(), "x").is_ok());
        assert!(fetcher.client_for(&Url::parse("http://127.0.0.1:3001/token").unwrap(), "x").is_err());
        let allowed = Fetcher::new(&server, true).unwrap();
        assert!(allowed.client_for(&Url::parse("http://127.0.0.1:8080/token").unwrap(), "x").is_ok());
    }
}
