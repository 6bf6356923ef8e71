//! Each caller's own view of the catalog, through the protocol: a tool
//! unlocks others for its caller only (over stdio and Streamable HTTP, in
//! both eras: by session, and by the token's subject over OAuth), lists,
//! calls, reads, prompts and tool search follow the caller's view, only
//! the caller whose view changed is told its lists changed (and only the
//! lists the change touched), a mounted server's tools change the view
//! of the server their caller sees (never one all of a mount's callers
//! would share), and bad input (no caller, too many rules, too many bytes)
//! gets a clear tool error that changes nothing.

use std::time::Duration;

use crate::common::pipe_to;
use crate::oauth::{Issuer, Key, Mcp};
use futures_util::{Stream, StreamExt};
use mcp_core::{CallToolResult, Content, Notification, ProtocolVersion};
use mcp_runtime::catalog::{MAX_VIEW_BYTES, MAX_VIEW_RULES, ToolSearch, View};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime_client::{Client, ClientBuilder, EraChoice};
use serde_json::json;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// Unlock the admin tools and prompts, for you only.
#[tool]
fn unlock(view: View) -> Result<String, ToolError> {
    Ok(view.enable_tagged("admin")?.to_string())
}

/// Hide one tool, prompt or resource from you.
#[tool]
fn hide(name: String, view: View) -> Result<String, ToolError> {
    Ok(view.disable(name)?.to_string())
}

/// See the server's catalog again.
#[tool]
fn reset(view: View) -> Result<String, ToolError> {
    Ok(view.reset()?.to_string())
}

/// Refund an order to the card it was paid with.
#[tool(tags = ["admin"])]
fn refund(order: u32) -> String {
    format!("refunded {order}")
}

/// Show the price of a product.
#[tool]
fn price(product: String) -> String {
    format!("{product}: 3 EUR")
}

/// Audit the day's refunds.
#[prompt(tags = ["admin"])]
fn audit() -> String {
    "Audit today's refunds.".to_owned()
}

/// The ledger, for admins.
#[resource("shop://ledger", tags = ["admin"])]
fn ledger() -> String {
    "refund 7".to_owned()
}

/// The shop's opening hours.
#[resource("shop://hours")]
fn hours() -> String {
    "9 to 5".to_owned()
}

fn shop() -> Server {
    Server::empty("shop", "1")
        .tool(unlock::Tool)
        .tool(hide::Tool)
        .tool(reset::Tool)
        .tool(refund::Tool)
        .tool(price::Tool)
        .prompt(audit::Prompt)
        .resource(ledger::Resource)
        .resource(hours::Resource)
        .disable_tagged(["admin"])
}

fn builder(version: ProtocolVersion) -> ClientBuilder {
    Client::builder().name("views-test", "1").era(EraChoice::Version(version)).timeout(Duration::from_secs(20))
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| if let Content::Text(t) = c { Some(t.text.as_str()) } else { None }).collect()
}

async fn said(client: &Client, tool: &str, arguments: serde_json::Value) -> String {
    let result = client.call(tool, arguments).await.unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert_eq!(result.is_error, None, "{tool}: {}", text(&result));
    text(&result)
}

async fn tool_names(client: &Client) -> Vec<String> {
    client.list_tools().await.expect("tools/list").into_iter().map(|t| t.name).collect()
}

async fn prompt_names(client: &Client) -> Vec<String> {
    client.list_prompts().await.expect("prompts/list").into_iter().map(|p| p.name).collect()
}

async fn resource_uris(client: &Client) -> Vec<String> {
    client.list_resources().await.expect("resources/list").into_iter().map(|r| r.uri).collect()
}

/// The next notification's method.
async fn next(changes: &mut (impl Stream<Item = Notification> + Unpin), how: &str) -> String {
    let change = tokio::time::timeout(Duration::from_secs(10), changes.next()).await;
    let change = change.unwrap_or_else(|_| panic!("{how}: no notification in time"));
    change.expect("the stream is open").method
}

