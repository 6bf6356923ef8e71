//! The client the official MCP conformance suite judges: the suite starts
//! it with the scenario server's URL as its last argument and
//! `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION` and
//! (for some scenarios) `MCP_CONFORMANCE_CONTEXT` in the environment, and
//! watches what it sends. Each scenario gets what an application would do
//! with such a server; nothing here is special-cased for the suite beyond
//! choosing which calls to make.
//!
//! `.ci/conformance-client` runs it: `conformance client --command
//! target/debug/examples/conformance_client --requirements <revision>`.

mod auth;

use std::process::ExitCode;

use mcp_runtime_client::protocol::skills::Skill;
use mcp_runtime_client::protocol::{ElicitAction, ElicitResult, ProtocolVersion, Tool};
use mcp_runtime_client::{Client, ClientBuilder, EraChoice, Error};
use serde_json::{Map, Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_max_level(tracing::Level::DEBUG).init();
    let Some(url) = std::env::args().nth(1).filter(|a| a.starts_with("http")) else {
        eprintln!("usage: conformance_client <server-url> (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance_client: {scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The era the suite asks for: a dated version through 2025-11-25 is the
/// handshake, 2026-07-28 is stateless.
fn era() -> EraChoice {
    std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .and_then(|v| ProtocolVersion::parse(&v))
        .map_or(EraChoice::Auto, EraChoice::Version)
}

fn builder() -> ClientBuilder {
    Client::builder()
        .name("mcp-runtime-conformance-client", env!("CARGO_PKG_VERSION"))
        .era(era())
        // Accept every form, with what the user would have left as it
        // was: the schema's defaults (the client fills those in), and
        // `true` for a confirmation.
        .on_elicitation(|params| async move {
            let mut content = Map::new();
            let properties = params.requested_schema.as_ref().and_then(|s| s.get("properties"));
            for (name, property) in properties.and_then(Value::as_object).into_iter().flatten() {
                if property.get("default").is_none() && property.get("type") == Some(&json!("boolean")) {
                    content.insert(name.clone(), json!(true));
                }
            }
            Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content) })
        })
}

async fn run(scenario: &str, url: &str) -> Result<(), Error> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let mut builder = builder();
    if scenario.starts_with("auth/")
        && let Some(authorization) = auth::authorization(scenario, url, &context).map_err(Error::Transport)?
    {
        builder = builder.authorization(authorization);
    }
    let client = builder.http(url).await?;
    let tools = client.list_tools().await?;
    // Calls the scenario asks for by name, with its arguments.
    if let Some(calls) = context.get("toolCalls").and_then(Value::as_array) {
        for call in calls {
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
            client.call(name, call.get("arguments").cloned().unwrap_or(json!({}))).await?;
        }
        client.close().await;
        return Ok(());
    }
    match scenario {
        "initialize" => {}
        // Hand one tool's input schema back through another, verbatim:
        // what the client kept of it is what the server sees.
        "json-schema-2020-12-preservation" => {
            let focal = tools.iter().find(|t| t.name == "json_schema_2020_12_tool");
            let schema = focal.map(|t| Value::Object(t.input_schema.clone())).unwrap_or(json!({}));
            client.call("json_schema_echo", json!({ "schema": schema })).await?;
        }
        // MRTR: each tool's flow, one after another; the client answers
        // the input requests and retries by itself.
        "sep-2322-client-request-state" => {
            for tool in &tools {
                client.call(&tool.name, json!({})).await?;
            }
        }
        "http-standard-headers" => {
            if let Some(tool) = tools.first() {
                client.call(&tool.name, example_arguments(tool)).await?;
            }
            if let Some(resource) = client.list_resources().await?.first() {
                client.read_resource(&resource.uri).await?;
            }
            if let Some(prompt) = client.list_prompts().await?.first() {
                client.get_prompt(&prompt.name, json!({})).await?;
            }
        }
        // Skills: the host lists them and reads nothing more; a skill's
        // files are read when the model uses it, which these scenarios do
        // with each skill (all but no-prefetch, where none is used).
        "sep-2640-client-no-prefetch" => {
            client.list_skills().await?;
        }
        "sep-2640-client-verify-digest" | "sep-2640-client-verify-size" | "sep-2640-client-verify-frontmatter" => {
            for skill in client.list_skills().await? {
                use_skill(&client, &skill).await?;
            }
        }
        // Every other scenario: call each tool with arguments its schema
        // describes.
        _ => {
            for tool in &tools {
                match client.call(&tool.name, example_arguments(tool)).await {
                    Ok(_) => {}
                    // A refusal of one call is the server's to judge.
                    Err(Error::Server(error)) => eprintln!("{}: {error}", tool.name),
                    Err(error) => return Err(error),
                }
            }
        }
    }
    client.close().await;
    Ok(())
}

/// Load `skill` and read each file it lists, as a model following its
/// `SKILL.md` would; a skill whose content fails verification is refused
/// (and said so on stderr), not used.
async fn use_skill(client: &Client, skill: &Skill) -> Result<(), Error> {
    let loaded = match client.load_skill(skill).await {
        Ok(loaded) => loaded,
        Err(Error::Unverified(why)) => {
            eprintln!("refused the skill {}: {why}", skill.uri);
            return Ok(());
        }
        Err(error) => return Err(error),
    };
    for file in loaded.files() {
        loaded.read(file).await?;
    }
    Ok(())
}

/// Arguments a tool's input schema describes: each property's default,
/// else its first enum value, else a plain value of its type.
fn example_arguments(tool: &Tool) -> Value {
    let mut arguments = Map::new();
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        let value = property
            .get("default")
            .or_else(|| property.get("const"))
            .or_else(|| property.get("enum").and_then(|e| e.get(0)))
            .cloned()
            .unwrap_or_else(|| match property.get("type").and_then(Value::as_str) {
                Some("integer") | Some("number") => json!(1),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("example"),
            });
        arguments.insert(name.clone(), value);
    }
    Value::Object(arguments)
}
