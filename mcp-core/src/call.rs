//! `tools/list` and `tools/call`: their params and results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Content;
use crate::jsonrpc::JsonObject;
use crate::tool::Tool;
use crate::version::ProtocolVersion;

/// The params of `tools/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListToolsParams {
    /// Where to continue, from a previous `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `tools/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// One page of tools.
    pub tools: Vec<Tool>,
    /// Present when there are more tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The params of `tools/call`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallToolParams {
    /// The tool to call.
    pub name: String,
    /// Its arguments; absent and `null` mean none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Request metadata (`progressToken`, …).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `tools/call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// What the tool produced.
    #[serde(deserialize_with = "crate::content::deserialize_blocks")]
    pub content: Vec<Content>,
    /// Structured output matching the tool's `outputSchema` (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `true` when the tool failed; the content then says why, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult { content, ..Default::default() }
    }

    /// A tool error whose text is shown to the model.
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![Content::text(text)], is_error: Some(true), ..Default::default() }
    }

    /// This result as `version` knows it: structured content and resource
    /// links are dropped before 2025-06-18 (the text mirror stays), and audio
    /// before 2025-03-26 becomes a text note, so the client reads every block.
    pub fn for_version(self, version: ProtocolVersion) -> CallToolResult {
        self.for_version_of_schema(version, false)
    }

    /// [`for_version`](Self::for_version) for a tool whose output schema
    /// those versions are shown wrapped as `{"result": …}`
    /// (`schema_wrapped`, as [`wrap_output_schema`] makes it): the
    /// value is then wrapped too, even an object, so it matches. This is
    /// the one place structured output takes its shape for a version.
    ///
    /// [`wrap_output_schema`]: crate::tool::wrap_output_schema
    pub fn for_version_of_schema(mut self, version: ProtocolVersion, schema_wrapped: bool) -> CallToolResult {
        if version.wraps_structured_output()
            && let Some(value) = self.structured_content.take()
        {
            self.structured_content = Some(match value {
                Value::Object(_) if !schema_wrapped => value,
                other => serde_json::json!({ "result": other }),
            });
        }
        if !version.has_structured_output() {
            self.structured_content = None;
            self.meta = None;
        }
        self.content = self.content.into_iter().filter_map(|block| block.for_version(version)).collect();
        self
    }

    /// Whether this result reports a tool error.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// The params of `notifications/cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The request to cancel (optional since 2025-11-25, where tasks are
    /// cancelled another way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<crate::jsonrpc::RequestId>,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn with(value: Value) -> CallToolResult {
        CallToolResult { structured_content: Some(value), ..Default::default() }
    }

    #[test]
    fn content_is_read_whatever_its_number_of_blocks() {
        for count in [0, 1, 5] {
            let blocks: Vec<Content> = (0..count).map(|i| Content::text(i.to_string())).collect();
            let text = serde_json::to_string(&CallToolResult::success(blocks.clone())).unwrap();
            let read: CallToolResult = serde_json::from_str(&text).unwrap();
            assert_eq!(read.content, blocks);
        }
        let error = serde_json::from_str::<CallToolResult>(r#"{"content": {}}"#).unwrap_err();
        assert!(error.to_string().contains("expected a sequence"), "{error}");
        assert!(serde_json::from_str::<CallToolResult>("{}").unwrap_err().to_string().contains("missing field"));
    }

    #[test]
    fn structured_output_takes_the_shape_its_schema_has_in_each_version() {
        let wrapping = ProtocolVersion::V2025_06_18;
        let object = json!({"a": 1});
        // Not an object: wrapped where an object is required, whatever the schema.
        assert_eq!(with(json!(5)).for_version(wrapping).structured_content, Some(json!({"result": 5})));
        // An object under an object schema goes as it is…
        assert_eq!(with(object.clone()).for_version(wrapping).structured_content, Some(object.clone()));
        // …and under a wrapped schema (say, of an `Option<Struct>`) it is wrapped to match.
        let shaped = with(object.clone()).for_version_of_schema(wrapping, true);
        assert_eq!(shaped.structured_content, Some(json!({"result": {"a": 1}})));
        // 2026-07-28 takes any value unwrapped; before 2025-06-18 there is none.
        let modern = with(json!(5)).for_version_of_schema(ProtocolVersion::V2026_07_28, true);
        assert_eq!(modern.structured_content, Some(json!(5)));
        assert_eq!(with(object).for_version(ProtocolVersion::V2025_03_26).structured_content, None);
    }
}
