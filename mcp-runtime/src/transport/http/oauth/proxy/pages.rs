//! The pages a user sees: the consent page naming the client, and the
//! error page for a request that cannot be sent back to its client. Both
//! refuse to be framed (no clickjacking of the consent button) and run
//! no script.

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// The cookie that binds a sign-in to the browser that began it.
pub(crate) const BROWSER_COOKIE: &str = "mcp_oauth_browser";

/// What the consent page shows.
pub(crate) struct Consent<'a> {
    pub(crate) client: &'a str,
    pub(crate) client_id: &'a str,
    pub(crate) redirect_host: &'a str,
    pub(crate) scopes: &'a [String],
    pub(crate) provider: &'a str,
    pub(crate) action: &'a str,
    pub(crate) transaction: &'a str,
    pub(crate) csrf: &'a str,
}

/// The consent page, with the browser cookie set.
pub(crate) fn consent(consent: &Consent, cookie: &str) -> Response {
    let scopes = if consent.scopes.is_empty() {
        "<li>access this server as you</li>".to_owned()
    } else {
        consent.scopes.iter().map(|s| format!("<li><code>{}</code></li>", escape(s))).collect()
    };
    let body = format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>Allow {client}?</title></head>
<body><main><h1>Allow <strong>{client}</strong> to use this server as you?</h1>
<p>Client id: <code>{client_id}</code>. After you allow it, you sign in with {provider}, and you are sent back to <strong>{redirect_host}</strong>.</p>
<p>It asks to:</p><ul>{scopes}</ul>
<p>Only allow clients you started yourself.</p>
<form method="post" action="{action}">
<input type="hidden" name="transaction" value="{transaction}">
<input type="hidden" name="csrf" value="{csrf}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></main></body></html>"#,
        client = escape(consent.client),
        client_id = escape(consent.client_id),
        provider = escape(consent.provider),
        redirect_host = escape(consent.redirect_host),
        action = escape(consent.action),
        transaction = escape(consent.transaction),
        csrf = escape(consent.csrf),
    );
    let mut response = page(StatusCode::OK, body);
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().insert(SET_COOKIE, value);
    }
    response
}

/// An error page: for a request whose client or redirect URI cannot be
/// trusted, which is never redirected (no open redirect).
pub(crate) fn error(status: StatusCode, error: &str, description: &str) -> Response {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Sign-in failed</title></head>\
         <body><main><h1>Sign-in failed</h1><p><code>{}</code>: {}</p></main></body></html>",
        escape(error),
        escape(description)
    );
    page(status, body)
}

fn page(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    headers.insert(
        "content-security-policy",
        HeaderValue::from_static("default-src 'none'; form-action 'self'; frame-ancestors 'none'"),
    );
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    response
}

/// The `Set-Cookie` value of the browser cookie.
pub(crate) fn browser_cookie(value: &str, secure: bool, max_age: u64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{BROWSER_COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}")
}

/// The browser cookie a request carries.
pub(crate) fn browser_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == BROWSER_COOKIE)
        .map(|(_, value)| value.to_owned())
        .filter(|value| !value.is_empty() && value.len() <= 64)
}

/// Text safe inside HTML elements and quoted attributes.
pub(crate) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_cannot_inject_markup() {
        assert_eq!(escape(r#"<script>"x"&'y'</script>"#), "&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;");
    }
}