/// What `ann` and `bob`, two callers of one server, see as `ann` changes
/// her view: her lists, calls, reads and prompts follow it, his do not,
/// and only she is told (of the lists her change touched). `resources`
/// changes the server's catalog for everyone, to show what `bob` was told
/// first.
async fn two_callers(ann: &Client, bob: &Client, resources: &mcp_runtime::resources::ResourcesHandle, how: &str) {
    let base = ["hide", "price", "reset", "unlock"];
    assert_eq!(tool_names(ann).await, base, "{how}");
    let mut ann_changes = Box::pin(ann.watch(&[]).await.unwrap());
    let mut bob_changes = Box::pin(bob.watch(&[]).await.unwrap());

    assert_eq!(said(ann, "unlock", json!({})).await, "true", "{how}");
    // Her change touched tools, resources and prompts (each has an admin
    // component), in that order.
    assert_eq!(next(&mut ann_changes, how).await, "notifications/tools/list_changed", "{how}");
    assert_eq!(next(&mut ann_changes, how).await, "notifications/resources/list_changed", "{how}");
    assert_eq!(next(&mut ann_changes, how).await, "notifications/prompts/list_changed", "{how}");
    assert_eq!(tool_names(ann).await, ["hide", "price", "refund", "reset", "unlock"], "{how}");
    assert_eq!(said(ann, "refund", json!({"order": 7})).await, "refunded 7", "{how}");
    assert_eq!(prompt_names(ann).await, ["audit"], "{how}");
    assert_eq!(resource_uris(ann).await, ["shop://hours", "shop://ledger"], "{how}");
    let ledger = ann.read_resource("shop://ledger").await.expect("she reads the ledger");
    assert!(format!("{ledger:?}").contains("refund 7"), "{how}: {ledger:?}");
    assert_eq!(said(ann, "unlock", json!({})).await, "false", "{how}: already unlocked");

    // Bob sees the server's catalog, and was told nothing: the first
    // change he hears of is the server-wide one made after hers.
    assert_eq!(tool_names(bob).await, base, "{how}");
    let refused = bob.call("refund", json!({"order": 7})).await.unwrap_err();
    assert!(refused.to_string().contains("unknown tool: refund"), "{how}: {refused}");
    assert!(prompt_names(bob).await.is_empty(), "{how}");
    assert!(bob.get_prompt("audit", json!({})).await.is_err(), "{how}");
    assert!(bob.read_resource("shop://ledger").await.is_err(), "{how}");
    assert!(resources.disable("shop://hours"));
    assert_eq!(next(&mut bob_changes, how).await, "notifications/resources/list_changed", "{how}");
    assert_eq!(next(&mut ann_changes, how).await, "notifications/resources/list_changed", "{how}");
    assert_eq!(resource_uris(ann).await, ["shop://ledger"], "{how}: the server's change reaches her view too");
    assert!(resources.enable("shop://hours"));
    next(&mut bob_changes, how).await;
    next(&mut ann_changes, how).await;

    // Her own name rule beats her tag rule: one admin tool hidden again.
    assert_eq!(said(ann, "hide", json!({"name": "refund"})).await, "true", "{how}");
    assert_eq!(next(&mut ann_changes, how).await, "notifications/tools/list_changed", "{how}: tools only");
    assert_eq!(tool_names(ann).await, ["hide", "price", "reset", "unlock"], "{how}");
    assert_eq!(prompt_names(ann).await, ["audit"], "{how}: the prompt stays unlocked");
    assert_eq!(said(ann, "hide", json!({"name": "price"})).await, "true", "{how}");
    next(&mut ann_changes, how).await;
    assert!(ann.call("price", json!({"product": "tea"})).await.unwrap_err().to_string().contains("unknown tool"));
    assert_eq!(said(bob, "price", json!({"product": "tea"})).await, "tea: 3 EUR", "{how}: his price is there");

    assert_eq!(said(ann, "reset", json!({})).await, "true", "{how}");
    assert_eq!(next(&mut ann_changes, how).await, "notifications/tools/list_changed", "{how}");
    assert_eq!(tool_names(ann).await, base, "{how}: the server's catalog again");
    assert!(prompt_names(ann).await.is_empty(), "{how}");

    // Still nothing for bob but the server-wide changes.
    assert!(resources.disable("shop://hours"));
    assert_eq!(next(&mut bob_changes, how).await, "notifications/resources/list_changed", "{how}");
}

