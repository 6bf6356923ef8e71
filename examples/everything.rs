//! The fixtures the official MCP conformance suite calls, each behaving as
//! its scenario expects: every kind of content, logging, progress and a
//! tool error. Serves stdio by default, Streamable HTTP with `--http`:
//!
//! ```sh
//! cargo run --example everything -- --http 127.0.0.1:3001
//! ```
//!
//! The skills fixture (`pdf-processing`, a `SKILL.md` and a reference
//! file) is served from `everything/skills` as `skill://` resources.
//!
//! The sampling, elicitation and roots fixtures ask the client with one
//! `.await`: a request on the call's own stream in the handshake versions,
//! a multi-round result (`InputRequiredResult`) in 2026-07-28.

#[path = "everything/tasks.rs"]
mod tasks;

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
#[derive(serde::Serialize, schemars::JsonSchema)]
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

/// Ask the user for their name, reporting progress first: over 2026-07-28
/// the question comes back in the call's result (multi-round), never as a
/// request on the response stream.
#[tool]
async fn test_streaming_elicitation(ctx: Context) -> Result<String, ToolError> {
    ctx.progress(1.0, 2.0);
    match ctx.elicit::<Name>("What is your name?").await? {
        Elicited::Accept(Name { name }) => Ok(format!("Hello, {name}!")),
        _ => Ok("the user did not say".into()),
    }
}

/// Needs the client's model: a client that did not declare `sampling` is
/// refused (2026-07-28: `-32021`).
#[tool]
async fn test_missing_capability(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx.sample(Sampling::user("Say hello").max_tokens(20)).await?;
    Ok(answer.text())
}

/// Ask the client's model to answer `prompt`.
#[tool]
async fn test_sampling(
    /// What to ask the model
    prompt: String,
    ctx: Context,
) -> Result<String, ToolError> {
    let answer = ctx.sample(Sampling::user(prompt).max_tokens(100)).await?;
    Ok(format!("LLM response: {}", answer.text()))
}

/// What `test_elicitation` asks for.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Account {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Ask the user for a username and an email address.
#[tool]
async fn test_elicitation(
    /// What to tell the user
    message: String,
    ctx: Context,
) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<Account>(message).await? {
        Elicited::Accept(account) => format!("User response: action=accept, content={}", json!(account)),
        Elicited::Decline => "User response: action=decline".into(),
        Elicited::Cancel => "User response: action=cancel".into(),
    })
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
    let answer: Value = ctx.client().request("elicitation/create", request).await?;
    Ok(format!("{what}: action={}, content={}", answer["action"].as_str().unwrap_or("?"), answer["content"]))
}

/// A name, as the multi-round fixtures ask for it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// A favourite colour (the second round of `test_input_required_result_multi_round`).
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Colour {
    color: String,
}

/// Ask for the user's name and greet them (multi-round in 2026-07-28, a
/// request to the client before).
#[tool]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, ToolError> {
    let name = ctx.elicit::<Name>("What is your name?").key("user_name").await?;
    Ok(match name {
        Elicited::Accept(Name { name }) => format!("Hello, {name}!"),
        _ => "Hello, stranger!".into(),
    })
}

/// Ask the client's model a question and return its answer.
#[tool]
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, ToolError> {
    let question = Sampling::user("What is the capital of France?").max_tokens(100);
    Ok(ctx.sample(question).key("capital_question").await?.text())
}

/// List the client's roots.
#[tool]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, ToolError> {
    let roots = ctx.roots().key("client_roots").await?;
    Ok(format!("roots: {}", roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(", ")))
}

/// Carry a value across rounds in the sealed state, then confirm it came
/// back.
#[tool]
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, ToolError> {
    let round_one = ctx.once("started", async { "round one".to_owned() }).await;
    let confirmed = ctx.elicit::<Confirm>("Confirm to continue").key("confirm").await?;
    let confirmed = confirmed.accepted().is_some_and(|c| c.ok);
    Ok(format!("state-ok: kept '{round_one}' across rounds; confirmed: {confirmed}"))
}

/// A yes-or-no confirmation.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    #[serde(default)]
    ok: bool,
}

