//! Interop with an independent client: the official Rust SDK (`rmcp`)
//! spawns the calculator example, lists its tools and calls them. The test
//! fails if the SDK rejects any of our messages.

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use tokio::process::Command;
use tokio::time::timeout;

const T: Duration = Duration::from_secs(20);

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect()
}

async fn connect(config: ClientConfig) -> RunningService<RoleClient, ClientConfig> {
    let transport = TokioChildProcess::new(Command::new(crate::common::example("calculator"))).unwrap();
    timeout(T, config.serve(transport)).await.expect("handshake in time").expect("rmcp accepted our initialize")
}

async fn exercise(client: &RunningService<RoleClient, ClientConfig>) {
    let tools = timeout(T, client.list_all_tools()).await.unwrap().expect("rmcp accepted our tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["calculator", "text_analyzer"]);
    assert_eq!(tools[0].description.as_deref(), Some("Perform basic arithmetic on two numbers."));

    let call = |name: &'static str, args: Value| CallToolRequestParams::new(name).with_arguments(arguments(args));
    let result = timeout(T, client.call_tool(call("calculator", json!({"operation": "add", "a": 3, "b": 5}))))
        .await
        .unwrap()
        .expect("rmcp accepted our tools/call result");
    assert_eq!((text(&result), result.is_error), ("result: 8".to_owned(), None));

    let result = timeout(T, client.call_tool(call("calculator", json!({"operation": "divide", "a": 3, "b": 0}))))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("divide by zero"));

    let result =
        timeout(T, client.call_tool(call("text_analyzer", json!({"text": "one two  three"})))).await.unwrap().unwrap();
    assert_eq!(text(&result), "characters: 14\nwords: 3");

    let error = timeout(T, client.call_tool(call("missing", json!({})))).await.unwrap().unwrap_err();
    assert!(error.to_string().contains("unknown tool"), "{error}");
}

#[tokio::test]
async fn rmcp_client_with_default_settings() {
    // rmcp asks for the newest version it knows; a handshake server answers
    // with its newest handshake version and rmcp goes on with it.
    let client = connect(ClientConfig::default()).await;
    let info = client.peer_info().expect("server info after the handshake");
    assert_eq!(info.protocol_version.as_str(), "2025-11-25");
    assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("calculator"));
    assert!(info.capabilities.tools.is_some());
    exercise(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_client_pinned_to_older_versions() {
    for version in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_03_26, ProtocolVersion::V_2024_11_05] {
        let mut config = ClientConfig::default().with_protocol_version(version.clone());
        config.client_info = Implementation::new("interop-test", "0.0.0");
        let client = connect(config).await;
        assert_eq!(client.peer_info().unwrap().protocol_version, version);
        exercise(&client).await;
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn rmcp_client_in_auto_mode_takes_the_stateless_path() {
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    // As new official clients start: probe `server/discover`, fall back to
    // `initialize` only if that fails. Ours answers the probe, so every
    // request after it is a 2026-07-28 one.
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    };
    let transport = TokioChildProcess::new(Command::new(crate::common::example("calculator"))).unwrap();
    let client = timeout(T, ClientConfig::default().serve_with_lifecycle(transport, mode))
        .await
        .expect("discovery in time")
        .expect("rmcp accepted our server/discover");
    let info = client.peer_info().expect("server info from discovery");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    exercise(&client).await;
    client.cancel().await.unwrap();
}

/// A client that hands on the resource updates it receives.
struct Recorder(tokio::sync::mpsc::UnboundedSender<String>);

impl rmcp::ClientHandler for Recorder {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

fn first_text(result: &rmcp::model::ReadResourceResult) -> String {
    match &result.contents[0] {
        rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("expected text, got {other:?}"),
    }
}

/// Lists, templates and a read of the notes example, as rmcp sees them.
async fn browse_notes<S: rmcp::service::Service<RoleClient>>(client: &RunningService<RoleClient, S>) {
    use rmcp::model::ReadResourceRequestParams;
    let resources = timeout(T, client.list_all_resources()).await.unwrap().expect("rmcp accepted resources/list");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["notes://index", "ui://notes/editor"], "the index, and the editor's view");
    let templates = timeout(T, client.list_all_resource_templates()).await.unwrap().expect("rmcp accepted templates");
    assert_eq!(templates[0].uri_template, "notes://{title}");
    let welcome = timeout(T, client.read_resource(ReadResourceRequestParams::new("notes://welcome"))).await.unwrap();
    assert!(first_text(&welcome.expect("rmcp accepted resources/read")).starts_with("# Welcome"));
    let missing = timeout(T, client.read_resource(ReadResourceRequestParams::new("notes://nothing"))).await.unwrap();
    assert!(missing.unwrap_err().to_string().contains("there is no note called nothing"));

    use rmcp::model::{ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, Reference};
    let prompts = timeout(T, client.list_all_prompts()).await.unwrap().expect("rmcp accepted prompts/list");
    assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["summarize_note"]);
    let get = GetPromptRequestParams::new("summarize_note")
        .with_arguments(arguments(json!({"title": "welcome", "style": "brief"})));
    let summary = timeout(T, client.get_prompt(get)).await.unwrap().expect("rmcp accepted prompts/get");
    assert_eq!(summary.messages.len(), 2);
    let complete =
        CompleteRequestParams::new(Reference::for_prompt("summarize_note"), ArgumentInfo::new("style", "BU"));
    let styles = timeout(T, client.complete(complete)).await.unwrap().expect("rmcp accepted completion/complete");
    assert_eq!(styles.completion.values, ["bullets"]);
}

