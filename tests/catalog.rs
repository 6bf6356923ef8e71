//! Catalog transforms through the protocol, in both eras: tags on every
//! kind and the rules that switch tagged components off (and a mount's
//! `tagged` filter reading our own tags); tool search hiding the catalog
//! behind `search_tools` and `call_tool`, its bad input, and its ranking
//! on a corpus of the reference servers' real tool lists, served by the
//! `catalog` example over stdio and Streamable HTTP.

use std::path::PathBuf;
use std::time::Duration;

use crate::common::pipe_to;
use futures_util::StreamExt;
use mcp_core::{CallToolResult, Content, ProtocolVersion};
use mcp_runtime::catalog::ToolSearch;
use mcp_runtime::prelude::*;
use mcp_runtime::proxy::Mount;
use mcp_runtime_client::{Client, ClientBuilder, EraChoice};
use serde_json::{Value, json};

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// Refund an order to the card it was paid with.
#[tool(tags = ["billing", "admin"])]
fn refund(
    /// The order's number
    order: u32,
) -> String {
    format!("refunded {order}")
}

/// Show the price of a product in the shop.
#[tool(tags = ["billing"])]
fn price(product: String) -> String {
    format!("{product}: 3 EUR")
}

/// Forecast tomorrow's weather for a city.
#[tool]
fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// The invoice template.
#[resource("billing://template", tags = ["billing"])]
fn template() -> String {
    "Dear customer".to_owned()
}

/// Explain an invoice line by line.
#[prompt(tags = ["admin"])]
fn explain() -> String {
    "Explain this invoice.".to_owned()
}

fn builder(version: ProtocolVersion) -> ClientBuilder {
    Client::builder().name("catalog-test", "1").era(EraChoice::Version(version)).timeout(Duration::from_secs(20))
}

fn shop() -> Server {
    Server::empty("shop", "1")
        .tool(refund::Tool)
        .tool(price::Tool)
        .tool(forecast::Tool)
        .resource(template::Resource)
        .prompt(explain::Prompt)
}

async fn tool_names(client: &Client) -> Vec<String> {
    client.list_tools().await.expect("tools/list").into_iter().map(|t| t.name).collect()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| if let Content::Text(t) = c { Some(t.text.as_str()) } else { None }).collect()
}

/// The names `search_tools` found, best first.
async fn search(client: &Client, arguments: Value) -> Vec<String> {
    let result = client.call("search_tools", arguments.clone()).await.expect("search_tools answers");
    assert_eq!(result.is_error, None, "{arguments}: {}", text(&result));
    let found: Value = serde_json::from_str(&text(&result)).expect("the answer is JSON");
    found["tools"].as_array().expect("a list of tools").iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn tags_are_listed_and_a_tag_rule_switches_every_kind_off_and_on() {
    for version in ERAS {
        let server = shop().disable_tagged(["admin"]);
        let tools = server.tools_handle();
        let client = pipe_to(server, builder(version)).await;
        let listed = client.list_tools().await.unwrap();
        let names: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["forecast", "price"], "`refund` is tagged admin: {version:?}");
        assert_eq!(listed[1].meta.as_ref().unwrap()["tags"], json!(["billing"]), "tags travel in `_meta`");
        assert!(client.list_prompts().await.unwrap().is_empty(), "the admin prompt is off too");
        assert_eq!(client.list_resources().await.unwrap().len(), 1, "the billing resource is not admin");
        let refused = client.call("refund", json!({"order": 7})).await.unwrap_err();
        assert!(refused.to_string().contains("unknown tool: refund"), "{refused}");

        let mut changes = client.watch(&[]).await.unwrap();
        assert!(tools.enable_tagged("admin"));
        let change = tokio::time::timeout(Duration::from_secs(5), changes.next()).await.expect("a list change");
        assert_eq!(change.unwrap().method, "notifications/tools/list_changed", "{version:?}");
        assert_eq!(tool_names(&client).await, ["forecast", "price", "refund"]);
        assert_eq!(text(&client.call("refund", json!({"order": 7})).await.unwrap()), "refunded 7");
        assert!(!tools.enable_tagged("admin"), "already on");
        assert!(tools.disable_tagged("billing"));
        assert_eq!(tool_names(&client).await, ["forecast"], "both billing tools are off");
    }
}

#[tokio::test]
async fn resources_are_switched_off_and_on_by_tag_through_their_handle() {
    let server = shop();
    let resources = server.resources_handle();
    let client = pipe_to(server, builder(ProtocolVersion::LATEST_HANDSHAKE)).await;
    let listed = || async { client.list_resources().await.unwrap().len() };
    assert_eq!(listed().await, 1);
    assert!(resources.disable_tagged("billing"));
    assert_eq!(listed().await, 0, "the billing resource is off");
    assert!(!resources.disable_tagged("billing"), "already off");
    assert!(resources.enable_tagged("billing"));
    assert_eq!(listed().await, 1, "and back");
}

