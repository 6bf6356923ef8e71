//! The host example end to end: a local OpenAI-compatible endpoint that
//! answers with scripted tool calls, the calculator example as the MCP
//! server. The real tools run with the model's arguments, and their
//! results reach the model.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use mcp_runtime::axum::{self, Router, body::Bytes, extract::State, http::header::CONTENT_TYPE, routing::post};
use serde_json::{Value, json};

type Seen = Arc<Mutex<Vec<Value>>>;

/// The scripted model: first asks for two tool calls at once, then
/// answers with what the tools returned.
async fn chat(State(seen): State<Seen>, body: Bytes) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    let request: Value = serde_json::from_slice(&body).unwrap();
    let turn = {
        let mut seen = seen.lock().unwrap();
        seen.push(request.clone());
        seen.len()
    };
    let offered: Vec<&str> =
        request["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    let message = if offered.len() > 2 {
        // Several servers: say which tools were offered.
        json!({"role": "assistant", "content": offered.join(",")})
    } else if turn == 1 {
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "calculator",
                "arguments": "{\"operation\":\"multiply\",\"a\":17,\"b\":23}"}},
            {"id": "c2", "type": "function", "function": {"name": "text_analyzer",
                "arguments": "{\"text\":\"three little words\"}"}}
        ]})
    } else {
        let results: Vec<String> = request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| format!("{}={}", m["tool_call_id"].as_str().unwrap(), m["content"].as_str().unwrap()))
            .collect();
        json!({"role": "assistant", "content": format!("Done: {}", results.join("; "))})
    };
    let body = json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message}]});
    ([(CONTENT_TYPE, "application/json")], body.to_string())
}

/// The scripted model on a free loopback port, and what it was sent.
async fn model() -> (Seen, SocketAddr) {
    let seen: Seen = Arc::default();
    let app = Router::new().route("/v1/chat/completions", post(chat)).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (seen, addr)
}

/// Run the host example with `args` against the model at `addr`.
async fn host(addr: SocketAddr, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(crate::common::example("host"))
        .args(args)
        .env("OPENAI_BASE_URL", format!("http://{addr}/v1"))
        .env("OPENAI_API_KEY", "test-key")
        .env("OPENAI_MODEL", "test-model")
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_host_runs_the_models_tool_calls_and_feeds_back_the_results() {
    let (seen, addr) = model().await;

    let calculator = crate::common::example("calculator");
    let output = host(addr, &["--server", calculator.to_str().unwrap(), "What is 17 times 23?"]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    // The tools' own results, as the model saw them.
    assert_eq!(stdout.trim(), "Done: c1=result: 391; c2=characters: 18\nwords: 3");

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let first = &seen[0];
    assert_eq!(first["model"], "test-model");
    assert_eq!(first["messages"], json!([{"role": "user", "content": "What is 17 times 23?"}]));
    let offered: Vec<&str> =
        first["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(offered, ["calculator", "text_analyzer"]);
    assert_eq!(first["tools"][0]["type"], "function");
    assert!(first["tools"][0]["function"]["parameters"]["properties"]["operation"]["enum"].is_array());
    // The second turn carries the assistant's calls, then one result per
    // call, in the order of the calls.
    let messages = seen[1]["messages"].as_array().unwrap();
    assert_eq!(messages[1]["tool_calls"][0]["id"], "c1");
    assert_eq!(messages[2], json!({"role": "tool", "tool_call_id": "c1", "content": "result: 391"}));
    assert_eq!(messages[3]["tool_call_id"], "c2");
}

#[tokio::test]
async fn several_servers_from_an_mcp_servers_file_are_offered_under_their_names() {
    let (seen, addr) = model().await;

    let calculator = crate::common::example("calculator");
    let config = std::env::temp_dir().join(format!("mcp-host-{}.json", std::process::id()));
    let server = json!({"command": calculator, "args": [], "env": {"MCP_HOST_TEST": "1"}});
    std::fs::write(&config, json!({"mcpServers": {"first": server, "second": server}}).to_string()).unwrap();
    let output = host(addr, &["--config", config.to_str().unwrap(), "Which tools?"]).await;
    let _ = std::fs::remove_file(&config);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stdout.trim(), "first__calculator,first__text_analyzer,second__calculator,second__text_analyzer");
    assert_eq!(seen.lock().unwrap().len(), 1, "answered in one turn, with no tool call");
}