/// Ask three questions at once: they go out in one round.
#[tool]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, ToolError> {
    let (name, greeting, roots) = tokio::join!(
        ctx.elicit::<Name>("What is your name?").key("user_name"),
        ctx.sample(Sampling::user("Generate a greeting").max_tokens(50)).key("greeting"),
        ctx.roots().key("client_roots"),
    );
    let name = name?.accepted().map_or_else(|| "stranger".to_owned(), |n| n.name);
    Ok(format!("{} {name} ({} roots)", greeting?.text(), roots?.len()))
}

/// Ask two questions, one after the other: two rounds.
#[tool]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, ToolError> {
    let name = ctx.elicit::<Name>("Step 1: What is your name?").key("step1").await?;
    let colour = ctx.elicit::<Colour>("Step 2: What is your favorite color?").key("step2").await?;
    let name = name.accepted().map_or_else(|| "stranger".to_owned(), |n| n.name);
    let colour = colour.accepted().map_or_else(|| "no colour".to_owned(), |c| c.color);
    Ok(format!("{name} likes {colour}"))
}

/// A question whose state the suite alters: the retry is refused.
#[tool]
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, ToolError> {
    let confirmed = ctx.elicit::<Confirm>("Confirm to continue").key("confirm").await?;
    Ok(format!("confirmed: {}", confirmed.accepted().is_some_and(|c| c.ok)))
}

/// Ask only what the client can answer: the user if it declared
/// elicitation, its model if it declared sampling.
#[tool]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, ToolError> {
    let client = ctx.client();
    let mut answers = Vec::new();
    if client.has_capability("elicitation") {
        let name = ctx.elicit::<Name>("What is your name?").key("user_name").await?;
        answers.push(name.accepted().map_or_else(|| "no name".to_owned(), |n| n.name));
    }
    if client.has_capability("sampling") {
        answers.push(ctx.sample(Sampling::user("Generate a greeting").max_tokens(50)).key("greeting").await?.text());
    }
    Ok(answers.join("; "))
}

/// What context the prompt should use.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PromptContext {
    context: String,
}

/// A prompt that asks the user for its context first.
#[prompt]
async fn test_input_required_result_prompt(ctx: Context) -> Result<String, PromptError> {
    let asked = ctx.elicit::<PromptContext>("What context should the prompt use?").key("user_context").await?;
    let context = asked.accepted().map_or_else(|| "none".to_owned(), |c| c.context);
    Ok(format!("Use this context: {context}"))
}

/// End the call's event stream before the result (SEP-1699 polling): the
/// client reconnects with `Last-Event-ID` and gets the result there.
#[tool]
async fn test_reconnection(ctx: Context) -> &'static str {
    ctx.close_stream();
    tokio::time::sleep(Duration::from_millis(300)).await;
    "reconnected and got the result"
}

/// The lists the suite's diagnostic hooks change.
struct Lists {
    tools: mcp_runtime::tools::ToolsHandle,
    prompts: mcp_runtime::prompts::PromptsHandle,
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
async fn complete_arg1(completing: mcp_runtime::completion::Completing) -> Vec<String> {
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

impl mcp_runtime::tools::Tool for JsonSchema202012Tool {
    fn definition(&self) -> mcp_runtime::tools::ToolDefinition {
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
            mcp_runtime::tools::ToolBuilder::new("json_schema_2020_12_tool", module_path!(), "JsonSchema202012Tool");
        builder
            .description(Some("Tool with JSON Schema 2020-12 features"))
            .schema_profile(mcp_runtime::clients::SchemaProfile::Strict)
            .input_schema(schema);
        builder.build()
    }

    fn call(
        &self,
        request: mcp_runtime::request::RequestParts,
    ) -> mcp_runtime::tools::BoxFuture<'static, CallToolResult> {
        // The arguments reach here only once they satisfy the schema.
        let text = format!("contact details accepted: {}", Value::Object(request.arguments().clone()));
        Box::pin(std::future::ready(CallToolResult::success(vec![Content::text(text)])))
    }
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let server = Server::new("everything", env!("CARGO_PKG_VERSION"))
        .instructions("Fixtures for the MCP conformance suite.")
        .tool(JsonSchema202012Tool)
        .skills(concat!(env!("CARGO_MANIFEST_DIR"), "/everything/skills"));
    let lists = Lists { tools: server.tools_handle(), prompts: server.prompts_handle() };
    // stdio, or Streamable HTTP with `--http ADDR` (or `MCP_TRANSPORT=http`).
    server.with_state(lists).run().await
}
