//! Prompts and completions: what `prompts/list` describes, the params and
//! result of `prompts/get`, and `completion/complete`.

use serde::{Deserialize, Serialize};

use crate::content::Content;
use crate::jsonrpc::JsonObject;
use crate::tool::Icon;
use crate::version::ProtocolVersion;

/// A prompt template the server offers, in its canonical form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Unique name; the key of `prompts/get`.
    pub name: String,
    /// Display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Static metadata (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One argument of a prompt. Its value always arrives as a string.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Its name, the key in `arguments`.
    pub name: String,
    /// Display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl Prompt {
    /// A prompt with a name, and nothing else.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt { name: name.into(), title: None, description: None, arguments: None, icons: None, meta: None }
    }

    /// This prompt as `version` knows it.
    pub fn for_version(&self, version: ProtocolVersion) -> Prompt {
        let mut out = self.clone();
        if !version.has_structured_output() {
            out.title = None;
            out.meta = None;
            for argument in out.arguments.iter_mut().flatten() {
                argument.title = None;
            }
        }
        if !version.has_icons() {
            out.icons = None;
        }
        out
    }
}

/// Who a prompt message is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

/// One message of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: text, an image, audio, an embedded resource or a
    /// resource link.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user: text (`"…"`), or any content block.
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage { role: Role::User, content: content.into() }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage { role: Role::Assistant, content: content.into() }
    }
}

/// The params of `prompts/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GetPromptParams {
    /// The prompt.
    pub name: String,
    /// Its arguments, as strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Map<String, serde_json::Value>>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `prompts/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// What this rendering is, for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl GetPromptResult {
    /// This result as `version` knows it: content blocks projected as tool
    /// results' are.
    pub fn for_version(mut self, version: ProtocolVersion) -> GetPromptResult {
        if !version.has_structured_output() {
            self.meta = None;
        }
        self.messages = self
            .messages
            .into_iter()
            .filter_map(|m| Some(PromptMessage { role: m.role, content: m.content.for_version(version)? }))
            .collect();
        self
    }
}

/// The `prompts` server capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// Whether the server sends `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// What a completion is for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompleteRef {
    /// A prompt's argument.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt.
        name: String,
    },
    /// A resource template's variable.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The URI template.
        uri: String,
    },
}

/// The argument being completed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteArgument {
    /// Its name.
    pub name: String,
    /// What the user typed so far.
    pub value: String,
}

/// What else is known when completing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteContext {
    /// The arguments already filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<std::collections::BTreeMap<String, String>>,
}

/// The params of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// The prompt or template.
    #[serde(rename = "ref")]
    pub reference: CompleteRef,
    /// The argument and its partial value.
    pub argument: CompleteArgument,
    /// The other arguments (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompleteContext>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The values of a completion.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many values there are in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than those sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// The result of `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The values.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
