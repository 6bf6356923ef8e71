//! Serialization round trips against the example messages of the MCP
//! specification (`docs/specification/2025-11-25/` and `2025-06-18/`:
//! `basic/lifecycle.mdx`, `server/tools.mdx`, `basic/utilities/*.mdx`).
//! Each example must parse into the typed model and serialize back to the
//! same JSON, so nothing a peer sends is lost or renamed.

use mcp_runtime_core::{
    CallToolParams, CallToolResult, CancelledParams, Content, InitializeParams, InitializeResult, ListToolsParams,
    ListToolsResult, Message, Notification, ProtocolVersion, Request, RequestId, ResourceContents, Response, Tool,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Parse `value` as `T`, check it serializes back to the same JSON.
fn round_trip<T: DeserializeOwned + Serialize>(value: Value) -> T {
    let typed: T = serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {value}"));
    assert_eq!(serde_json::to_value(&typed).unwrap(), value);
    typed
}

/// A full message: it classifies as expected and its envelope round-trips.
fn message(value: Value) -> Message {
    let message = Message::from_value(value.clone()).unwrap_or_else(|e| panic!("{}: {value}", e.reason));
    assert_eq!(serde_json::to_value(&message).unwrap(), value);
    message
}

fn params<T: DeserializeOwned + Serialize>(request: &Value) -> T {
    round_trip(request["params"].clone())
}

#[test]
fn initialize_request_and_response() {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}, "url": {}},
            "tasks": {"requests": {"elicitation": {"create": {}}, "sampling": {"createMessage": {}}}}},
        "clientInfo": {"name": "ExampleClient", "title": "Example Client Display Name", "version": "1.0.0",
            "description": "An example MCP client application",
            "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}],
            "websiteUrl": "https://example.com"}
    }});
    assert!(matches!(message(request.clone()), Message::Request(Request { ref method, .. }) if method == "initialize"));
    let init: InitializeParams = params(&request);
    assert_eq!(init.client_info.website_url.as_deref(), Some("https://example.com"));
    assert!(init.capabilities.other.contains_key("tasks"), "unnamed capabilities are kept");

    let response = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"logging": {}, "prompts": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true},
            "tools": {"listChanged": true}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}},
        "serverInfo": {"name": "ExampleServer", "title": "Example Server Display Name", "version": "1.0.0",
            "description": "An example MCP server providing tools and resources",
            "icons": [{"src": "https://example.com/server-icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}],
            "websiteUrl": "https://example.com/server"},
        "instructions": "Optional instructions for the client"
    }});
    let Message::Response(Response { outcome: mcp_runtime_core::Outcome::Result(result), .. }) = message(response)
    else {
        panic!("a result response")
    };
    let result: InitializeResult = round_trip(result);
    assert_eq!(result.protocol_version, ProtocolVersion::V2025_11_25);
    assert_eq!(result.capabilities.tools.unwrap().list_changed, Some(true));
    // What an older client may see of the server's info.
    let old = result.server_info.for_version(ProtocolVersion::V2025_06_18);
    assert_eq!(
        serde_json::to_value(old).unwrap(),
        json!({"name": "ExampleServer", "title": "Example Server Display Name", "version": "1.0.0"})
    );
}

#[test]
fn initialized_ping_and_pagination() {
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(message(initialized), Message::Notification(Notification::new("notifications/initialized", None)));
    let ping = json!({"jsonrpc": "2.0", "id": "123", "method": "ping"});
    assert_eq!(message(ping), Message::Request(Request::new("123", "ping", None)));
    let pong = json!({"jsonrpc": "2.0", "id": "123", "result": {}});
    assert_eq!(message(pong), Message::Response(Response::result(RequestId::from("123"), json!({}))));
    let next = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {"cursor": "eyJwYWdlIjogMn0="}});
    message(next.clone());
    let list: ListToolsParams = params(&next);
    assert_eq!(list.cursor.as_deref(), Some("eyJwYWdlIjogMn0="));
}

