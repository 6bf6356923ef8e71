//! What tools return, as clients of each protocol version receive it:
//! structured output with its schema, wrapped where a version needs an
//! object, and only text where a version has no structured output.

use crate::common::memory::{call, connect_as, list};
use mcp_runtime::Server;
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

/// Counts of one text.
#[derive(Serialize, JsonSchema)]
struct Counts {
    /// Unicode scalar values.
    characters: usize,
    /// Runs of non-whitespace.
    words: usize,
}

/// Count the characters and words of a text.
#[tool]
fn count(text: String) -> Json<Counts> {
    Json(Counts { characters: text.chars().count(), words: text.split_whitespace().count() })
}

/// Halve a positive number.
#[tool]
async fn halve(x: f64) -> Result<Json<f64>, ToolError> {
    if x > 0.0 { Ok(Json(x / 2.0)) } else { Err(ToolError::new("x must be positive")) }
}

/// Split words.
#[tool(output_schema = false)]
fn split(text: String) -> Json<Vec<String>> {
    Json(text.split_whitespace().map(str::to_owned).collect())
}

/// A one-pixel picture.
#[tool]
fn pixel() -> Image {
    Image::new(vec![1, 2, 3], "image/png")
}

/// A picture read from disk.
#[tool]
fn picture(path: String) -> Result<Image, ToolError> {
    Image::from_path(&path).map_err(|e| ToolError::new(format!("cannot read {path}: {e}")))
}

/// A beep.
#[tool]
fn beep() -> Audio {
    Audio::new(vec![0, 255], "audio/wav")
}

/// A report, embedded and linked.
#[tool]
fn report() -> Vec<Content> {
    vec![
        Content::text("see below"),
        Embedded::text("file:///report.txt", "all good").into(),
        Embedded::blob("file:///report.bin", &[0xde, 0xad], "application/octet-stream").into(),
        ResourceLink::new("file:///full.pdf", "full report").with_mime_type("application/pdf").into(),
    ]
}

fn server() -> Server {
    Server::empty("results", "1")
        .tool(count::Tool)
        .tool(halve::Tool)
        .tool(split::Tool)
        .tool(pixel::Tool)
        .tool(picture::Tool)
        .tool(beep::Tool)
        .tool(report::Tool)
}

fn find<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap()
}

#[tokio::test]
async fn structured_output_comes_with_its_schema_and_a_text_mirror() {
    let mut client = connect_as(server(), "2025-11-25").await;
    let tools = list(&mut client).await;
    assert_eq!(
        find(&tools, "count")["outputSchema"],
        json!({
            "type": "object",
            "title": "Counts",
            "description": "Counts of one text.",
            "properties": {
                "characters": {"type": "integer", "minimum": 0, "description": "Unicode scalar values."},
                "words": {"type": "integer", "minimum": 0, "description": "Runs of non-whitespace."}
            },
            "required": ["characters", "words"]
        })
    );
    let result = call(&mut client, "count", json!({"text": "hello big world"})).await;
    assert_eq!(result["structuredContent"], json!({"characters": 15, "words": 3}));
    assert_eq!(result["content"], json!([{"type": "text", "text": "{\"characters\":15,\"words\":3}"}]));
    // The value validates against the schema the client was given.
    let schema = &find(&tools, "count")["outputSchema"];
    assert!(jsonschema::is_valid(schema, &result["structuredContent"]));
}

#[tokio::test]
async fn non_object_output_is_wrapped_for_versions_that_need_an_object() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = connect_as(server(), version).await;
        let tools = list(&mut client).await;
        let schema = &find(&tools, "halve")["outputSchema"];
        assert_eq!(
            *schema,
            json!({"type": "object", "properties": {"result": {"type": "number", "title": "double"}}, "required": ["result"]}),
            "{version}"
        );
        let result = call(&mut client, "halve", json!({"x": 5})).await;
        assert_eq!(result["structuredContent"], json!({"result": 2.5}), "{version}");
        assert_eq!(result["content"][0]["text"], "2.5");
        assert!(jsonschema::is_valid(schema, &result["structuredContent"]));
        // Errors carry no structured content.
        let result = call(&mut client, "halve", json!({"x": -1})).await;
        assert_eq!((result["isError"].clone(), result.get("structuredContent")), (json!(true), None), "{result}");
    }
}

