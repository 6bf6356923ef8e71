//! How a [`TestClient`](super::TestClient) answers the server's questions
//! (elicitation, sampling, roots), and the capabilities that follow.

use super::*;

type ElicitHandler = Box<dyn FnMut(ElicitParams) -> ElicitResult + Send>;
type SampleHandler = Box<dyn FnMut(CreateMessageParams) -> CreateMessageResult + Send>;

/// How a [`TestClient`] answers the server's questions; a question with no
/// answer here is refused (`-32601`), and the client does not declare its
/// capability.
#[derive(Default)]
pub(super) struct Answers {
    pub(super) elicit: Option<ElicitHandler>,
    pub(super) sample: Option<SampleHandler>,
    pub(super) roots: Option<Vec<Root>>,
    /// Whether the client declares the tasks extension.
    pub(super) tasks: bool,
    /// Whether the client declares MCP Apps (it renders views).
    pub(super) views: bool,
}

impl Answers {
    pub(super) fn capabilities(&self) -> Value {
        let mut capabilities = serde_json::Map::new();
        if self.elicit.is_some() {
            capabilities.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        }
        if self.sample.is_some() {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.roots.is_some() {
            capabilities.insert("roots".into(), json!({"listChanged": true}));
        }
        let mut extensions = serde_json::Map::new();
        if self.tasks {
            extensions.insert(mcp_core::task::EXTENSION.into(), json!({}));
        }
        if self.views {
            extensions.insert(mcp_core::apps::EXTENSION.into(), json!({ "mimeTypes": [mcp_core::apps::MIME_TYPE] }));
        }
        if !extensions.is_empty() {
            capabilities.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(capabilities)
    }

    /// The client's answer to the server's `method` with `params`.
    pub(super) fn answer(&mut self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let unanswered = || ErrorObject::method_not_found(method);
        let value = match method {
            methods::ELICITATION_CREATE => {
                let handler = self.elicit.as_mut().ok_or_else(unanswered)?;
                serde_json::to_value(handler(serde_json::from_value(params).map_err(ErrorObject::invalid_params)?))
            }
            methods::SAMPLING_CREATE_MESSAGE => {
                let handler = self.sample.as_mut().ok_or_else(unanswered)?;
                serde_json::to_value(handler(serde_json::from_value(params).map_err(ErrorObject::invalid_params)?))
            }
            methods::ROOTS_LIST => Ok(json!({ "roots": self.roots.as_ref().ok_or_else(unanswered)? })),
            _ => return Err(unanswered()),
        };
        value.map_err(local_error)
    }
}
