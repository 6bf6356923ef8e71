//! Resources and prompts offered as tools (`Server::resources_as_tools`,
//! `Server::prompts_as_tools`), through the protocol in both eras: each
//! tool answers as its protocol method would (lists, reads of fixed and
//! templated URIs, prompts with arguments, their bad input as tool
//! errors), sees what the caller sees (tag rules, a disabled tool), runs
//! the resources' own middleware and questions to the client, and is
//! reached through tool search's `call_tool` and through a mount.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::pipe_to;
use mcp_core::{CallToolResult, Content, ElicitAction, ElicitResult, ProtocolVersion};
use mcp_runtime::catalog::ToolSearch;
use mcp_runtime::middleware::{Invocation, Next, from_fn};
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime_client::{Client, EraChoice};
use serde_json::{Value, json};

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// The house rules.
#[resource("docs://rules", tags = ["internal"])]
fn rules() -> String {
    "Be kind.".to_owned()
}

/// The public readme.
#[resource("docs://readme", mime_type = "text/markdown")]
fn readme() -> String {
    "# Readme".to_owned()
}

/// A note by its title.
#[resource("notes://{title}")]
fn note(title: String) -> String {
    format!("note {title}")
}

/// The logo.
#[resource("docs://logo", mime_type = "image/png")]
fn logo() -> Vec<u8> {
    vec![137, 80, 78, 71]
}

/// Greet someone by name.
#[prompt]
fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Say hello to {name}.")
}

fn docs() -> Server {
    Server::empty("docs", "1")
        .resource(rules::Resource)
        .resource(readme::Resource)
        .resource(note::Resource)
        .resource(logo::Resource)
        .prompt(greet::Prompt)
        .resources_as_tools()
        .prompts_as_tools()
}

fn builder(version: ProtocolVersion) -> mcp_runtime_client::ClientBuilder {
    Client::builder().name("as-tools-test", "1").era(EraChoice::Version(version)).timeout(Duration::from_secs(20))
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| if let Content::Text(t) = c { Some(t.text.as_str()) } else { None }).collect()
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    client.call(name, arguments).await.unwrap_or_else(|e| panic!("{name} answers: {e}"))
}

/// A tool result's structured content, which must be there.
fn structured(result: &CallToolResult) -> &Value {
    assert_eq!(result.is_error, None, "{}", text(result));
    result.structured_content.as_ref().expect("structured content")
}

