//! [`TestClientBuilder`]: a [`TestClient`] with a protocol version and
//! answers to the server's questions.

use super::*;

/// Sets up a [`TestClient`]: its protocol version and how it answers the
/// server's questions. Made by [`TestClient::builder`].
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::testing::TestClient;
/// use mcp_runtime::protocol::{ElicitAction, ElicitResult, ProtocolVersion};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Name {
///     name: String,
/// }
///
/// /// Greet the user by name.
/// #[tool]
/// async fn greet(ctx: Context) -> Result<String, ToolError> {
///     Ok(match ctx.elicit::<Name>("What is your name?").await? {
///         Elicited::Accept(Name { name }) => format!("Hello, {name}!"),
///         _ => "Hello!".into(),
///     })
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// for version in [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST] {
///     let mut client = TestClient::builder(Server::empty("greeter", "1").tool(greet::Tool))
///         .version(version)
///         .on_elicit(|_| ElicitResult {
///             action: ElicitAction::Accept,
///             content: serde_json::json!({"name": "Ada"}).as_object().cloned(),
///         })
///         .connect()
///         .await
///         .unwrap();
///     let result = client.call_tool("greet", serde_json::json!({})).await.unwrap();
///     assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
/// }
/// # }
/// ```
pub struct TestClientBuilder {
    pub(super) server: Server,
    pub(super) version: ProtocolVersion,
    pub(super) answers: Answers,
}

impl TestClientBuilder {
    /// Speak `version`: a handshake version (the newest by default) or
    /// 2026-07-28, which sends the per-request `_meta` and no handshake.
    pub fn version(mut self, version: ProtocolVersion) -> Self {
        self.version = version;
        self
    }

    /// Answer elicitations with `answer` (and declare `elicitation`).
    pub fn on_elicit(mut self, answer: impl FnMut(ElicitParams) -> ElicitResult + Send + 'static) -> Self {
        self.answers.elicit = Some(Box::new(answer));
        self
    }

    /// Answer sampling requests with `answer` (and declare `sampling`).
    pub fn on_sample(
        mut self,
        answer: impl FnMut(CreateMessageParams) -> CreateMessageResult + Send + 'static,
    ) -> Self {
        self.answers.sample = Some(Box::new(answer));
        self
    }

    /// Offer these roots (and declare `roots`).
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.answers.roots = Some(roots);
        self
    }

    /// Declare the tasks extension (`io.modelcontextprotocol/tasks`), so
    /// tools that support tasks may answer with one
    /// ([`TestClient::call_as_task`]).
    pub fn tasks(mut self) -> Self {
        self.answers.tasks = true;
        self
    }

    /// Declare MCP Apps (`io.modelcontextprotocol/ui`), as a host that
    /// renders views does: tools for views alone are listed and callable.
    pub fn views(mut self) -> Self {
        self.answers.views = true;
        self
    }

    /// Start the server and connect: the handshake, or for 2026-07-28
    /// `server/discover` (each request then introduces itself).
    pub async fn connect(self) -> Result<TestClient, Error> {
        // A failing tool should say why in a test; a test of the masking
        // sets `show_internal_errors(false)`.
        let connection = wire::start(self.server.show_internal_errors_by_default(true))?;
        let builder = mcp_runtime_client::Client::builder()
            .name("test-client", env!("CARGO_PKG_VERSION"))
            .era(EraChoice::Version(self.version));
        let client = self
            .answers
            .give(builder)
            .messages(connection.to_server, connection.from_server)
            .await
            .map_err(|e| Error::Io(io::Error::other(format!("initialize failed: {e}"))))?;
        Ok(TestClient {
            client,
            raw: connection.raw,
            tap: connection.tap,
            server: connection.server,
            notifications: Vec::new(),
        })
    }
}
