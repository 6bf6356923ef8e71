//! The fixtures the official MCP conformance suite calls, each behaving as
//! its scenario expects: every kind of content, logging, progress and a
//! tool error. Serves stdio by default, Streamable HTTP with `--http`:
//!
//! ```sh
//! cargo run --example everything -- --http 127.0.0.1:3001
//! ```
//!
//! The sampling and elicitation fixtures ask the client through
//! `Context::client` on the call's own stream; the suite's scenarios for
//! features this project does not have yet (multi-round tool calls) are
//! listed in `.ci/conformance-expected-failures.yml`.

use std::time::Duration;

use mcp_runtime::prelude::*;
use serde_json::{Value, json};

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

/// Log at `info` (a 2026-07-28 request without a `logLevel` gets none of it).
#[tool]
fn test_logging_tool(ctx: Context) -> &'static str {
    ctx.info("a log message for the request's stream, if it asked for one");
    "logged"
}

/// Ask the user for input: over 2026-07-28 no request goes to the client
/// on the response stream (multi-round results are not in this example
/// yet), so the call says so instead.
#[tool]
async fn test_streaming_elicitation(ctx: Context) -> Result<String, ToolError> {
    ctx.progress(1.0, 2.0);
    let name = json!({"message": "What is your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}});
    let asked = ctx.client().request::<Value>("elicitation/create", name).await;
    match asked {
        Ok(answer) => Ok(format!("the user answered {answer}")),
        Err(why) => Err(ToolError::new(format!("could not ask the user: {why}"))),
    }
}

/// Ask the client's model to answer `prompt` (a `sampling/createMessage`
/// request on the call's stream).
#[tool]
async fn test_sampling(
    /// What to ask the model
    prompt: String,
    ctx: Context,
) -> Result<String, ToolError> {
    let request =
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 100});
    let answer: Value = ctx.client().request("sampling/createMessage", request).await.map_err(asking_failed)?;
    Ok(format!("LLM response: {}", answer["content"]["text"].as_str().unwrap_or_default()))
}

/// Ask the user for a username and an email address.
#[tool]
async fn test_elicitation(
    /// What to tell the user
    message: String,
    ctx: Context,
) -> Result<String, ToolError> {
    let schema = json!({"type": "object", "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"}
    }, "required": ["username", "email"]});
    elicit(&ctx, json!({"message": message, "requestedSchema": schema}), "User response").await
}

/// Ask for values whose fields have defaults (SEP-1034).
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, ToolError> {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": true}
    }});
    elicit(
        &ctx,
        json!({"message": "Please review your information", "requestedSchema": schema}),
        "Elicitation completed",
    )
    .await
}

/// Ask for choices of every enum shape (SEP-1330).
#[tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, ToolError> {
    let titled = |values: [(&str, &str); 3]| -> Vec<Value> {
        values.iter().map(|(value, title)| json!({"const": value, "title": title})).collect()
    };
    let schema = json!({"type": "object", "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": titled([("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")])},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
            "items": {"anyOf": titled([("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])}}
    }});
    elicit(&ctx, json!({"message": "Please choose", "requestedSchema": schema}), "Elicitation completed").await
}

/// Send `elicitation/create` and describe the answer.
async fn elicit(ctx: &Context, request: Value, what: &str) -> Result<String, ToolError> {
    let answer: Value = ctx.client().request("elicitation/create", request).await.map_err(asking_failed)?;
    Ok(format!("{what}: action={}, content={}", answer["action"].as_str().unwrap_or("?"), answer["content"]))
}

/// A request to the client that got no answer, for the model.
fn asking_failed(why: mcp_runtime::ClientError) -> ToolError {
    ToolError::new(format!("could not ask the client: {why}"))
}

/// The lists the suite's diagnostic hooks change.
struct Lists {
    tools: mcp_runtime::ToolsHandle,
    prompts: mcp_runtime::PromptsHandle,
}

/// Change the tool list and change it back (each change is announced).
#[tool]
fn test_trigger_tool_change(lists: State<Lists>) -> &'static str {
    lists.tools.disable("test_simple_text");
    lists.tools.enable("test_simple_text");
    "the tool list changed"
}

/// Change the prompt list and change it back (each change is announced).
#[tool]
fn test_trigger_prompt_change(lists: State<Lists>) -> &'static str {
    lists.prompts.disable("test_simple_prompt");
    lists.prompts.enable("test_simple_prompt");
    "the prompt list changed"
}

/// A simple prompt for testing.
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// Values for `arg1` that start with what was typed.
async fn complete_arg1(completing: mcp_runtime::Completing) -> Vec<String> {
    let typed = completing.value().to_lowercase();
    ["testValue1", "testValue2", "other"]
        .into_iter()
        .filter(|v| v.to_lowercase().starts_with(&typed))
        .map(String::from)
        .collect()
}

/// A prompt with two required arguments.
#[prompt]
fn test_prompt_with_arguments(
    /// First test argument
    #[arg(complete = complete_arg1)]
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource.
#[prompt]
fn test_prompt_with_embedded_resource(
    /// The URI of the resource to embed
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(
            Embedded::text(resource_uri, "Embedded resource content for testing.").with_mime_type("text/plain"),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![PromptMessage::user(Image::new(PNG, "image/png")), PromptMessage::user("Please analyze the image above.")]
}

// ---------------------------------------------------------------------------
// Fixtures of the 2026-07-28 HTTP and schema scenarios (unscored by the
// suite): `http-custom-header-server-validation` and `json-schema-2020-12`.
// ---------------------------------------------------------------------------

/// Run a query in a region. `region` is mirrored in the `Mcp-Param-Region`
/// HTTP header by 2026-07-28 clients (SEP-2243); the server refuses a call
/// whose header and argument disagree.
#[tool]
fn test_custom_header(
    /// Where to run the query
    #[arg(header = "Region")]
    region: String,
    /// What to run
    query: Option<String>,
) -> String {
    format!("ran {:?} in region {region:?}", query.unwrap_or_default())
}

/// `json_schema_2020_12_tool`: its input schema is data (the scenario's,
/// verbatim) and keeps every JSON Schema 2020-12 keyword (`$schema`,
/// `$defs` with an `$anchor`, `$ref`, `allOf`/`anyOf`, `if`/`then`/`else`),
/// because the tool asks for the strict schema profile while the server's
/// other tools stay portable.
struct JsonSchema202012Tool;

impl mcp_runtime::Tool for JsonSchema202012Tool {
    fn definition(&self) -> mcp_runtime::ToolDefinition {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        });
        let Value::Object(schema) = schema else { unreachable!("an object") };
        let mut builder =
            mcp_runtime::ToolBuilder::new("json_schema_2020_12_tool", module_path!(), "JsonSchema202012Tool");
        builder
            .description(Some("Tool with JSON Schema 2020-12 features"))
            .schema_profile(mcp_runtime::SchemaProfile::Strict)
            .input_schema(schema);
        builder.build()
    }

    fn call(&self, request: mcp_runtime::RequestParts) -> mcp_runtime::BoxFuture<'static, CallToolResult> {
        // The arguments reach here only once they satisfy the schema.
        let text = format!("contact details accepted: {}", Value::Object(request.arguments().clone()));
        Box::pin(std::future::ready(CallToolResult::success(vec![Content::text(text)])))
    }
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let server = Server::new("everything", env!("CARGO_PKG_VERSION"))
        .instructions("Fixtures for the MCP conformance suite.")
        .tool(JsonSchema202012Tool);
    let lists = Lists { tools: server.tools_handle(), prompts: server.prompts_handle() };
    let server = server.with_state(lists);
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
