//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865): a tool
//! names an interactive view, a `ui://` resource of HTML that a host renders
//! in a sandboxed iframe, with the origins and browser features the view
//! needs; and a tool may be meant for views alone.
//!
//! A tool carries `_meta.ui` ([`ToolUi`]); a view's listing and its
//! `resources/read` contents carry `_meta.ui` ([`ViewMeta`]).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::jsonrpc::JsonObject;

/// The extension's name, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view: HTML for an MCP Apps host.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme every view's URI has.
pub const SCHEME: &str = "ui://";

/// The key of a tool's or a view's metadata, under `_meta`.
pub const META_KEY: &str = "ui";

/// The flat key early hosts read a tool's view from; the extension keeps it
/// until its general availability, so tools carry both.
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// Who may call a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model: the tool is in the agent's list.
    Model,
    /// Views of this server, through the host.
    App,
}

/// A tool's `_meta.ui`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The view that renders the tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool; absent means both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// Read a tool's `_meta.ui`, if it has one that parses.
    pub fn of(meta: Option<&JsonObject>) -> Option<ToolUi> {
        meta?.get(META_KEY).and_then(|ui| serde_json::from_value(ui.clone()).ok())
    }

    /// Whether only views may call the tool (the model never sees it).
    pub fn app_only(&self) -> bool {
        self.visibility.as_ref().is_some_and(|v| !v.contains(&Visibility::Model))
    }
}

/// The origins a view may reach, beyond its own HTML; each maps to a CSP
/// directive the host builds. Absent lists mean none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Csp {
    /// Where it may `fetch`, XHR and open WebSockets (`connect-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Where its images, scripts, styles, fonts and media may come from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Which origins it may frame (`frame-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Which base URIs the document may set (`base-uri`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

impl Csp {
    fn is_empty(&self) -> bool {
        *self == Csp::default()
    }
}

/// A browser feature a view asks the host to allow (its iframe's `allow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permission {
    /// `camera`.
    Camera,
    /// `microphone`.
    Microphone,
    /// `geolocation`.
    Geolocation,
    /// `clipboard-write`.
    ClipboardWrite,
}

impl Permission {
    /// Its key under `permissions`.
    pub fn key(self) -> &'static str {
        match self {
            Permission::Camera => "camera",
            Permission::Microphone => "microphone",
            Permission::Geolocation => "geolocation",
            Permission::ClipboardWrite => "clipboardWrite",
        }
    }
}

/// A view's `_meta.ui`: what the host needs to render it safely.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewMeta {
    /// The origins it may reach.
    pub csp: Csp,
    /// The browser features it asks for.
    pub permissions: Vec<Permission>,
    /// A dedicated sandbox origin, in the form the host documents.
    pub domain: Option<String>,
    /// Whether the host should draw a border and background around it.
    pub prefers_border: Option<bool>,
}

impl ViewMeta {
    /// As JSON, leaving out what was not set.
    pub fn to_json(&self) -> Value {
        let mut ui = JsonObject::new();
        if !self.csp.is_empty() {
            ui.insert("csp".into(), serde_json::to_value(&self.csp).unwrap_or_default());
        }
        if !self.permissions.is_empty() {
            let permissions: JsonObject = self.permissions.iter().map(|p| (p.key().to_owned(), json!({}))).collect();
            ui.insert("permissions".into(), permissions.into());
        }
        if let Some(domain) = &self.domain {
            ui.insert("domain".into(), domain.clone().into());
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".into(), border.into());
        }
        ui.into()
    }
}

/// Whether `uri` can name a view: `ui://` and something after it.
pub fn is_view_uri(uri: &str) -> bool {
    uri.strip_prefix(SCHEME).is_some_and(|rest| !rest.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_ui_reads_back_and_knows_when_it_is_for_views_alone() {
        let meta: JsonObject = serde_json::from_value(json!({
            "ui": { "resourceUri": "ui://notes/editor", "visibility": ["app"] }
        }))
        .unwrap();
        let ui = ToolUi::of(Some(&meta)).unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://notes/editor"));
        assert!(ui.app_only());
        assert!(!ToolUi { visibility: Some(vec![Visibility::Model, Visibility::App]), ..ToolUi::default() }.app_only());
        assert!(!ToolUi::default().app_only());
    }

    #[test]
    fn view_meta_names_only_what_was_set_in_the_extensions_words() {
        assert_eq!(ViewMeta::default().to_json(), json!({}));
        let meta = ViewMeta {
            csp: Csp { connect_domains: vec!["https://api.example.com".into()], ..Csp::default() },
            permissions: vec![Permission::ClipboardWrite],
            domain: None,
            prefers_border: Some(true),
        };
        assert_eq!(
            meta.to_json(),
            json!({
                "csp": { "connectDomains": ["https://api.example.com"] },
                "permissions": { "clipboardWrite": {} },
                "prefersBorder": true
            })
        );
    }

    #[test]
    fn a_view_uri_is_ui_and_a_path() {
        assert!(is_view_uri("ui://notes/editor"));
        assert!(!is_view_uri("ui://"));
        assert!(!is_view_uri("https://example.com"));
    }
}
