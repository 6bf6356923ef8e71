//! Interop with an independent client: the official Rust SDK (`rmcp`)
//! spawns the calculator example, lists its tools and calls them. The test
//! fails if the SDK rejects any of our messages.

mod common;

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
    let transport = TokioChildProcess::new(Command::new(common::example("calculator"))).unwrap();
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
    let transport = TokioChildProcess::new(Command::new(common::example("calculator"))).unwrap();
    let client = timeout(T, ClientConfig::default().serve_with_lifecycle(transport, mode))
        .await
        .expect("discovery in time")
        .expect("rmcp accepted our server/discover");
    let info = client.peer_info().expect("server info from discovery");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    exercise(&client).await;
    client.cancel().await.unwrap();
}
