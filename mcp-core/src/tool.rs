//! Tool definitions: what `tools/list` describes.

use serde::{Deserialize, Serialize};

use crate::jsonrpc::JsonObject;
use crate::version::ProtocolVersion;

/// A tool the model can call, in its canonical form: every field any
/// version knows. [`Tool::for_version`] gives what one version may see.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Unique name; the key of `tools/call`.
    pub name: String,
    /// Display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of `arguments`; its root is `{"type": "object"}`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent` (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution properties (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<JsonObject>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Static metadata (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Tool {
    /// A tool with a name and an input schema, and nothing else.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
        }
    }

    /// This definition as `version` knows it: fields the version does not
    /// define are dropped, so a strict client never sees a stranger.
    pub fn for_version(&self, version: ProtocolVersion) -> Tool {
        let mut out = self.clone();
        if !version.has_annotations() {
            out.annotations = None;
        }
        if !version.has_structured_output() {
            out.title = None;
            out.output_schema = None;
            out.meta = None;
        }
        if version.wraps_structured_output()
            && let Some(schema) = out.output_schema.take()
        {
            out.output_schema = Some(wrap_output_schema(schema));
        }
        if !version.has_icons() {
            out.icons = None;
            out.input_schema.remove("$schema");
            if let Some(schema) = &mut out.output_schema {
                schema.remove("$schema");
            }
        }
        if version != ProtocolVersion::V2025_11_25 {
            out.execution = None;
        }
        if !version.has_param_headers() {
            crate::headers::strip_param_headers(&mut out.input_schema);
        }
        out
    }
}

/// `{"type":"object","properties":{"result": schema},"required":["result"]}`
/// for a schema whose root is not an object; an object schema as it is.
/// The root's own `$schema` and definitions move to the new root, where
/// the schema's `$ref`s (`#/$defs/…`) still find them.
pub fn wrap_output_schema(mut schema: JsonObject) -> JsonObject {
    if schema.get("type").and_then(serde_json::Value::as_str) == Some("object") {
        return schema;
    }
    let mut wrapped = JsonObject::new();
    for key in ["$schema", "$defs", "definitions"] {
        if let Some(value) = schema.remove(key) {
            wrapped.insert(key.into(), value);
        }
    }
    let mut properties = JsonObject::new();
    properties.insert("result".into(), serde_json::Value::Object(schema));
    wrapped.insert("type".into(), "object".into());
    wrapped.insert("properties".into(), serde_json::Value::Object(properties));
    wrapped.insert("required".into(), serde_json::json!(["result"]));
    wrapped
}

/// Hints about a tool's behaviour. Hints, never guarantees.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display name (the tool's own `title` takes precedence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set (then the field is better left out).
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// An icon for display (2025-11-25 and later).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// A URI: `https:` or `data:`.
    pub src: String,
    /// MIME type, when `src` does not say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src` (an `https:` URL or a `data:` URI).
    pub fn new(src: impl Into<String>) -> Self {
        Icon { src: src.into(), mime_type: None, sizes: None, theme: None }
    }

    /// The MIME type, e.g. `"image/png"`.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The sizes it can be shown at, e.g. `["48x48", "96x96"]` or `["any"]`.
    pub fn with_sizes(mut self, sizes: &[&str]) -> Self {
        self.sizes = Some(sizes.iter().map(|s| (*s).to_owned()).collect());
        self
    }

    /// The theme it is drawn for: `"light"` or `"dark"`.
    pub fn with_theme(mut self, theme: impl Into<String>) -> Self {
        self.theme = Some(theme.into());
        self
    }
}