#[tokio::test]
async fn an_import_leaves_what_tag_rules_switched_off_and_the_search_tools_behind() {
    let other = shop().disable_tagged(["admin"]).tool_search(ToolSearch::new());
    let host = Server::empty("host", "1").import("shop", other);
    let client = pipe_to(host, builder(ProtocolVersion::LATEST)).await;
    assert_eq!(tool_names(&client).await, ["shop_forecast", "shop_price"]);
}

#[tokio::test]
async fn a_mount_filters_by_the_tags_our_own_components_carry() {
    for version in ERAS {
        let gateway = Server::empty("gateway", "1").mount_with(Mount::new("shop", shop()).tagged(["billing"]));
        let client = pipe_to(gateway, builder(version)).await;
        assert_eq!(tool_names(&client).await, ["shop_price", "shop_refund"], "{version:?}");
        let gateway = Server::empty("gateway", "1").mount_with(Mount::new("shop", shop()).except_tagged(["billing"]));
        let client = pipe_to(gateway, builder(version)).await;
        assert_eq!(tool_names(&client).await, ["shop_forecast"], "{version:?}");
    }
}

#[tokio::test]
async fn search_hides_the_catalog_and_finds_tools_added_while_it_runs() {
    for version in ERAS {
        let server = shop().tool_search(ToolSearch::new().always_list(["forecast"]));
        let tools = server.tools_handle();
        let client = pipe_to(server, builder(version)).await;
        assert_eq!(tool_names(&client).await, ["call_tool", "forecast", "search_tools"], "{version:?}");
        assert_eq!(search(&client, json!({"query": "give money back for an order"})).await[0], "refund");
        assert_eq!(search(&client, json!({"query": "weather in Paris", "limit": 1})).await, ["forecast"]);
        assert_eq!(search(&client, json!({"query": "^(price|refund)$", "regex": true})).await, ["price", "refund"]);
        assert!(search(&client, json!({"query": "spaceship"})).await.is_empty(), "nothing matches");

        // A tool added at run time is found; one disabled is not.
        /// Translate a text into another language.
        #[tool]
        fn translate(text: String, language: String) -> String {
            format!("{text} ({language})")
        }
        tools.add(translate::Tool).unwrap();
        assert_eq!(search(&client, json!({"query": "translate into German", "limit": 1})).await, ["translate"]);
        tools.disable("translate");
        assert!(!search(&client, json!({"query": "translate into German"})).await.contains(&"translate".to_owned()));

        // The catalog kept visible.
        let client = pipe_to(shop().tool_search(ToolSearch::new().hide_catalog(false)), builder(version)).await;
        assert_eq!(tool_names(&client).await, ["call_tool", "forecast", "price", "refund", "search_tools"]);
    }
}

#[tokio::test]
async fn call_tool_calls_the_named_tool_with_its_own_checks() {
    for version in ERAS {
        let client = pipe_to(shop().tool_search(ToolSearch::new()), builder(version)).await;
        let called = client.call("call_tool", json!({"name": "price", "arguments": {"product": "tea"}})).await.unwrap();
        assert_eq!(text(&called), "tea: 3 EUR", "{version:?}");
        let direct = client.call("price", json!({"product": "tea"})).await.unwrap();
        assert_eq!(text(&direct), "tea: 3 EUR", "a hidden tool can still be called by name");

        let bad = client.call("call_tool", json!({"name": "refund", "arguments": {"order": "seven"}})).await.unwrap();
        assert_eq!(bad.is_error, Some(true), "the named tool's argument check applies");
        assert!(text(&bad).contains("order"), "{}", text(&bad));
        let unknown = client.call("call_tool", json!({"name": "refnud", "arguments": {}})).await.unwrap_err();
        assert!(unknown.to_string().contains("did you mean `refund`?"), "{unknown}");
        let itself = client.call("call_tool", json!({"name": "call_tool"})).await.unwrap_err();
        assert!(itself.to_string().contains("calls another tool, not itself"), "{itself}");
        let nameless = client.call("call_tool", json!({"arguments": {}})).await.unwrap();
        assert_eq!(nameless.is_error, Some(true));
        assert!(text(&nameless).contains("name"), "{}", text(&nameless));
    }
}

