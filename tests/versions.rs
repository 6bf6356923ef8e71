//! Tool versions through the protocol, in both eras: versions of one name
//! side by side, the newest listed (dotted numbers compared as numbers)
//! with its `_meta.version`, calls routed by the version they name, an
//! unknown version refused naming those there are, pins (at start-up and
//! at run time), versions and the server's and a caller's visibility
//! rules, a mounted server's versions, and the start-up errors (a pin to a
//! missing version, one name and version twice, a blank version).

use std::time::Duration;

use crate::common::pipe_to;
use mcp_core::{CallToolResult, Content, ProtocolVersion};
use mcp_runtime::Error;
use mcp_runtime::catalog::View;
use mcp_runtime::middleware::Next;
use mcp_runtime::prelude::*;
use mcp_runtime::request::RequestParts;
use mcp_runtime::tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition};
use mcp_runtime_client::{Client, ClientBuilder, EraChoice};
use serde_json::{Value, json};

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// Search the catalog (first version).
#[tool(name = "search", version = "1")]
fn search_v1(query: String) -> String {
    format!("v1: {query}")
}

/// Search the catalog, ranked (second version).
#[tool(name = "search", version = "2", tags = ["beta"])]
fn search_v2(query: String) -> String {
    format!("v2: {query}")
}

/// Convert units (version 9).
#[tool(name = "convert", version = "9")]
fn convert_v9() -> &'static str {
    "v9"
}

/// Convert units (version 10).
#[tool(name = "convert", version = "10")]
fn convert_v10() -> &'static str {
    "v10"
}

/// Convert units (no version: older than any).
#[tool(name = "convert")]
fn convert_unversioned() -> &'static str {
    "unversioned"
}

/// Say hello (one version only, and none named).
#[tool]
fn hello() -> &'static str {
    "hello"
}

/// Another `search` of version 1.
#[tool(name = "search", version = "1")]
fn search_v1_again(query: String) -> String {
    query
}

/// Hide a tool from you.
#[tool]
fn hide(name: String, view: View) -> Result<String, ToolError> {
    Ok(view.disable(name)?.to_string())
}

