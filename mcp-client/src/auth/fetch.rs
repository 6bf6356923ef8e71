//! The OAuth client's own HTTP: JSON documents read with a size limit,
//! forms posted, and the errors a user can act on.

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{StatusCode, Url};
use serde_json::Value;

use super::guard::Fetcher;
use crate::Error;
use crate::wire::http::{Unread, read_limited};

/// The largest metadata, registration or token document read: far above
/// any real one, small enough that a hostile server cannot exhaust memory.
const MAX_BODY: usize = 1 << 20;

/// An authorization step that failed: the message says which and why.
pub(crate) fn failed(message: impl std::fmt::Display) -> Error {
    Error::Transport(format!("authorization: {message}"))
}

/// A server's document that breaks the rules (a wrong issuer, a resource
/// for another server): not retried, the caller should not trust it.
pub(crate) fn invalid(message: impl std::fmt::Display) -> Error {
    Error::Protocol(format!("authorization: {message}"))
}

/// A response: its status, (up to [`MAX_BODY`]) its body, and the DPoP
/// nonce it carried (RFC 9449 §8).
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) body: Vec<u8>,
    pub(crate) dpop_nonce: Option<String>,
}

impl Answer {
    pub(crate) fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The `error` code of an OAuth error body.
    pub(crate) fn error_code(&self) -> Option<String> {
        self.json()?.get("error")?.as_str().map(str::to_owned)
    }

    /// `error: error_description` of an OAuth error body, or the status.
    pub(crate) fn oauth_error(&self) -> String {
        let json = self.json();
        let field = |name: &str| json.as_ref().and_then(|j| j.get(name)).and_then(Value::as_str).map(clip);
        match (field("error"), field("error_description")) {
            (Some(error), Some(description)) => format!("HTTP {}: {error}: {description}", self.status.as_u16()),
            (Some(error), None) => format!("HTTP {}: {error}", self.status.as_u16()),
            _ => format!("HTTP {}", self.status.as_u16()),
        }
    }
}

fn clip(text: &str) -> String {
    let mut printable = text.chars().filter(|c| !c.is_control());
    let clipped: String = printable.by_ref().take(200).collect();
    if printable.next().is_some() { format!("{clipped}…") } else { clipped }
}

/// Send `request` and read its answer.
pub(crate) async fn send(request: reqwest::RequestBuilder, what: &str) -> Result<Answer, Error> {
    let response = request.send().await.map_err(|e| failed(format!("{what}: {}", crate::error::http_failure(e))))?;
    let status = response.status();
    let dpop_nonce = response.headers().get(super::dpop::DPOP_NONCE).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body = read_limited(response, MAX_BODY).await.map_err(|unread| match unread {
        Unread::TooLarge(_) => failed(format!("{what}: the answer is larger than {MAX_BODY} bytes")),
        Unread::Failed(error) => failed(format!("{what}: {}", crate::error::http_failure(error))),
    })?;
    Ok(Answer { status, body, dpop_nonce })
}

/// GET a JSON document a server named, if it may be fetched.
pub(crate) async fn get(http: &Fetcher, url: &Url, what: &str) -> Result<Answer, Error> {
    let client = http.client_for(url, what)?;
    tracing::debug!(%url, "authorization: fetching {what}");
    send(client.get(url.clone()).header(ACCEPT, "application/json"), what).await
}

/// HTTP Basic client authentication (RFC 6749 §2.3.1): each part
/// form-encoded first.
pub(crate) fn basic(request: reqwest::RequestBuilder, id: &str, secret: &str) -> reqwest::RequestBuilder {
    let id = encode(&[("", id)]);
    let secret = encode(&[("", secret)]);
    request.basic_auth(&id[1..], Some(&secret[1..]))
}

/// POST `pairs` as `application/x-www-form-urlencoded`.
pub(crate) fn form(request: reqwest::RequestBuilder, pairs: &[(&str, &str)]) -> reqwest::RequestBuilder {
    request
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(ACCEPT, "application/json")
        .body(encode(pairs))
}

/// The form encoding of `pairs` (the same as a URL query's).
pub(crate) fn encode(pairs: &[(&str, &str)]) -> String {
    let mut url = Url::parse("http://localhost/").unwrap_or_else(|_| unreachable!("a constant URL"));
    url.query_pairs_mut().extend_pairs(pairs);
    url.query().unwrap_or("").to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding() {
        assert_eq!(encode(&[("a", "b c"), ("x", "é&=/:")]), "a=b+c&x=%C3%A9%26%3D%2F%3A");
        assert_eq!(encode(&[]), "");
    }

    #[test]
    fn oauth_errors_are_reported_without_control_characters() {
        let answer = Answer {
            status: StatusCode::BAD_REQUEST,
            body: br#"{"error":"invalid_grant","error_description":"bad\ncode"}"#.to_vec(),
            dpop_nonce: None,
        };
        assert_eq!(answer.oauth_error(), "HTTP 400: invalid_grant: badcode");
        let answer = Answer { status: StatusCode::BAD_GATEWAY, body: b"<html>".to_vec(), dpop_nonce: None };
        assert_eq!(answer.oauth_error(), "HTTP 502");
    }
}