fn uris(listed: &Value) -> Vec<&str> {
    listed["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn each_tool_answers_as_its_method_would() {
    for version in ERAS {
        let client = pipe_to(docs(), builder(version)).await;
        let mut names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        names.sort();
        assert_eq!(
            names,
            ["get_prompt", "list_prompts", "list_resource_templates", "list_resources", "read_resource"],
            "{version:?}"
        );

        let listed = call(&client, "list_resources", json!({})).await;
        assert_eq!(uris(structured(&listed)), ["docs://logo", "docs://readme", "docs://rules"], "{version:?}");
        assert_eq!(text(&listed), serde_json::to_string(structured(&listed)).unwrap(), "the same as text");
        assert_eq!(structured(&listed).get("resultType"), None, "the method's era stamps are not the tool's");
        let templates = call(&client, "list_resource_templates", json!({})).await;
        assert_eq!(structured(&templates)["resourceTemplates"][0]["uriTemplate"], "notes://{title}");

        assert_eq!(text(&call(&client, "read_resource", json!({"uri": "docs://readme"})).await), "# Readme");
        assert_eq!(text(&call(&client, "read_resource", json!({"uri": "notes://groceries"})).await), "note groceries");
        let logo = call(&client, "read_resource", json!({"uri": "docs://logo"})).await;
        let Content::Resource(embedded) = &logo.content[0] else { panic!("a blob is embedded: {logo:?}") };
        let embedded = serde_json::to_value(embedded).unwrap();
        assert_eq!(
            (&embedded["resource"]["uri"], &embedded["resource"]["mimeType"]),
            (&json!("docs://logo"), &json!("image/png"))
        );

        let prompts = call(&client, "list_prompts", json!({})).await;
        assert_eq!(structured(&prompts)["prompts"][0]["name"], "greet");
        let greeting = call(&client, "get_prompt", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
        assert_eq!(structured(&greeting)["messages"][0]["content"]["text"], "Say hello to Ada.", "{version:?}");
    }
}

#[tokio::test]
async fn bad_input_is_a_tool_error_the_model_can_read() {
    for version in ERAS {
        let client = pipe_to(docs(), builder(version)).await;
        let cases = [
            ("read_resource", json!({"uri": "nowhere://x"}), "nowhere://x"),
            ("read_resource", json!({}), "uri"),
            ("read_resource", json!({"uri": 7}), "uri"),
            ("get_prompt", json!({"name": "greet"}), "name"),
            ("get_prompt", json!({"name": "shout"}), "shout"),
            ("list_resources", json!({"cursor": "not a cursor"}), "cursor"),
        ];
        for (tool, arguments, mentions) in cases {
            let result = call(&client, tool, arguments.clone()).await;
            assert_eq!(result.is_error, Some(true), "{tool} {arguments}: {result:?}");
            assert!(text(&result).contains(mentions), "{tool} {arguments} ({version:?}): {}", text(&result));
        }
        let refused = client.call("read_resource", json!([1])).await;
        let refused = refused.map(|r| text(&r)).unwrap_or_else(|e| e.to_string());
        assert!(refused.contains("arguments"), "{refused}");
        // And the server is still there.
        assert_eq!(text(&call(&client, "read_resource", json!({"uri": "docs://readme"})).await), "# Readme");
    }
}

#[tokio::test]
async fn the_tools_see_what_the_caller_sees() {
    let server = docs().disable_tagged(["internal"]);
    let tools = server.tools_handle();
    let client = pipe_to(server, builder(ProtocolVersion::LATEST)).await;
    let listed = call(&client, "list_resources", json!({})).await;
    assert_eq!(uris(structured(&listed)), ["docs://logo", "docs://readme"], "the internal rules are off");
    let rules = call(&client, "read_resource", json!({"uri": "docs://rules"})).await;
    assert_eq!(rules.is_error, Some(true), "not read through the tool either: {rules:?}");
    assert!(tools.disable("read_resource"));
    let refused = client.call("read_resource", json!({"uri": "docs://readme"})).await;
    let refused = refused.map(|r| text(&r)).unwrap_or_else(|e| e.to_string());
    assert!(refused.contains("unknown tool: read_resource"), "a disabled tool is gone: {refused}");
}

#[tokio::test]
async fn a_read_runs_the_resources_middleware_as_a_read() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let server = docs().layer(from_fn(move |invocation: Invocation, next: Next| {
        record.lock().unwrap().push(format!("{:?} {}", invocation.kind(), invocation.name()));
        next.run(invocation)
    }));
    let client = pipe_to(server, builder(ProtocolVersion::LATEST)).await;
    call(&client, "read_resource", json!({"uri": "docs://readme"})).await;
    call(&client, "get_prompt", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
    assert_eq!(*seen.lock().unwrap(), ["Resource docs://readme", "Prompt greet"]);
}

/// Ask which tone, then render.
#[prompt]
async fn tone(ctx: Context) -> Result<String, PromptError> {
    let asked = ctx.elicit::<Confirm>("Formal?").await?;
    Ok(if asked.accepted().is_some_and(|c| c.yes) { "Write formally." } else { "Write casually." }.into())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    yes: bool,
}

#[tokio::test]
async fn a_prompt_that_asks_the_client_asks_through_the_tool_in_both_eras() {
    for version in ERAS {
        let server = Server::empty("t", "1").prompt(tone::Prompt).prompts_as_tools();
        let mut client = TestClient::builder(server)
            .version(version)
            .on_elicit(|_| ElicitResult {
                action: ElicitAction::Accept,
                content: json!({"yes": true}).as_object().cloned(),
            })
            .connect()
            .await
            .unwrap();
        let result = client.call_tool("get_prompt", json!({"name": "tone"})).await.unwrap();
        let structured = result.structured_content.as_ref().unwrap_or_else(|| panic!("{version:?}: {result:?}"));
        assert_eq!(structured["messages"][0]["content"]["text"], "Write formally.", "{version:?}");
    }
}

#[tokio::test]
async fn tool_search_finds_and_calls_them() {
    let client = pipe_to(docs().tool_search(ToolSearch::new()), builder(ProtocolVersion::LATEST)).await;
    let found = call(&client, "search_tools", json!({"query": "read a resource by its uri"})).await;
    let found: Value = serde_json::from_str(&text(&found)).unwrap();
    assert_eq!(found["tools"][0]["name"], "read_resource", "{found}");
    let read = call(&client, "call_tool", json!({"name": "read_resource", "arguments": {"uri": "notes://a"}})).await;
    assert_eq!(text(&read), "note a");
    let prompt = call(
        &client,
        "call_tool",
        json!({"name": "get_prompt", "arguments": {"name": "greet", "arguments": {"name": "Bo"}}}),
    )
    .await;
    assert_eq!(structured(&prompt)["messages"][0]["content"]["text"], "Say hello to Bo.");
}

#[tokio::test]
async fn a_mounted_servers_tools_read_its_resources() {
    for version in ERAS {
        let gateway = Server::empty("gateway", "1").mount("docs", docs());
        let client = pipe_to(gateway, builder(version)).await;
        let read = call(&client, "docs_read_resource", json!({"uri": "docs://readme"})).await;
        assert_eq!(text(&read), "# Readme", "{version:?}: {read:?}");
    }
}

#[tokio::test]
async fn over_streamable_http_in_both_eras() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let served = Server::empty("gateway", "1").mount("docs", docs());
    tokio::spawn(
        async move { served.serve_http_on(listener, mcp_runtime::transport::HttpOptions::new()).await.unwrap() },
    );
    for version in ERAS {
        let client = builder(version).http(&url).await.unwrap();
        let read = call(&client, "docs_read_resource", json!({"uri": "notes://over-http"})).await;
        assert_eq!(text(&read), "note over-http", "{version:?}: {read:?}");
        let prompt = call(&client, "docs_get_prompt", json!({"name": "greet", "arguments": {"name": "Cy"}})).await;
        assert_eq!(structured(&prompt)["messages"][0]["content"]["text"], "Say hello to Cy.", "{version:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_mount_that_serves_some_resources_does_not_read_through_the_mounted_tools() {
    use mcp_runtime::proxy::Mount;
    let gateway = Server::empty("gateway", "1").mount_with(Mount::new("docs", docs()).except_tagged(["internal"]));
    let client = pipe_to(gateway, builder(ProtocolVersion::LATEST)).await;
    let rules = call(&client, "docs_read_resource", json!({"uri": "docs://rules"})).await;
    assert_eq!(rules.is_error, Some(true), "the internal rules stay behind the mount: {rules:?}");
    assert!(text(&rules).contains("offer them as tools on this server instead"), "{}", text(&rules));
    // Offered by the mounting server instead, they see what it serves.
    let gateway = Server::empty("gateway", "1")
        .mount_with(Mount::new("docs", docs()).except_tagged(["internal"]))
        .resources_as_tools();
    let client = pipe_to(gateway, builder(ProtocolVersion::LATEST)).await;
    let rules = call(&client, "read_resource", json!({"uri": "docs://rules"})).await;
    assert_eq!(rules.is_error, Some(true), "{rules:?}");
    let readme = call(&client, "list_resources", json!({})).await;
    let listed = uris(structured(&readme));
    assert!(!listed.iter().any(|u| u.ends_with("rules")), "{listed:?}");
}
