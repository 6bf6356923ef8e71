//! The URL rules of OAuth settings: absolute, over TLS, compared in canonical form.

use reqwest::Url;

/// `what` as an absolute URL clients and we can trust: `https` (or `http`
/// on a loopback host, for tests), without a fragment.
pub(super) fn absolute(what: &str, url: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|e| format!("the {what} {url:?} is not an absolute URL: {e}"))?;
    if parsed.fragment().is_some() {
        return Err(format!("the {what} {url:?} has a fragment"));
    }
    check_secure(&parsed).map_err(|why| format!("the {what} {url:?} {why}"))?;
    Ok(parsed)
}

/// OAuth 2.1 §1.5: tokens and keys travel over TLS only.
pub(super) fn check_secure(url: &Url) -> Result<(), String> {
    let loopback = url.host_str().is_some_and(|host| {
        host.eq_ignore_ascii_case("localhost")
            || host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    });
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err("is not https (plain http is allowed on loopback hosts only)".to_owned()),
    }
}

/// A URL in the form RFC 8707 and the MCP spec call canonical: scheme and
/// host in lowercase, no default port, no trailing slash; `None` for a
/// value that is no URL (an API identifier is compared exactly).
pub(super) fn canonical(uri: &str) -> Option<String> {
    let url = Url::parse(uri).ok()?;
    let host = url.host_str()?;
    let mut canonical = format!("{}://{host}", url.scheme());
    if let Some(port) = url.port() {
        canonical.push_str(&format!(":{port}"));
    }
    canonical.push_str(url.path().trim_end_matches('/'));
    if let Some(query) = url.query() {
        canonical.push('?');
        canonical.push_str(query);
    }
    Some(canonical)
}