#[tokio::test]
async fn two_sessions_over_http_each_see_their_own_view() {
    let server = shop();
    let resources = server.resources_handle();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new()));
    let ann = builder(ProtocolVersion::LATEST_HANDSHAKE).http(&url).await.unwrap();
    let bob = builder(ProtocolVersion::LATEST_HANDSHAKE).http(&url).await.unwrap();
    two_callers(&ann, &bob, &resources, "2025-11-25 sessions").await;

    // A 2026-07-28 request without a token has no caller to keep a view for.
    let stateless = builder(ProtocolVersion::LATEST).http(&url).await.unwrap();
    let refused = stateless.call("unlock", json!({})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).starts_with("this request has no caller"), "{}", text(&refused));
    assert_eq!(tool_names(&stateless).await, ["hide", "price", "reset", "unlock"], "nothing changed");
}

#[tokio::test]
async fn two_users_over_oauth_each_see_their_own_view_in_both_eras() {
    for version in ERAS {
        let key = Key::a();
        let issuer = Issuer::start(&[&key]).await;
        let server = shop();
        let resources = server.resources_handle();
        let mcp = Mcp::serving(server, &issuer, |o| o).await;
        let token = |sub: &str| {
            let mut claims = mcp.claims(&issuer, "notes:read");
            claims["sub"] = json!(sub);
            key.sign(&claims)
        };
        let connect = |sub: &str| builder(version).header("Authorization", format!("Bearer {}", token(sub)));
        let url = format!("{}/mcp", mcp.base);
        let ann = connect("ann").http(&url).await.unwrap();
        let bob = connect("bob").http(&url).await.unwrap();
        two_callers(&ann, &bob, &resources, &format!("{version:?} over OAuth")).await;

        // A view is the user's: another connection of ann's sees it.
        assert_eq!(said(&ann, "unlock", json!({})).await, "true");
        let again = connect("ann").http(&url).await.unwrap();
        assert!(tool_names(&again).await.contains(&"refund".to_owned()), "{version:?}");
        assert!(!tool_names(&bob).await.contains(&"refund".to_owned()), "{version:?}");
    }
}

#[tokio::test]
async fn over_stdio_in_both_eras_a_view_reaches_lists_calls_and_tool_search() {
    for version in ERAS {
        let server = shop().tool_search(ToolSearch::new().hide_catalog(false));
        let client = pipe_to(server, builder(version)).await;
        let found = |query: &'static str| {
            let client = &client;
            async move {
                let answer = said(client, "search_tools", json!({"query": query})).await;
                let found: serde_json::Value = serde_json::from_str(&answer).unwrap();
                found["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
            }
        };
        let names: Vec<String> = found("refund an order").await;
        assert!(!names.contains(&"refund".to_owned()), "{version:?}: locked: {names:?}");
        let mut changes = Box::pin(client.watch(&[]).await.unwrap());
        assert_eq!(said(&client, "unlock", json!({})).await, "true", "{version:?}");
        let how = format!("{version:?}");
        assert_eq!(next(&mut changes, &how).await, "notifications/tools/list_changed", "{how}");
        let names: Vec<String> = found("refund an order").await;
        assert_eq!(names.first().map(String::as_str), Some("refund"), "{version:?}: {names:?}");
        let routed = said(&client, "call_tool", json!({"name": "refund", "arguments": {"order": 3}})).await;
        assert_eq!(routed, "refunded 3", "{version:?}");
        assert!(tool_names(&client).await.contains(&"refund".to_owned()), "{version:?}");
    }
}