#[tokio::test]
async fn rmcp_client_reads_and_subscribes_to_resources() {
    use rmcp::model::SubscribeRequestParams;
    let (tx, mut updates) = tokio::sync::mpsc::unbounded_channel();
    let transport = TokioChildProcess::new(Command::new(crate::common::example("notes"))).unwrap();
    let client = timeout(T, Recorder(tx).serve(transport)).await.expect("handshake in time").unwrap();
    browse_notes(&client).await;
    #[allow(deprecated)]
    timeout(T, client.subscribe(SubscribeRequestParams::new("notes://welcome"))).await.unwrap().unwrap();
    let write =
        CallToolRequestParams::new("write_note").with_arguments(arguments(json!({"title": "welcome", "text": "new"})));
    timeout(T, client.call_tool(write)).await.unwrap().unwrap();
    assert_eq!(timeout(T, updates.recv()).await.unwrap().as_deref(), Some("notes://welcome"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_client_in_auto_mode_follows_resources_on_a_listen_stream() {
    use rmcp::model::{ServerNotification, SubscriptionFilterBuilder};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    };
    let transport = TokioChildProcess::new(Command::new(crate::common::example("notes"))).unwrap();
    let client = timeout(T, ClientConfig::default().serve_with_lifecycle(transport, mode)).await.unwrap().unwrap();
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    browse_notes(&client).await;
    let filter = SubscriptionFilterBuilder::default().resource_subscription("notes://welcome").build();
    let mut subscription = timeout(T, client.listen(filter)).await.unwrap().expect("rmcp accepted our acknowledgement");
    let write =
        CallToolRequestParams::new("write_note").with_arguments(arguments(json!({"title": "welcome", "text": "new"})));
    timeout(T, client.call_tool(write)).await.unwrap().unwrap();
    match timeout(T, subscription.next()).await.unwrap().unwrap() {
        Some(ServerNotification::ResourceUpdatedNotification(update)) => {
            assert_eq!(update.params.uri, "notes://welcome")
        }
        other => panic!("expected the note's update, got {other:?}"),
    }
    drop(subscription);
    client.cancel().await.unwrap();
}

/// A client that answers the booking example's questions as a user and a
/// host's model would, and counts them.
#[derive(Default)]
struct Answerer {
    asked: std::sync::Mutex<Vec<String>>,
}

// rmcp marks sampling and roots deprecated (SEP-2577 deprecates them after
// 2026-07-28); every version we serve still has them.
#[allow(deprecated)]
impl rmcp::ClientHandler for Answerer {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": true}},
            "clientInfo": {"name": "rmcp-answerer", "version": "1"}
        }))
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let request = serde_json::to_value(request).unwrap();
        self.asked.lock().unwrap().push(format!("elicit: {}", request["message"].as_str().unwrap_or_default()));
        Ok(serde_json::from_value(json!({"action": "accept",
            "content": {"day": "2026-12-24", "time": "20:00", "window": false}}))
        .unwrap())
    }

    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let params = serde_json::to_value(params).unwrap();
        self.asked.lock().unwrap().push(format!("sample: {}", params["maxTokens"]));
        Ok(serde_json::from_value(json!({"role": "assistant", "model": "rmcp-model", "stopReason": "endTurn",
            "content": {"type": "text", "text": "Booked."}}))
        .unwrap())
    }

    async fn list_roots(
        &self,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        self.asked.lock().unwrap().push("roots".into());
        Ok(serde_json::from_value(json!({"roots": [{"uri": "file:///srv/app", "name": "app"}]})).unwrap())
    }
}

/// Book a table and read the roots, answering every question, then check
/// what was asked.
async fn book_with(client: &RunningService<RoleClient, Answerer>) {
    let call = |name: &'static str, args: Value| CallToolRequestParams::new(name).with_arguments(arguments(args));
    let booked = timeout(T, client.call_tool(call("book", json!({"restaurant": "Chez Rust", "people": 3}))))
        .await
        .unwrap()
        .expect("rmcp drove the questions to a result");
    assert_eq!(text(&booked), "Booked. (reference R-1021)");
    let roots = timeout(T, client.call_tool(call("workspace_roots", json!({})))).await.unwrap().unwrap();
    assert_eq!(text(&roots), "file:///srv/app");
    let asked = client.service().asked.lock().unwrap().clone();
    assert_eq!(asked, ["elicit: When should I book Chez Rust?", "sample: 60", "roots"]);
}

#[tokio::test]
async fn rmcp_answers_the_booking_questions_as_requests_in_the_handshake() {
    let transport = TokioChildProcess::new(Command::new(crate::common::example("booking"))).unwrap();
    let client = timeout(T, Answerer::default().serve(transport)).await.unwrap().expect("rmcp accepted initialize");
    book_with(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_answers_the_booking_questions_as_multi_round_results_in_2026() {
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    };
    let transport = TokioChildProcess::new(Command::new(crate::common::example("booking"))).unwrap();
    let client = timeout(T, Answerer::default().serve_with_lifecycle(transport, mode)).await.unwrap().unwrap();
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    book_with(&client).await;
    client.cancel().await.unwrap();
}
