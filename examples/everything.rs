//! The fixtures the official MCP conformance suite calls, each behaving as
//! its scenario expects: every kind of content, logging, progress and a
//! tool error. Serves stdio by default, Streamable HTTP with `--http`:
//!
//! ```sh
//! cargo run --example everything -- --http 127.0.0.1:3001
//! ```
//!
//! The suite's scenarios for features this project does not have yet
//! (prompts, completions, sampling, elicitation) are listed in
//! `.ci/conformance-expected-failures.yml`.

use std::time::Duration;

use mcp_runtime::prelude::*;

/// A 1×1 PNG.
const PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1,
    0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file holding one silent sample.
const WAV: [u8; 44] = [
    0x52, 0x49, 0x46, 0x46, 0x26, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20, 0x10, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x01, 0x00, 0x40, 0x1f, 0x00, 0x00, 0x00, 0x7d, 0x00, 0x00, 0x02, 0x00, 0x10, 0x00, 0x64, 0x61,
    0x74, 0x61, 0x02, 0x00, 0x00, 0x00,
];

/// Return a simple text response.
#[tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Return a small PNG image.
#[tool]
fn test_image_content() -> Image {
    Image::new(PNG, "image/png")
}

/// Return a short WAV clip.
#[tool]
fn test_audio_content() -> Audio {
    Audio::new(WAV, "audio/wav")
}

/// Return an embedded text resource.
#[tool]
fn test_embedded_resource() -> Embedded {
    Embedded::text("test://embedded-resource", "This is an embedded resource content.").with_mime_type("text/plain")
}

/// Return text, an image and an embedded resource together.
#[tool]
fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Image::new(PNG, "image/png").into(),
        Embedded::text("test://mixed-content-resource", r#"{"test":"data","value":123}"#)
            .with_mime_type("application/json")
            .into(),
    ]
}

/// Send three log messages while running.
#[tool]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    ctx.info("Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool execution completed");
    "Tool with logging executed successfully"
}

/// Report progress at 0, 50 and 100 percent.
#[tool]
async fn test_tool_with_progress(ctx: Context) -> String {
    for done in [0.0, 50.0, 100.0] {
        ctx.progress(done, 100.0);
        // Updates closer than 50 ms apart are coalesced; these are not.
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    let token = ctx.meta().and_then(|meta| meta.get("progressToken")).map(ToString::to_string);
    format!("Progress completed (token {})", token.as_deref().unwrap_or("none"))
}

/// Fail on purpose, as a tool error the model can read.
#[tool]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new("This tool intentionally returns an error for testing"))
}

/// Static text for testing reads.
#[resource("test://static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static PNG for testing binary reads.
#[resource("test://static-binary", mime_type = "image/png")]
fn static_binary() -> Vec<u8> {
    PNG.to_vec()
}

/// What the template resource holds for one id.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateData {
    id: String,
    template_test: bool,
    data: String,
}

/// Data for one id: a resource template.
#[resource("test://template/{id}/data", mime_type = "application/json")]
fn template_data(id: String) -> Json<TemplateData> {
    Json(TemplateData { data: format!("Data for ID: {id}"), id, template_test: true })
}

/// A resource clients subscribe to.
#[resource("test://watched-resource", mime_type = "text/plain")]
fn watched_resource() -> &'static str {
    "This resource is watched for changes."
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let server =
        Server::new("everything", env!("CARGO_PKG_VERSION")).instructions("Fixtures for the MCP conformance suite.");
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => server.serve_stdio().await,
        (Some("--http"), Some(addr)) => server.serve_http(addr).await,
        _ => {
            eprintln!("usage: everything [--http <address, e.g. 127.0.0.1:3001>]");
            std::process::exit(2);
        }
    }
}
