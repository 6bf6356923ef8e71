//! Who may talk to the endpoint: the `Host` and `Origin` checks that stop
//! DNS rebinding, and the optional bearer token.

use axum::http::HeaderMap;
use axum::http::header::{AUTHORIZATION, HOST, ORIGIN};
use subtle::ConstantTimeEq;

/// Names a loopback server answers to, whatever the port.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Why a `Host` is refused, naming the setting that allows it: the one who
/// reads it is deploying the server (a container reached by its service
/// name is the usual case), not attacking it.
pub(crate) const HOST_REFUSED: &str = "Host header is not allowed: the server answers only to the names in \
     HttpOptions::allowed_hosts (by default localhost, 127.0.0.1 and [::1]); add the name clients use, \
     e.g. HttpOptions::new().allowed_hosts([\"mcp\"])";

/// Why an `Origin` is refused, naming the setting that allows it.
pub(crate) const ORIGIN_REFUSED: &str = "Origin is not allowed: web pages may call the server only from the \
     origins in HttpOptions::allowed_origins (by default pages served from localhost, 127.0.0.1 and [::1])";

/// Why a request was turned away before it reached the protocol.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// 403: the `Host` or `Origin` is not on the allow-list.
    Forbidden(&'static str),
    /// 401: the bearer token is missing (`false`) or wrong (`true`).
    Unauthorized { presented: bool },
}

/// A list of allowed hosts or origins: `None` allows anything.
pub(crate) type AllowList = Option<Vec<String>>;

/// The default hosts: the loopback names.
pub(crate) fn loopback_hosts() -> AllowList {
    Some(LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect())
}

/// The default origins: web pages served from loopback, any port, over
/// http or https.
pub(crate) fn loopback_origins() -> AllowList {
    Some(LOOPBACK_HOSTS.iter().flat_map(|h| [format!("http://{h}"), format!("https://{h}")]).collect())
}

/// Check the request's `Host`, `Origin` and bearer token, in that order (a
/// rebinding page learns nothing about the token).
pub(crate) fn check(
    headers: &HeaderMap,
    hosts: &AllowList,
    origins: &AllowList,
    token: Option<&str>,
) -> Result<(), Refusal> {
    if let Some(hosts) = hosts {
        // Split once: every request is checked against each allowed name.
        let host = split_port(headers.get(HOST).and_then(|h| h.to_str().ok()).unwrap_or(""));
        if !hosts.iter().any(|allowed| authority_matches(allowed, host)) {
            return Err(Refusal::Forbidden(HOST_REFUSED));
        }
    }
    // Requests from programs carry no `Origin`; browsers always send one
    // on a cross-origin request, which is what rebinding needs.
    if let (Some(origins), Some(origin)) = (origins, headers.get(ORIGIN)) {
        let origin = origin.to_str().unwrap_or("");
        if !origins.iter().any(|allowed| origin_matches(allowed, origin)) {
            return Err(Refusal::Forbidden(ORIGIN_REFUSED));
        }
    }
    if let Some(token) = token {
        let presented = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(bearer);
        let Some(presented) = presented else { return Err(Refusal::Unauthorized { presented: false }) };
        if !bool::from(presented.as_bytes().ct_eq(token.as_bytes())) {
            return Err(Refusal::Unauthorized { presented: true });
        }
    }
    Ok(())
}

/// The token of an `Authorization: Bearer <token>` value (the scheme is
/// case-insensitive).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// `host[:port]` split; IPv6 literals keep their brackets.
fn split_port(authority: &str) -> (&str, Option<&str>) {
    let port_at = if authority.starts_with('[') { authority.find("]:").map(|i| i + 1) } else { authority.rfind(':') };
    match port_at {
        Some(i) => (&authority[..i], Some(&authority[i + 1..])),
        None => (authority, None),
    }
}

/// An allowed host without a port allows every port.
fn host_matches(allowed: &str, host: &str) -> bool {
    authority_matches(allowed, split_port(host))
}

/// [`host_matches`], with the host already split from its port.
fn authority_matches(allowed: &str, (name, port): (&str, Option<&str>)) -> bool {
    let (allowed_name, allowed_port) = split_port(allowed);
    !name.is_empty() && allowed_name.eq_ignore_ascii_case(name) && allowed_port.is_none_or(|p| Some(p) == port)
}

/// An allowed origin without a port allows every port.
fn origin_matches(allowed: &str, origin: &str) -> bool {
    let (Some((allowed_scheme, allowed_host)), Some((scheme, host))) =
        (allowed.split_once("://"), origin.split_once("://"))
    else {
        return allowed == origin;
    };
    allowed_scheme.eq_ignore_ascii_case(scheme) && host_matches(allowed_host.trim_end_matches('/'), host)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs.iter().map(|(k, v)| (k.parse().unwrap(), HeaderValue::from_static(v))).collect()
    }

    #[test]
    fn loopback_hosts_on_any_port_pass_and_other_names_do_not() {
        let hosts = loopback_hosts();
        for host in ["localhost:3000", "127.0.0.1:8080", "[::1]:9", "LOCALHOST", "localhost"] {
            assert_eq!(check(&headers(&[("host", host)]), &hosts, &None, None), Ok(()), "{host}");
        }
        for host in ["evil.example", "evil.example:3000", "localhost.evil.example", "127.0.0.2:80", ""] {
            let refused = check(&headers(&[("host", host)]), &hosts, &None, None);
            assert_eq!(refused, Err(Refusal::Forbidden(HOST_REFUSED)), "{host}");
        }
        assert!(check(&HeaderMap::new(), &hosts, &None, None).is_err(), "no Host at all");
        let pinned = Some(vec!["mcp.example.com:443".to_owned()]);
        assert!(check(&headers(&[("host", "mcp.example.com:443")]), &pinned, &None, None).is_ok());
        assert!(check(&headers(&[("host", "mcp.example.com:80")]), &pinned, &None, None).is_err());
    }

    #[test]
    fn origins_are_checked_only_when_sent() {
        let origins = loopback_origins();
        assert!(check(&HeaderMap::new(), &None, &origins, None).is_ok());
        assert!(check(&headers(&[("origin", "http://localhost:6274")]), &None, &origins, None).is_ok());
        assert!(check(&headers(&[("origin", "https://127.0.0.1")]), &None, &origins, None).is_ok());
        for origin in ["http://evil.example", "null", "http://localhost.evil.example", "ftp://localhost"] {
            let refused = check(&headers(&[("origin", origin)]), &None, &origins, None);
            assert_eq!(refused, Err(Refusal::Forbidden(ORIGIN_REFUSED)), "{origin}");
        }
        let app = Some(vec!["https://app.example.com".to_owned()]);
        assert!(check(&headers(&[("origin", "https://app.example.com")]), &None, &app, None).is_ok());
        assert!(check(&headers(&[("origin", "http://app.example.com")]), &None, &app, None).is_err());
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let token = Some("s3cret");
        assert_eq!(check(&HeaderMap::new(), &None, &None, token), Err(Refusal::Unauthorized { presented: false }));
        let wrong = headers(&[("authorization", "Bearer s3cre")]);
        assert_eq!(check(&wrong, &None, &None, token), Err(Refusal::Unauthorized { presented: true }));
        let basic = headers(&[("authorization", "Basic s3cret")]);
        assert_eq!(check(&basic, &None, &None, token), Err(Refusal::Unauthorized { presented: false }));
        assert!(check(&headers(&[("authorization", "bearer s3cret")]), &None, &None, token).is_ok());
    }
}
