//! How a [`TestClient`](super::TestClient) answers the server's questions
//! (elicitation, sampling, roots), given to the client crate's builder,
//! which declares the capabilities that follow and answers in either era.

use std::sync::{Arc, Mutex};

use mcp_core::{CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, Root};
use mcp_runtime_client::ClientBuilder;
use serde_json::json;

type ElicitHandler = Box<dyn FnMut(ElicitParams) -> ElicitResult + Send>;
type SampleHandler = Box<dyn FnMut(CreateMessageParams) -> CreateMessageResult + Send>;

/// How a [`TestClient`](super::TestClient) answers the server's
/// questions; a question with no answer here is refused (`-32601`), and
/// the client does not declare its capability.
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
    /// `builder` answering as these say, and declaring what they answer.
    pub(super) fn give(self, mut builder: ClientBuilder) -> ClientBuilder {
        if let Some(elicit) = self.elicit {
            let elicit = Arc::new(Mutex::new(elicit));
            builder = builder.on_elicitation_with_urls(move |params| {
                let answer = elicit.lock().unwrap_or_else(|e| e.into_inner())(params);
                std::future::ready(Ok(answer))
            });
        }
        if let Some(sample) = self.sample {
            let sample = Arc::new(Mutex::new(sample));
            builder = builder.on_sampling(move |params| {
                let answer = sample.lock().unwrap_or_else(|e| e.into_inner())(params);
                std::future::ready(Ok(answer))
            });
        }
        if let Some(roots) = self.roots {
            builder = builder.roots(roots);
        }
        if self.tasks {
            builder = builder.tasks();
        }
        if self.views {
            builder = builder.extension(mcp_core::apps::EXTENSION, json!({ "mimeTypes": [mcp_core::apps::MIME_TYPE] }));
        }
        builder
    }
}