#[tokio::test]
async fn versions_before_structured_output_get_text_only() {
    let mut client = connect_as(server(), "2025-03-26").await;
    let tools = list(&mut client).await;
    assert!(tools.iter().all(|t| t.get("outputSchema").is_none()));
    let result = call(&mut client, "count", json!({"text": "a b"})).await;
    assert_eq!(result.get("structuredContent"), None);
    assert_eq!(result["content"][0]["text"], "{\"characters\":3,\"words\":2}");
}

#[tokio::test]
async fn output_schemas_can_be_switched_off_per_tool_and_per_server() {
    let mut client = connect_as(server(), "2025-11-25").await;
    let listed = list(&mut client).await;
    assert_eq!(find(&listed, "split").get("outputSchema"), None);
    // Without a schema the value is still structured, wrapped into an object.
    let result = call(&mut client, "split", json!({"text": "a b"})).await;
    assert_eq!(result["structuredContent"], json!({"result": ["a", "b"]}));

    let mut client = connect_as(server().output_schemas(false), "2025-11-25").await;
    let listed = list(&mut client).await;
    assert!(listed.iter().all(|t| t.get("outputSchema").is_none()));
    let result = call(&mut client, "count", json!({"text": "a"})).await;
    assert_eq!(result["structuredContent"], json!({"characters": 1, "words": 1}));
}

#[test]
fn the_newest_version_takes_any_value_and_any_schema_unwrapped() {
    use mcp_runtime::protocol::{ProtocolVersion, Tool};
    let result = CallToolResult { structured_content: Some(json!(2.5)), ..CallToolResult::success(vec![]) };
    assert_eq!(result.clone().for_version(ProtocolVersion::V2026_07_28).structured_content, Some(json!(2.5)));
    assert_eq!(result.for_version(ProtocolVersion::V2025_11_25).structured_content, Some(json!({"result": 2.5})));
    let mut tool = Tool::new("t", serde_json::Map::new());
    tool.output_schema = json!({"type": "number"}).as_object().cloned();
    assert_eq!(
        Value::Object(tool.for_version(ProtocolVersion::V2026_07_28).output_schema.unwrap()),
        json!({"type": "number"})
    );
    assert_eq!(
        Value::Object(tool.for_version(ProtocolVersion::V2025_06_18).output_schema.unwrap()),
        json!({"type": "object", "properties": {"result": {"type": "number"}}, "required": ["result"]})
    );
}

#[tokio::test]
async fn media_and_resources_become_their_content_blocks() {
    let mut client = connect_as(server(), "2025-11-25").await;
    let result = call(&mut client, "pixel", json!({})).await;
    assert_eq!(result["content"], json!([{"type": "image", "data": "AQID", "mimeType": "image/png"}]));
    let result = call(&mut client, "beep", json!({})).await;
    assert_eq!(result["content"], json!([{"type": "audio", "data": "AP8=", "mimeType": "audio/wav"}]));

    let path = std::env::temp_dir().join(format!("mcp-results-{}.gif", std::process::id()));
    std::fs::write(&path, b"GIF89a").unwrap();
    let result = call(&mut client, "picture", json!({"path": path.to_str().unwrap()})).await;
    std::fs::remove_file(&path).unwrap();
    assert_eq!(result["content"], json!([{"type": "image", "data": "R0lGODlh", "mimeType": "image/gif"}]));
    let result = call(&mut client, "picture", json!({"path": "/no/such/file.png"})).await;
    assert_eq!(result["isError"], true);

    let result = call(&mut client, "report", json!({})).await;
    assert_eq!(
        result["content"],
        json!([
            {"type": "text", "text": "see below"},
            {"type": "resource", "resource": {"uri": "file:///report.txt", "text": "all good"}},
            {"type": "resource", "resource": {"uri": "file:///report.bin", "mimeType": "application/octet-stream", "blob": "3q0="}},
            {"type": "resource_link", "uri": "file:///full.pdf", "name": "full report", "mimeType": "application/pdf"}
        ])
    );
}

#[tokio::test]
async fn older_clients_get_what_their_version_has() {
    let mut client = connect_as(server(), "2024-11-05").await;
    let result = call(&mut client, "beep", json!({})).await;
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "[audio omitted: audio/wav is not supported by this client]"}])
    );
    let mut client = connect_as(server(), "2025-03-26").await;
    let result = call(&mut client, "report", json!({})).await;
    let kinds: Vec<&str> = result["content"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["text", "resource", "resource"], "no resource links before 2025-06-18");
}
