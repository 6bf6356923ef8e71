//! Asking the client: elicitation, sampling and roots, as requests to the
//! client (the handshake versions) or as the input requests of an
//! `InputRequiredResult` (2026-07-28, multi-round tool calls).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::{Content, MediaContent, TextContent};
use crate::jsonrpc::JsonObject;
use crate::prompt::Role;

/// The params of `elicitation/create`: a form (`requestedSchema`, the
/// default mode) or, from 2025-11-25, a URL the user opens (`mode: "url"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// `"form"` or `"url"`; absent means a form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What the user is asked, shown by the client.
    pub message: String,
    /// A form's fields: a flat object schema of primitives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<JsonObject>,
    /// The page a URL elicitation opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A URL elicitation's id, for `notifications/elicitation/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form (or agreed to open the URL).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

/// The result of `elicitation/create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form's values, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}

/// A model the server would like, by name (a hint, matched loosely).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name, e.g. `"claude-3-5-sonnet"` or `"sonnet"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// What the server values in the model the client picks: each priority is
/// 0 (unimportant) to 1 (most important).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Models to prefer, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// A tool call the model asks for in a sampling answer (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    /// The call's id, echoed by its result.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub input: JsonObject,
}

/// The result of a tool call, sent back to the model in a sampling
/// message (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `ToolUse` this answers.
    pub tool_use_id: String,
    /// What the tool returned.
    #[serde(default)]
    pub content: Vec<Content>,
    /// Its structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

/// One block of a sampling message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SamplingContent {
    /// Text.
    #[serde(rename = "text")]
    Text(TextContent),
    /// A base64-encoded image.
    #[serde(rename = "image")]
    Image(MediaContent),
    /// Base64-encoded audio.
    #[serde(rename = "audio")]
    Audio(MediaContent),
    /// The model asks for a tool call (2025-11-25).
    #[serde(rename = "tool_use")]
    ToolUse(ToolUse),
    /// A tool call's result (2025-11-25).
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Text(TextContent { text: text.into(), annotations: None, meta: None })
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// One message of a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: one block, or (2025-11-25) several.
    #[serde(with = "one_or_many")]
    pub content: Vec<SamplingContent>,
}

/// How the model may use the tools offered in a sampling request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// `"auto"`, `"required"` or `"none"`.
    pub mode: String,
}

/// The params of `sampling/createMessage`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Which model the server would like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt (the client may change or omit it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `"none"`, `"thisServer"` or `"allServers"` (soft-deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to generate.
    pub max_tokens: u32,
    /// Where to stop generating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tools the model may call (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<crate::tool::Tool>>,
    /// How it may call them (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

/// The result of `sampling/createMessage`: the model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (the assistant).
    pub role: Role,
    /// What it said: one block, or (2025-11-25) several.
    #[serde(with = "one_or_many")]
    pub content: Vec<SamplingContent>,
    /// The model that answered.
    pub model: String,
    /// Why it stopped: `"endTurn"`, `"stopSequence"`, `"maxTokens"`,
    /// `"toolUse"`, or another reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The answer's text: its text blocks, joined by blank lines.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(SamplingContent::as_text).collect::<Vec<_>>().join("\n\n")
    }
}

/// A root the client offers: a directory or file the server may work in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A name to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `roots/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The client's roots.
    pub roots: Vec<Root>,
}

/// One request to the client inside an `InputRequiredResult`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// Its params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JsonObject>,
}

/// A 2026-07-28 result that asks the client for input before the request
/// can complete (`resultType: "input_required"`). The client answers each
/// input request and retries the original request with `inputResponses`
/// (keyed like `inputRequests`) and `requestState` echoed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// What the client must answer, by key.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_requests: Map<String, Value>,
    /// Opaque state the client echoes on its retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One block is sent as an object (every version reads that); a list as
/// an array (2025-11-25); either is read.
mod one_or_many {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::SamplingContent;

    pub(super) fn serialize<S: Serializer>(blocks: &[SamplingContent], s: S) -> Result<S::Ok, S::Error> {
        match blocks {
            [one] => one.serialize(s),
            many => many.serialize(s),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SamplingContent>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum OneOrMany {
            One(SamplingContent),
            Many(Vec<SamplingContent>),
        }
        Ok(match OneOrMany::deserialize(d)? {
            OneOrMany::One(one) => vec![one],
            OneOrMany::Many(many) => many,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_single_block_is_an_object_and_either_form_reads() {
        let message = SamplingMessage { role: Role::User, content: vec![SamplingContent::text("hi")] };
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            json!({"role": "user", "content": {"type": "text", "text": "hi"}})
        );
        let many: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "model": "m", "stopReason": "toolUse",
            "content": [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "1", "name": "t", "input": {}}]
        }))
        .unwrap();
        assert_eq!(many.content.len(), 2);
        assert!(matches!(many.content[1], SamplingContent::ToolUse(_)));
    }

    #[test]
    fn an_elicit_result_reads_every_action() {
        for action in ["accept", "decline", "cancel"] {
            let result: ElicitResult = serde_json::from_value(json!({ "action": action })).unwrap();
            assert_eq!(serde_json::to_value(result.action).unwrap(), json!(action));
        }
        assert!(serde_json::from_value::<ElicitResult>(json!({"action": "maybe"})).is_err());
    }
}
