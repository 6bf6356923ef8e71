//! What a browser needs to use the endpoint from a page of another origin
//! that the [`guard`](super::guard) allows: the answer to its preflight,
//! and the headers that let the page read each answer. Only requests that
//! carry an `Origin` (browsers) are touched, so programs pay nothing.
//!
//! Written here rather than taken from a CORS middleware: the decision
//! which origins may call is the guard's, made once per request, and a
//! layer would make it again (and add its headers to every answer).

use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_HEADERS, ALLOW, VARY,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// The methods the endpoint answers.
pub(super) const ENDPOINT_METHODS: HeaderValue = HeaderValue::from_static("GET, POST, DELETE, OPTIONS");
/// The answer headers a page must be able to read: the session it is in,
/// the OAuth challenge (where its client finds the metadata), and how long
/// to wait when the server is full.
const EXPOSED: HeaderValue =
    HeaderValue::from_static("mcp-session-id, mcp-protocol-version, www-authenticate, retry-after");
/// How long a browser may keep a preflight's answer (Chromium keeps it at
/// most two hours).
const MAX_AGE: HeaderValue = HeaderValue::from_static("7200");
/// Chromium asks before a public page reaches a private or loopback
/// address; an origin the server allows is one it meant to serve.
const REQUEST_PRIVATE_NETWORK: HeaderName = HeaderName::from_static("access-control-request-private-network");
const ALLOW_PRIVATE_NETWORK: HeaderName = HeaderName::from_static("access-control-allow-private-network");

/// The answer to `OPTIONS`: the `methods` the resource answers, and
/// whatever headers the browser says the request will carry (the origin is
/// already allowed, and the request itself is checked as any other).
/// Without an `Origin` it only lists the methods, for a program that asks.
pub(super) fn preflight(headers: &HeaderMap, methods: HeaderValue) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let answer = response.headers_mut();
    answer.insert(ALLOW, methods.clone());
    answer.insert(ACCESS_CONTROL_ALLOW_METHODS, methods);
    if let Some(asked) = headers.get(ACCESS_CONTROL_REQUEST_HEADERS) {
        answer.insert(ACCESS_CONTROL_ALLOW_HEADERS, asked.clone());
    }
    if headers.get(REQUEST_PRIVATE_NETWORK).is_some_and(|v| v == "true") {
        answer.insert(ALLOW_PRIVATE_NETWORK, HeaderValue::from_static("true"));
    }
    answer.insert(ACCESS_CONTROL_MAX_AGE, MAX_AGE);
    response
}

/// Let the page of `origin` (already allowed) read `response`. The answer
/// names the origin rather than `*`, so it says `Vary: Origin` for caches.
pub(super) fn allow(response: &mut Response, origin: HeaderValue) {
    let headers = response.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.append(VARY, HeaderValue::from_static("origin"));
    headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
}

/// Let any page read `response`: for public documents (the OAuth
/// metadata, the server card), which a browser client fetches before it
/// has a token.
pub(super) fn public(response: &mut Response) {
    response.headers_mut().insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preflight_allows_the_methods_and_the_headers_asked_for() {
        let mut asked = HeaderMap::new();
        asked.insert(ACCESS_CONTROL_REQUEST_HEADERS, HeaderValue::from_static("content-type, mcp-session-id"));
        asked.insert(REQUEST_PRIVATE_NETWORK, HeaderValue::from_static("true"));
        let response = preflight(&asked, ENDPOINT_METHODS);
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        let headers = response.headers();
        assert_eq!(headers[ACCESS_CONTROL_ALLOW_METHODS], "GET, POST, DELETE, OPTIONS");
        assert_eq!(headers[ACCESS_CONTROL_ALLOW_HEADERS], "content-type, mcp-session-id");
        assert_eq!(headers[ALLOW_PRIVATE_NETWORK], "true");
        assert_eq!(headers[ALLOW], "GET, POST, DELETE, OPTIONS");

        let plain = preflight(&HeaderMap::new(), ENDPOINT_METHODS);
        assert!(plain.headers().get(ACCESS_CONTROL_ALLOW_HEADERS).is_none());
        assert!(plain.headers().get(ALLOW_PRIVATE_NETWORK).is_none());
    }

    #[test]
    fn an_allowed_answer_names_the_origin_and_exposes_the_session() {
        let mut response = StatusCode::OK.into_response();
        response.headers_mut().insert(VARY, HeaderValue::from_static("accept"));
        allow(&mut response, HeaderValue::from_static("https://app.example.com"));
        let headers = response.headers();
        assert_eq!(headers[ACCESS_CONTROL_ALLOW_ORIGIN], "https://app.example.com");
        let vary: Vec<_> = headers.get_all(VARY).iter().collect();
        assert_eq!(vary, ["accept", "origin"], "a Vary already there is kept");
        assert!(headers[ACCESS_CONTROL_EXPOSE_HEADERS].to_str().unwrap().contains("mcp-session-id"));
    }
}
