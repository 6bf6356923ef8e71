//! Resources and resource templates: what `resources/list` and
//! `resources/templates/list` describe, and the params and results of
//! `resources/read`, `resources/subscribe` and their notifications.

use serde::{Deserialize, Serialize};

use crate::content::{Annotations, ResourceContents};
use crate::jsonrpc::JsonObject;
use crate::tool::Icon;
use crate::version::ProtocolVersion;

/// A resource the server offers at a fixed URI, in its canonical form:
/// every field any version knows. [`Resource::for_version`] gives what one
/// version may see.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Its URI; the key of `resources/read`.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it holds, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of its contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Static metadata (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A family of resources whose URIs follow an RFC 6570 template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template, e.g. `users://{id}/profile`.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What its resources hold, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of its resources' contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Static metadata (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Annotations as `version` knows them: `lastModified` came in 2025-06-18.
fn annotations_for(annotations: &Option<Annotations>, version: ProtocolVersion) -> Option<Annotations> {
    let mut annotations = annotations.clone()?;
    if !version.has_structured_output() {
        annotations.last_modified = None;
    }
    Some(annotations)
}

impl Resource {
    /// A resource with a URI and a name, and nothing else.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }

    /// This resource as `version` knows it.
    pub fn for_version(&self, version: ProtocolVersion) -> Resource {
        let mut out = self.clone();
        out.annotations = annotations_for(&self.annotations, version);
        if !version.has_structured_output() {
            out.title = None;
            out.meta = None;
        }
        if !version.has_icons() {
            out.icons = None;
        }
        out
    }
}

impl ResourceTemplate {
    /// A template with a URI template and a name, and nothing else.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }

    /// This template as `version` knows it.
    pub fn for_version(&self, version: ProtocolVersion) -> ResourceTemplate {
        let mut out = self.clone();
        out.annotations = annotations_for(&self.annotations, version);
        if !version.has_structured_output() {
            out.title = None;
            out.meta = None;
        }
        if !version.has_icons() {
            out.icons = None;
        }
        out
    }
}

/// The params of `resources/read`, `resources/subscribe` and
/// `resources/unsubscribe`, and of `notifications/resources/updated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceUri {
    /// The resource's URI.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `resources/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// The contents: usually one, possibly several.
    pub contents: Vec<ResourceContents>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ReadResourceResult {
    /// This result as `version` knows it: no `_meta` on contents before
    /// 2025-06-18.
    pub fn for_version(mut self, version: ProtocolVersion) -> ReadResourceResult {
        if !version.has_structured_output() {
            self.meta = None;
            for contents in &mut self.contents {
                let (ResourceContents::Text { meta, .. } | ResourceContents::Blob { meta, .. }) = contents;
                *meta = None;
            }
        }
        self
    }
}

/// The `resources` server capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Whether clients may subscribe to a resource's updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether the server sends `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}
