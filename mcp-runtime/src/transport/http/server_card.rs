//! The server card (experimental: SEP-2127 is a draft): a public JSON
//! document that tells a client who the server is and how to connect
//! before it connects, served at `<endpoint>/server-card` and listed in
//! the domain's AI catalog (`/.well-known/ai-catalog.json`, and
//! `/.well-known/mcp/catalog.json` where earlier drafts put it).
//!
//! Built from the server's own metadata on every request (its name,
//! version, title, description, icons, the transport it serves, whether a
//! token is required, the extensions it declares), so it never drifts
//! from what the connection says. It never lists tools, resources or
//! prompts: the draft leaves those to the protocol's list requests.

use axum::http::header::{
    ACCESS_CONTROL_EXPOSE_HEADERS, ALLOW, CACHE_CONTROL, CONTENT_TYPE, ETAG, HOST, IF_NONE_MATCH,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_core::{Icon, ProtocolVersion};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::cors;
use crate::random;

/// The `$schema` every card names: the draft's `v1` card schema.
pub(crate) const SERVER_CARD_SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/// The card's media type.
pub(crate) const SERVER_CARD_MEDIA_TYPE: &str = "application/mcp-server-card+json";
/// The AI catalog's media type.
const CATALOG_MEDIA_TYPE: &str = "application/ai-catalog+json";
/// Where the catalog is served: the draft's name, and the one of its
/// earlier text.
pub(crate) const CATALOG_PATHS: [&str; 2] = ["/.well-known/ai-catalog.json", "/.well-known/mcp/catalog.json"];
/// The `_meta` key under which the card names the protocol extensions the
/// server declares (the card has no field of its own for them).
pub(crate) const EXTENSIONS_META: &str = "dev.mcp-runtime/extensions";

/// What the server card says beyond the server's own info: its name in
/// the registry's reverse-DNS form, and where clients reach it. Enable it
/// with [`HttpOptions::server_card`](super::HttpOptions::server_card).
///
/// Experimental: the card follows the SEP-2127 draft and changes with it.
///
/// ```no_run
/// use mcp_runtime::{Server, transport::{HttpOptions, ServerCard}};
///
/// # async fn run() -> Result<(), mcp_runtime::Error> {
/// let card = ServerCard::new("io.github.example/weather")
///     .description("Forecasts and alerts for any city")
///     .url("https://weather.example.com/mcp");
/// let options = HttpOptions::new().server_card(card).allowed_hosts(["weather.example.com"]);
/// Server::new("weather", "1.0.0").serve_http_with("0.0.0.0:8080", options).await
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct ServerCard {
    name: String,
    url: Option<String>,
    description: Option<String>,
    title: Option<String>,
    icons: Vec<Icon>,
    website_url: Option<String>,
    repository: Option<String>,
}

impl ServerCard {
    /// A card for the server named `name` in reverse-DNS form
    /// (`io.github.OWNER/NAME` or `com.example/NAME`), the name its
    /// `server.json` has in the MCP Registry.
    pub fn new(name: impl Into<String>) -> Self {
        ServerCard { name: name.into(), ..ServerCard::default() }
    }

    /// The endpoint's public URL (`https://mcp.example.com/mcp`). Without
    /// it the card names `http://<Host of the request><path>`, right only
    /// when clients reach the server directly.
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// What the server does, in at most 100 characters (the card's limit);
    /// the server's own description when not set.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// A display title; the server's own title when not set.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// An icon, in addition to the server's own.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// The server's home page; the server's own when not set.
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.website_url = Some(url.into());
        self
    }

    /// The URL of the server's source repository.
    pub fn repository(mut self, url: impl Into<String>) -> Self {
        self.repository = Some(url.into());
        self
    }
}

/// What the card says of the endpoint besides the card's settings.
pub(crate) struct Facts<'a> {
    pub(crate) info: &'a mcp_core::Implementation,
    pub(crate) extensions: Option<&'a Value>,
    pub(crate) path: &'a str,
    /// Whether a request needs an `Authorization` header, and of what kind.
    pub(crate) auth: Option<&'static str>,
}

/// The card as JSON, for a request that came to `host`.
pub(crate) fn card(card: &ServerCard, facts: &Facts<'_>, host: &str) -> Value {
    let info = facts.info;
    let mut out = Map::new();
    out.insert("$schema".into(), SERVER_CARD_SCHEMA.into());
    out.insert("name".into(), card.name.clone().into());
    out.insert("version".into(), info.version.clone().into());
    let description = card.description.clone().or_else(|| info.description.clone());
    // The card requires one; the server's name says at least what it is.
    let description = description.unwrap_or_else(|| info.name.clone());
    out.insert("description".into(), within_limit(&description).into());
    if let Some(title) = card.title.clone().or_else(|| info.title.clone()) {
        out.insert("title".into(), within_limit(&title).into());
    }
    let icons: Vec<&Icon> = info.icons.iter().flatten().chain(&card.icons).collect();
    if !icons.is_empty() {
        out.insert("icons".into(), json!(icons));
    }
    if let Some(website) = card.website_url.clone().or_else(|| info.website_url.clone()) {
        out.insert("websiteUrl".into(), website.into());
    }
    if let Some(url) = &card.repository {
        let source = if url.contains("://github.com/") { "github" } else { "git" };
        out.insert("repository".into(), json!({"url": url, "source": source}));
    }
    let mut remote = json!({
        "type": "streamable-http",
        "url": endpoint_url(card, facts.path, host),
        "supportedProtocolVersions": ProtocolVersion::ALL.iter().rev().map(|v| v.as_str()).collect::<Vec<_>>(),
    });
    if let Some(kind) = facts.auth {
        remote["headers"] = json!([{
            "name": "Authorization",
            "description": kind,
            "isRequired": true,
            "isSecret": true,
        }]);
    }
    out.insert("remotes".into(), json!([remote]));
    if let Some(extensions) = facts.extensions.filter(|e| e.as_object().is_some_and(|o| !o.is_empty())) {
        out.insert("_meta".into(), json!({ EXTENSIONS_META: extensions }));
    }
    Value::Object(out)
}