#[tokio::test]
async fn bad_queries_get_clear_tool_errors_and_a_hostile_regex_ends() {
    let client = pipe_to(shop().tool_search(ToolSearch::new()), builder(ProtocolVersion::LATEST)).await;
    let error = |arguments: Value| {
        let client = &client;
        async move {
            let result = client.call("search_tools", arguments).await.expect("an answer");
            assert_eq!(result.is_error, Some(true), "{}", text(&result));
            text(&result)
        }
    };
    assert!(error(json!({"query": "   "})).await.contains("`query` is empty"));
    assert!(error(json!({"query": "x".repeat(5_000)})).await.contains("5000 characters long; at most 1000"));
    assert!(error(json!({"query": "refund", "limit": 0})).await.contains("between 1 and 50"));
    assert!(error(json!({"query": "(unclosed", "regex": true})).await.contains("not a regex"));
    // Compiles to far more than the size limit allows.
    assert!(error(json!({"query": "(?:a{100}){100}(?:b{100}){100}", "regex": true})).await.contains("not a regex"));
    // Catastrophic for a backtracking engine; linear here.
    let nested = "(a+)+$";
    assert!(search(&client, json!({"query": nested, "regex": true})).await.is_empty());
}

/// The `catalog` example serving the reference servers' tools.
fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/catalog/reference-tools.json")
}

async fn over_stdio(version: ProtocolVersion) -> Client {
    let corpus = corpus();
    builder(version)
        .command(crate::common::example("catalog"), [std::ffi::OsStr::new("--tools"), corpus.as_os_str()])
        .await
        .unwrap()
}

async fn over_http() -> (tokio::process::Child, String) {
    let corpus = corpus();
    let args = ["--tools".as_ref(), corpus.as_os_str(), "--http".as_ref(), "127.0.0.1:0".as_ref()];
    crate::common::example_over_http("catalog", &args).await
}

#[tokio::test]
async fn the_reference_servers_queries_find_their_tool_in_the_top_three() {
    let labelled: Vec<Value> =
        serde_json::from_str(include_str!("fixtures/catalog/queries.json")).expect("the labelled queries");
    let client = over_stdio(ProtocolVersion::LATEST).await;
    let mut misses = Vec::new();
    for case in &labelled {
        let (query, expected) = (case["query"].as_str().unwrap(), case["expect"].as_str().unwrap());
        let found = search(&client, json!({"query": query, "limit": 3})).await;
        if !found.iter().any(|name| name == expected) {
            misses.push(format!("{query:?} -> {found:?}, not {expected}"));
        }
    }
    let hits = labelled.len() - misses.len();
    assert!(
        hits * 10 >= labelled.len() * 9,
        "{hits} of {} in the top 3; misses:\n{}",
        labelled.len(),
        misses.join("\n")
    );
    client.close().await;
}

/// What every transport and era must show of the example.
async fn exercise(client: &Client, how: &str) {
    assert_eq!(tool_names(client).await, ["call_tool", "search_tools"], "{how}");
    let found = search(client, json!({"query": "send a message to a slack channel", "limit": 3})).await;
    assert_eq!(found[0], "slack_post_message", "{how}: {found:?}");
    let arguments = json!({"channel_id": "C1", "text": "hello"});
    let called = client.call("call_tool", json!({"name": "slack_post_message", "arguments": arguments})).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text(&called)).unwrap(), arguments, "{how}: answers with its arguments");
    let direct = client.call("git_status", json!({"repo_path": "/src"})).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text(&direct)).unwrap(), json!({"repo_path": "/src"}), "{how}");
}

#[tokio::test]
async fn the_catalog_example_over_stdio_and_http_in_both_eras() {
    for version in ERAS {
        let client = over_stdio(version).await;
        assert_eq!(client.negotiated().version, version.as_str());
        exercise(&client, &format!("stdio {version:?}")).await;
        client.close().await;
    }
    let (_server, url) = over_http().await;
    for version in ERAS {
        let client = builder(version).http(&url).await.unwrap();
        assert_eq!(client.negotiated().version, version.as_str());
        exercise(&client, &format!("http {version:?}")).await;
        client.close().await;
    }
}

#[tokio::test]
async fn a_mounted_call_tool_reaches_only_what_the_mount_serves() {
    use mcp_runtime::middleware::{Invocation, Next, from_fn};
    // Called directly (no middleware of its own), and through its
    // in-memory connection (a layer of its own).
    let layered = || shop().layer(from_fn(|invocation: Invocation, next: Next| next.run(invocation)));
    for (how, inner) in [("direct", shop()), ("connected", layered())] {
        let inner = inner.tool_search(ToolSearch::new());
        let gateway = Server::empty("gateway", "1").mount_with(Mount::new("shop", inner).except_tagged(["admin"]));
        let client = pipe_to(gateway, builder(ProtocolVersion::LATEST)).await;
        let priced = client.call("shop_call_tool", json!({"name": "price", "arguments": {"product": "tea"}})).await;
        assert_eq!(text(&priced.unwrap()), "tea: 3 EUR", "{how}");
        // `refund` is tagged admin, which the mount leaves out: not by
        // name, and not through the mounted `call_tool` either.
        let refund = client.call("shop_call_tool", json!({"name": "refund", "arguments": {"order": 7}})).await.unwrap();
        assert_eq!(refund.is_error, Some(true), "{how}: {refund:?}");
        assert_eq!(text(&refund), "unknown tool: refund", "{how}");
    }
}