/// A hand-written `search` whose version the builder sets.
struct Handwritten(&'static str);

impl Tool for Handwritten {
    fn definition(&self) -> ToolDefinition {
        let mut builder = ToolBuilder::new("search", module_path!(), "Handwritten");
        builder.description(Some("Search, written by hand.")).version(self.0);
        builder.build()
    }

    fn call(&self, _: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let version = self.0;
        Box::pin(async move { CallToolResult::success(vec![mcp_runtime::Content::text(format!("v{version}"))]) })
    }
}

fn shop() -> Server {
    Server::empty("shop", "1")
        .tool(search_v2::Tool)
        .tool(search_v1::Tool)
        .tool(convert_v9::Tool)
        .tool(convert_unversioned::Tool)
        .tool(convert_v10::Tool)
        .tool(hello::Tool)
        .tool(hide::Tool)
}

fn builder(version: ProtocolVersion) -> ClientBuilder {
    Client::builder().name("versions-test", "1").era(EraChoice::Version(version)).timeout(Duration::from_secs(20))
}

fn text(result: &Value) -> String {
    let result: CallToolResult = serde_json::from_value(result.clone()).expect("a tool result");
    assert_eq!(result.is_error, None, "{result:?}");
    result.content.iter().filter_map(|c| if let Content::Text(t) = c { Some(t.text.as_str()) } else { None }).collect()
}

/// `tools/call` of `name`, naming `version` in its `_meta` if given.
async fn call(client: &Client, name: &str, version: Option<Value>) -> Result<String, String> {
    let mut params = json!({"name": name, "arguments": {"query": "shoes"}});
    if !name.ends_with("search") {
        params["arguments"] = json!({});
    }
    if let Some(version) = version {
        params["_meta"] = json!({"version": version});
    }
    client.request("tools/call", params).await.map(|result| text(&result)).map_err(|e| e.to_string())
}

/// Each listed tool's name and `_meta.version` (`-` for none), in order.
async fn listed(client: &Client) -> Vec<String> {
    let tools = client.list_tools().await.expect("tools/list");
    tools
        .iter()
        .map(|t| {
            let version = t.meta.as_ref().and_then(|m| m.get("version")).and_then(Value::as_str).unwrap_or("-");
            format!("{} {version}", t.name)
        })
        .collect()
}

#[tokio::test]
async fn the_newest_is_listed_and_called_and_a_call_may_name_another() {
    for era in ERAS {
        let how = format!("{era:?}");
        let client = pipe_to(shop(), builder(era)).await;
        assert_eq!(listed(&client).await, ["convert 10", "hello -", "hide -", "search 2"], "{how}");
        assert_eq!(call(&client, "search", None).await.as_deref(), Ok("v2: shoes"), "{how}");
        assert_eq!(call(&client, "search", Some(json!("1"))).await.as_deref(), Ok("v1: shoes"), "{how}");
        assert_eq!(call(&client, "search", Some(json!("2"))).await.as_deref(), Ok("v2: shoes"), "{how}");
        assert_eq!(call(&client, "convert", None).await.as_deref(), Ok("v10"), "{how}: 10 is newer than 9");
        assert_eq!(call(&client, "convert", Some(json!("9"))).await.as_deref(), Ok("v9"), "{how}");

        let refused = call(&client, "search", Some(json!("3"))).await.unwrap_err();
        assert!(refused.contains(r#"tool `search` has no version "3"; its versions: "1", "2""#), "{how}: {refused}");
        let refused = call(&client, "search", Some(json!(2))).await.unwrap_err();
        assert!(refused.contains("`_meta.version` names a tool's version as a string"), "{how}: {refused}");
        // A tool without versions is called whatever `_meta.version` says
        // (the key is no one's to reserve).
        assert_eq!(call(&client, "hello", Some(json!("7"))).await.as_deref(), Ok("hello"), "{how}");
    }
}

#[tokio::test]
async fn a_pin_makes_an_older_version_current_at_start_up_and_at_run_time() {
    for era in ERAS {
        let how = format!("{era:?}");
        let server = shop().pin_version("search", "1");
        let tools = server.tools_handle();
        let client = pipe_to(server, builder(era)).await;
        assert_eq!(listed(&client).await, ["convert 10", "hello -", "hide -", "search 1"], "{how}");
        assert_eq!(call(&client, "search", None).await.as_deref(), Ok("v1: shoes"), "{how}");
        assert_eq!(call(&client, "search", Some(json!("2"))).await.as_deref(), Ok("v2: shoes"), "{how}");

        assert_eq!(tools.versions("search"), ["1", "2"], "{how}");
        assert_eq!(tools.versions("convert"), ["9", "10"], "{how}");
        assert!(!tools.pin_version("search", "7"), "{how}: no such version");
        assert!(!tools.pin_version("search", "1"), "{how}: already pinned");
        assert!(tools.pin_version("convert", "9"), "{how}");
        assert_eq!(listed(&client).await, ["convert 9", "hello -", "hide -", "search 1"], "{how}");
        assert_eq!(call(&client, "convert", None).await.as_deref(), Ok("v9"), "{how}");
        assert!(tools.unpin_version("search"), "{how}");
        assert!(!tools.unpin_version("search"), "{how}: no longer pinned");
        assert_eq!(listed(&client).await, ["convert 9", "hello -", "hide -", "search 2"], "{how}");

        // A version added at run time that is newer becomes current,
        // unless pinned; removing the name removes every version.
        tools.add(Handwritten("3")).expect("a third version");
        assert_eq!(call(&client, "search", None).await.as_deref(), Ok("v3"), "{how}");
        assert_eq!(call(&client, "search", Some(json!("1"))).await.as_deref(), Ok("v1: shoes"), "{how}");
        assert!(tools.add(Handwritten("3")).is_err(), "{how}: one name and version twice");
        assert!(tools.remove("search"), "{how}");
        assert_eq!(listed(&client).await, ["convert 9", "hello -", "hide -"], "{how}");
        assert!(tools.versions("search").is_empty(), "{how}");
    }
}

#[tokio::test]
async fn versions_follow_the_servers_and_each_callers_visibility_rules() {
    for era in ERAS {
        let how = format!("{era:?}");
        // The newest is tagged "beta": with that tag off, the version
        // before it is current, and the beta one cannot be called.
        let client = pipe_to(shop().disable_tagged(["beta"]), builder(era)).await;
        assert!(listed(&client).await.contains(&"search 1".to_owned()), "{how}");
        assert_eq!(call(&client, "search", None).await.as_deref(), Ok("v1: shoes"), "{how}");
        let refused = call(&client, "search", Some(json!("2"))).await.unwrap_err();
        assert!(refused.contains(r#"has no version "2"; its versions: "1""#), "{how}: {refused}");

        // A caller who hides a name hides every version of it, from
        // lists and from calls that name a version.
        let ann = pipe_to(shop(), builder(era)).await;
        let hidden = ann.call("hide", json!({"name": "search"})).await.expect("hide");
        assert_eq!(hidden.is_error, None, "{how}: {hidden:?}");
        assert!(!listed(&ann).await.iter().any(|t| t.starts_with("search")), "{how}");
        for version in [None, Some(json!("1")), Some(json!("2"))] {
            let refused = call(&ann, "search", version.clone()).await.unwrap_err();
            assert!(refused.contains("unknown tool: search"), "{how}, {version:?}: {refused}");
        }
    }
}

#[tokio::test]
async fn a_mounted_servers_versions_are_listed_and_called_through_it() {
    for era in ERAS {
        // Called directly, and (with middleware of its own) over a
        // connection to it.
        let through = |inner: Server| inner.layer(mcp_runtime::middleware::from_fn(|i, next: Next| next.run(i)));
        for (inner, path) in [(shop(), "directly"), (through(shop()), "over its connection")] {
            let how = format!("{era:?}, {path}");
            let gateway = Server::empty("gateway", "1").mount("in", inner.pin_version("convert", "9"));
            let client = pipe_to(gateway, builder(era)).await;
            let tools = listed(&client).await;
            let expected = ["in_search 2".to_owned(), "in_convert 9".to_owned()];
            assert!(expected.iter().all(|t| tools.contains(t)), "{how}: {tools:?}");
            assert_eq!(call(&client, "in_search", None).await.as_deref(), Ok("v2: shoes"), "{how}");
            // The gateway knows only the version listed to it: its server
            // finds the others, and refuses what it does not have.
            assert_eq!(call(&client, "in_search", Some(json!("1"))).await.as_deref(), Ok("v1: shoes"), "{how}");
            assert_eq!(call(&client, "in_convert", Some(json!("10"))).await.as_deref(), Ok("v10"), "{how}");
            let params = json!({"name": "in_search", "arguments": {"query": "q"}, "_meta": {"version": "3"}});
            let refused = client.request("tools/call", params).await.expect("an error result");
            assert_eq!(refused["isError"], true, "{how}: {refused}");
            assert!(refused.to_string().contains(r#"has no version \"3\""#), "{how}: {refused}");
        }
    }
}

#[tokio::test]
async fn a_pin_to_a_missing_version_does_not_start_and_names_the_versions() {
    let error = shop().pin_version("search", "3").tool_definitions().unwrap_err();
    assert!(matches!(error, Error::UnknownVersion { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        r#"tool `search` is pinned to version "3", which it does not have; its versions are "1", "2""#
    );
    let error = shop().pin_version("hello", "1").tool_definitions().unwrap_err();
    assert!(error.to_string().contains("no tool `hello` has a version"), "{error}");
    let error = shop().pin_version("serach", "1").tool_definitions().unwrap_err();
    assert!(matches!(error, Error::UnknownVersion { .. }), "{error}: a typo in the name");
    assert!(shop().pin_version("search", "1").connect_in_memory().is_ok());
    assert!(shop().pin_version("search", "3").connect_in_memory().is_err(), "the server does not start");
}

#[test]
fn one_name_and_one_version_twice_is_still_a_duplicate() {
    let error = shop().tool(search_v1_again::Tool).tool_definitions().unwrap_err();
    assert!(matches!(error, Error::DuplicateTool { .. }), "{error}");
    assert!(error.to_string().contains("two tools are named `search`"), "{error}");
    // Without versions, as before.
    let error = shop().tool(convert_unversioned::Tool).tool_definitions().unwrap_err();
    assert!(matches!(error, Error::DuplicateTool { .. }), "{error}");
    // A hand-written version 2 is the macro's version 2 again.
    let error = shop().tool(Handwritten("2")).tool_definitions().unwrap_err();
    assert!(matches!(error, Error::DuplicateTool { .. }), "{error}");
}

#[test]
fn a_blank_version_from_the_builder_does_not_start() {
    let error = Server::empty("shop", "1").tool(Handwritten(" ")).tool_definitions().unwrap_err();
    assert!(matches!(error, Error::InvalidVersion { .. }), "{error}");
    assert!(error.to_string().contains("has a blank version"), "{error}");
    let definitions = Server::empty("shop", "1").tool(Handwritten("3")).tool_definitions().unwrap();
    assert_eq!(definitions[0].meta.as_ref().unwrap()["version"], "3");
}