#[test]
fn tools_list_and_call() {
    let request =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "optional-cursor-value"}});
    message(request.clone());
    let _: ListToolsParams = params(&request);

    let response = json!({"tools": [{
        "name": "get_weather", "title": "Weather Information Provider",
        "description": "Get current weather information for a location",
        "inputSchema": {"type": "object", "properties": {"location": {"type": "string", "description": "City name or zip code"}},
            "required": ["location"]},
        "icons": [{"src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}],
        "execution": {"taskSupport": "optional"}
    }], "nextCursor": "next-page-cursor"});
    let list: ListToolsResult = round_trip(response);
    let tool = &list.tools[0];
    // Projection: 2025-06-18 knows neither icons nor execution.
    let projected = serde_json::to_value(tool.for_version(ProtocolVersion::V2025_06_18)).unwrap();
    assert!(projected.get("icons").is_none() && projected.get("execution").is_none(), "{projected}");
    let oldest = serde_json::to_value(tool.for_version(ProtocolVersion::V2024_11_05)).unwrap();
    assert!(oldest.get("title").is_none(), "{oldest}");

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"location": "New York"}}});
    message(call.clone());
    let call: CallToolParams = params(&call);
    assert_eq!(call.arguments.unwrap()["location"], "New York");

    let result: CallToolResult = round_trip(json!({"content": [{"type": "text",
        "text": "Current weather in New York:\nTemperature: 72°F\nConditions: Partly cloudy"}], "isError": false}));
    assert!(!result.is_error());
    let failed: CallToolResult = round_trip(json!({"content": [{"type": "text",
        "text": "Invalid departure date: must be in the future. Current date is 08/08/2025."}], "isError": true}));
    assert!(failed.is_error());

    let unknown =
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Unknown tool: invalid_tool_name"}});
    let Message::Response(Response { outcome: mcp_runtime_core::Outcome::Error(error), .. }) = message(unknown) else {
        panic!("an error response")
    };
    assert_eq!(error.code, mcp_runtime_core::codes::INVALID_PARAMS);
    let unsupported = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unsupported protocol version",
        "data": {"supported": ["2024-11-05"], "requested": "1.0.0"}}});
    message(unsupported);
}

#[test]
fn structured_output_and_schemas() {
    let tool: Tool = round_trip(json!({
        "name": "get_weather_data", "title": "Weather Data Retriever",
        "description": "Get current weather data for a location",
        "inputSchema": {"type": "object", "properties": {"location": {"type": "string", "description": "City name or zip code"}},
            "required": ["location"]},
        "outputSchema": {"type": "object", "properties": {
            "temperature": {"type": "number", "description": "Temperature in celsius"},
            "conditions": {"type": "string", "description": "Weather conditions description"},
            "humidity": {"type": "number", "description": "Humidity percentage"}},
            "required": ["temperature", "conditions", "humidity"]}
    }));
    assert!(tool.for_version(ProtocolVersion::V2025_03_26).output_schema.is_none());
    let result: CallToolResult = round_trip(json!({
        "content": [{"type": "text", "text": "{\"temperature\": 22.5, \"conditions\": \"Partly cloudy\", \"humidity\": 65}"}],
        "structuredContent": {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}
    }));
    let old = result.clone().for_version(ProtocolVersion::V2025_03_26);
    assert!(old.structured_content.is_none() && old.content == result.content);
    let _: Tool = round_trip(json!({"name": "get_current_time", "description": "Returns the current server time",
        "inputSchema": {"type": "object", "additionalProperties": false}}));
    let _: Tool = round_trip(json!({"name": "calculate_sum", "description": "Add two numbers", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}));
}

#[test]
fn content_blocks() {
    let text: Content = round_trip(json!({"type": "text", "text": "Tool result text"}));
    assert_eq!(text.as_text(), Some("Tool result text"));
    round_trip::<Content>(json!({"type": "image", "data": "base64-encoded-data", "mimeType": "image/png",
        "annotations": {"audience": ["user"], "priority": 0.9}}));
    let audio: Content =
        round_trip(json!({"type": "audio", "data": "base64-encoded-audio-data", "mimeType": "audio/wav"}));
    let result = CallToolResult::success(vec![audio]).for_version(ProtocolVersion::V2024_11_05);
    assert!(result.content[0].as_text().unwrap().contains("audio/wav"), "audio becomes a note for 2024-11-05");
    round_trip::<Content>(json!({"type": "resource_link", "uri": "file:///project/src/main.rs", "name": "main.rs",
        "description": "Primary application entry point", "mimeType": "text/x-rust",
        "annotations": {"audience": ["assistant"], "priority": 0.9}}));
    // The spec's example puts `annotations` inside `resource`, although the
    // schema defines them on the embedded-resource block; they are not kept
    // there, and everything the schema defines is.
    let embedded: Content = serde_json::from_value(json!({"type": "resource", "resource": {
        "uri": "file:///project/src/main.rs", "mimeType": "text/x-rust",
        "text": "fn main() {\n    println!(\"Hello world!\");\n}",
        "annotations": {"audience": ["user", "assistant"], "priority": 0.7, "lastModified": "2025-05-03T14:30:00Z"}}}))
    .unwrap();
    let Content::Resource(resource) = &embedded else { panic!("an embedded resource") };
    assert!(matches!(&resource.resource, ResourceContents::Text { uri, .. } if uri == "file:///project/src/main.rs"));
    round_trip::<Content>(json!({"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAEC"},
        "annotations": {"audience": ["user"], "priority": 0.7, "lastModified": "2025-05-03T14:30:00Z"}}));
}

#[test]
fn notifications() {
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "123", "reason": "User requested cancellation"}});
    message(cancelled.clone());
    let params: CancelledParams = params(&cancelled);
    assert_eq!(params.request_id, Some(RequestId::from("123")));
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
    message(changed);
}