/// The AI catalog of this host: one entry, this server's card.
pub(crate) fn catalog(card: &ServerCard, path: &str, host: &str) -> Value {
    let publisher = host.rsplit_once(':').filter(|(_, port)| port.parse::<u16>().is_ok()).map_or(host, |(h, _)| h);
    let short = card.name.rsplit('/').next().unwrap_or(&card.name);
    json!({
        "specVersion": "1.0",
        "entries": [{
            "identifier": format!("urn:air:{publisher}:mcp:{short}"),
            "type": SERVER_CARD_MEDIA_TYPE,
            "url": format!("{}/server-card", endpoint_url(card, path, host)),
        }]
    })
}

/// The draft's limit on `description` and `title`: a longer text would
/// make clients refuse the whole card, so it is cut.
fn within_limit(text: &str) -> String {
    const LIMIT: usize = 100;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}

/// Say at start-up what would make clients refuse the card: a name not
/// in the registry's `NAMESPACE/NAME` form.
pub(crate) fn warn_if_invalid(card: &ServerCard) {
    let valid = card.name.split_once('/').is_some_and(|(namespace, name)| {
        let allowed = |s: &str, extra: char| {
            !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == extra)
        };
        allowed(namespace, '-') && allowed(name, '_') && (3..=200).contains(&card.name.len())
    });
    if !valid {
        tracing::warn!(
            name = %card.name,
            "the server card's name is not NAMESPACE/NAME in reverse-DNS form (io.github.OWNER/NAME): clients will \
             refuse the card"
        );
    }
}

fn endpoint_url(card: &ServerCard, path: &str, host: &str) -> String {
    card.url.clone().unwrap_or_else(|| format!("http://{host}{path}"))
}

/// The request's `Host`, which the guard has already checked.
pub(crate) fn host(headers: &HeaderMap) -> &str {
    headers.get(HOST).and_then(|h| h.to_str().ok()).unwrap_or("localhost")
}

/// `document` as the draft asks a card host to answer: public to any
/// page, cacheable for an hour, with an `ETag` that `If-None-Match`
/// turns into 304. A preflight is answered as the endpoint's are.
pub(crate) fn answer(method: &Method, headers: &HeaderMap, document: &Value, catalog: bool) -> Response {
    const METHODS: HeaderValue = HeaderValue::from_static("GET, HEAD, OPTIONS");
    let mut response = match *method {
        Method::OPTIONS => cors::preflight(headers, METHODS),
        Method::GET | Method::HEAD => {
            let body = serde_json::to_vec(document).unwrap_or_default();
            let tag = format!("\"{}\"", random::hex(&Sha256::digest(&body)[..16]));
            let unchanged = headers.get(IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|asked| {
                asked
                    .split(',')
                    .any(|t| t.trim() == tag || t.trim() == "*" || t.trim().strip_prefix("W/") == Some(&tag))
            });
            let mut response = if unchanged {
                StatusCode::NOT_MODIFIED.into_response()
            } else if *method == Method::HEAD {
                StatusCode::OK.into_response()
            } else {
                (StatusCode::OK, body).into_response()
            };
            let media = if catalog { CATALOG_MEDIA_TYPE } else { SERVER_CARD_MEDIA_TYPE };
            let headers = response.headers_mut();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(media));
            headers.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
            if let Ok(tag) = HeaderValue::from_str(&tag) {
                headers.insert(ETAG, tag);
            }
            // A page revalidates with the tag, so it may read it.
            headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("etag"));
            response
        }
        _ => {
            let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
            response.headers_mut().insert(ALLOW, METHODS);
            response
        }
    };
    cors::public(&mut response);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_to_the_drafts_limit() {
        assert_eq!(within_limit(&"é".repeat(120)).chars().count(), 100);
        assert_eq!(within_limit("short"), "short");
    }

    #[test]
    fn the_catalog_names_the_host_without_its_port_and_the_cards_url() {
        let card = ServerCard::new("io.github.example/weather");
        let catalog = catalog(&card, "/mcp", "127.0.0.1:8080");
        assert_eq!(catalog["entries"][0]["identifier"], "urn:air:127.0.0.1:mcp:weather");
        assert_eq!(catalog["entries"][0]["url"], "http://127.0.0.1:8080/mcp/server-card");
        let public = catalog_of("https://weather.example.com/mcp");
        assert_eq!(public["entries"][0]["url"], "https://weather.example.com/mcp/server-card");
    }

    fn catalog_of(url: &str) -> Value {
        catalog(&ServerCard::new("com.example/weather").url(url), "/mcp", "weather.example.com")
    }
}