#[tokio::test]
async fn a_view_holds_a_bounded_number_of_rules_and_a_refusal_changes_nothing() {
    let client = pipe_to(shop(), builder(ProtocolVersion::LATEST_HANDSHAKE)).await;
    for at in 0..MAX_VIEW_RULES {
        assert_eq!(said(&client, "hide", json!({"name": format!("tool-{at}")})).await, "true");
    }
    let refused = client.call("hide", json!({"name": "price"})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        text(&refused),
        format!("this caller's view has too many rules: at most {MAX_VIEW_RULES}; reset it first")
    );
    assert_eq!(said(&client, "price", json!({"product": "tea"})).await, "tea: 3 EUR", "the refused rule was not kept");
    assert_eq!(said(&client, "hide", json!({"name": "tool-0"})).await, "false", "a rule it holds is no new rule");
    assert_eq!(said(&client, "reset", json!({})).await, "true");
    assert_eq!(said(&client, "hide", json!({"name": "price"})).await, "true", "room again after a reset");
    assert!(!tool_names(&client).await.contains(&"price".to_owned()));

    // Names a caller passes in cannot grow its view past its bytes.
    let long = "x".repeat(MAX_VIEW_BYTES);
    let refused = client.call("hide", json!({"name": long})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    let why =
        format!("this caller's view is too large: at most {MAX_VIEW_BYTES} bytes of names and tags; reset it first");
    assert_eq!(text(&refused), why);
    assert!(!tool_names(&client).await.contains(&"price".to_owned()), "what it held is kept");
}

#[tokio::test]
async fn a_mounted_servers_tool_changes_the_view_its_caller_sees_the_catalog_through() {
    for version in ERAS {
        // The mounted server's tools are called directly (it has no
        // middleware of its own): its `unlock` changes the gateway's view.
        let desk = Server::empty("desk", "1").tool(unlock::Tool).tool(refund::Tool).tool(price::Tool);
        let gateway = Server::empty("gateway", "1").mount("desk", desk).disable_tagged(["admin"]);
        let client = pipe_to(gateway, builder(version)).await;
        assert_eq!(tool_names(&client).await, ["desk_price", "desk_unlock"], "{version:?}");
        let mut changes = Box::pin(client.watch(&[]).await.unwrap());
        assert_eq!(said(&client, "desk_unlock", json!({})).await, "true", "{version:?}");
        let how = format!("{version:?}");
        assert_eq!(next(&mut changes, &how).await, "notifications/tools/list_changed", "{how}");
        assert_eq!(tool_names(&client).await, ["desk_price", "desk_refund", "desk_unlock"], "{how}");
        assert_eq!(said(&client, "desk_refund", json!({"order": 9})).await, "refunded 9", "{how}");
    }
}

#[tokio::test]
async fn a_mounted_server_called_over_its_connection_keeps_no_view_all_the_mounts_callers_would_share() {
    // Its middleware must see the protocol's requests, so the mount calls
    // it over its connection, which every caller of the mount shares.
    let pass =
        |invocation: mcp_runtime::middleware::Invocation, next: mcp_runtime::middleware::Next| next.run(invocation);
    let desk =
        Server::empty("desk", "1").tool(unlock::Tool).tool(refund::Tool).layer(mcp_runtime::middleware::from_fn(pass));
    let gateway = Server::empty("gateway", "1").mount("desk", desk).disable_tagged(["admin"]);
    let client = pipe_to(gateway, builder(ProtocolVersion::LATEST_HANDSHAKE)).await;
    let refused = client.call("desk_unlock", json!({})).await.unwrap();
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    assert!(text(&refused).contains("a view here would be all of theirs"), "{}", text(&refused));
    assert_eq!(tool_names(&client).await, ["desk_unlock"], "nothing was unlocked for anyone");
}
