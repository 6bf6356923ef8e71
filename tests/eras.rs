//! Both protocol eras from one server: the handshake versions (2024-11-05
//! to 2025-11-25, after `initialize`) and the stateless 2026-07-28, whose
//! requests carry their version and capabilities in `_meta`.
//!
//! The projection table (`golden/eras.json`) is the exact `tools/list` and
//! `tools/call` answer of the same server in each of the five versions;
//! regenerate it with `UPDATE_GOLDEN=1` and read the diff. The other tests
//! check the rules one at a time, so a golden file updated carelessly
//! still cannot hide a broken rule.

use crate::common::memory::connect_as;
use mcp_runtime::prelude::*;
use mcp_runtime::{Server, transport::InMemoryClient};
use serde_json::{Value, json};

/// A WAV file holding one silent sample.
const WAV: [u8; 44] = [
    0x52, 0x49, 0x46, 0x46, 0x26, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20, 0x10, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x01, 0x00, 0x40, 0x1f, 0x00, 0x00, 0x00, 0x7d, 0x00, 0x00, 0x02, 0x00, 0x10, 0x00, 0x64, 0x61,
    0x74, 0x61, 0x02, 0x00, 0x00, 0x00,
];

/// The first `n` square numbers.
#[tool(title = "Squares", read_only, icon = "https://example.com/squares.png")]
fn squares(
    /// How many
    n: u32,
) -> Json<Vec<u32>> {
    Json((1..=n).map(|i| i * i).collect())
}

/// A note, a sound and a link.
#[tool(destructive)]
fn media() -> Vec<Content> {
    vec![
        Content::text("a note"),
        Audio::new(WAV, "audio/wav").into(),
        ResourceLink::new("file:///tmp/a.txt", "a.txt").into(),
    ]
}

/// Log at every level, then say done.
#[tool]
fn chatty(ctx: Context) -> &'static str {
    ctx.debug("debug line");
    ctx.info("info line");
    ctx.warning("warning line");
    ctx.error("error line");
    "done"
}

/// Ask the client for something only an eliciting client can give.
#[tool]
fn ask(ctx: Context) -> Result<&'static str, ToolError> {
    ctx.require_client_capability("elicitation")?;
    Ok("asked")
}

fn server() -> Server {
    Server::empty("eras", "1.2.3")
        .title("Eras")
        .instructions("Tools that look different in each protocol version.")
        .tool(squares::Tool)
        .tool(media::Tool)
        .tool(chatty::Tool)
        .tool(ask::Tool)
}

const MODERN: &str = "2026-07-28";

/// The `_meta` a 2026-07-28 request carries.
fn envelope(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "modern-client", "version": "2.0"},
    });
    meta.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    meta
}

/// A 2026-07-28 request: `params` plus the envelope (and `meta` extras).
async fn modern(client: &mut InMemoryClient, method: &str, mut params: Value, meta: Value) -> Value {
    params["_meta"] = envelope(meta);
    client.request(method, params).await.unwrap()
}

fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "eras", "title": "Eras", "version": "1.2.3"}})
}

#[tokio::test]
async fn server_discover_describes_the_server_without_a_handshake() {
    let mut client = server().connect_in_memory().unwrap();
    let discover = modern(&mut client, "server/discover", json!({}), json!({})).await;
    assert_eq!(
        discover["result"],
        json!({
            "supportedVersions": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
            "capabilities": {"tools": {"listChanged": true}, "logging": {}},
            "instructions": "Tools that look different in each protocol version.",
            "ttlMs": 0,
            "cacheScope": "public",
            "resultType": "complete",
            "_meta": server_info(),
        })
    );
    // Without the envelope it is a malformed 2026-07-28 request.
    let bare = client.request("server/discover", json!({})).await.unwrap();
    assert_eq!(bare["error"]["code"], -32602);
    assert!(bare["error"]["message"].as_str().unwrap().contains("io.modelcontextprotocol/protocolVersion"));
}

#[tokio::test]
async fn envelope_mistakes_get_the_codes_the_spec_defines() {
    let mut client = server().connect_in_memory().unwrap();
    let missing = client
        .request("tools/list", json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}))
        .await
        .unwrap();
    assert_eq!(missing["error"]["code"], -32602);
    assert!(missing["error"]["message"].as_str().unwrap().contains("clientCapabilities"));

    let unsupported = client
        .request(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await
        .unwrap();
    assert_eq!(unsupported["error"]["code"], -32022);
    assert_eq!(unsupported["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(unsupported["error"]["data"]["supported"][0], MODERN);

    // Methods the stateless era dropped.
    for method in ["ping", "logging/setLevel", "resources/list"] {
        let gone = modern(&mut client, method, json!({"level": "debug"}), json!({})).await;
        assert_eq!(gone["error"]["code"], -32601, "{method}: {gone}");
    }
    // A tool that needs a capability the request did not declare.
    let ask = modern(&mut client, "tools/call", json!({"name": "ask"}), json!({})).await;
    assert_eq!(ask["error"]["code"], -32021, "{ask}");
    assert_eq!(ask["error"]["data"], json!({"requiredCapabilities": {"elicitation": {}}}));
    let capable = modern(
        &mut client,
        "tools/call",
        json!({"name": "ask"}),
        json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}),
    )
    .await;
    assert_eq!(capable["result"]["content"][0]["text"], "asked");
    // Unknown tools stay protocol errors.
    let unknown = modern(&mut client, "tools/call", json!({"name": "nope"}), json!({})).await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tokio::test]
async fn log_messages_go_only_to_requests_that_ask_and_at_their_level() {
    let mut client = server().connect_in_memory().unwrap();
    let quiet = modern(&mut client, "tools/call", json!({"name": "chatty"}), json!({})).await;
    assert_eq!(quiet["result"]["content"][0]["text"], "done");
    assert!(client.take_notifications().is_empty(), "a request without logLevel got log messages");

    let loud = modern(
        &mut client,
        "tools/call",
        json!({"name": "chatty"}),
        json!({"io.modelcontextprotocol/logLevel": "warning"}),
    )
    .await;
    assert_eq!(loud["result"]["resultType"], "complete");
    let levels: Vec<Value> = client.take_notifications().iter().map(|n| n["params"]["level"].clone()).collect();
    assert_eq!(levels, [json!("warning"), json!("error")]);

    let bad = modern(
        &mut client,
        "tools/call",
        json!({"name": "chatty"}),
        json!({"io.modelcontextprotocol/logLevel": "loud"}),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602);
}

#[tokio::test]
async fn subscriptions_carry_tagged_list_changes_until_cancelled_and_close_at_the_end() {
    let server = server();
    let tools = server.tools_handle();
    let mut client = server.connect_in_memory().unwrap();
    let meta = envelope(json!({}));
    client
        .send(&json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true, "promptsListChanged": true}}}))
        .await
        .unwrap();
    client
        .send(&json!({"jsonrpc": "2.0", "id": "sub-2", "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}}))
        .await
        .unwrap();
    // A round trip, so both acknowledgements have arrived.
    modern(&mut client, "tools/list", json!({}), json!({})).await;
    let acks = client.take_notifications();
    assert_eq!(
        acks,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"}, "notifications": {"toolsListChanged": true}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub-2"}, "notifications": {"toolsListChanged": true}}}),
        ]
    );

    assert!(tools.disable("media"));
    modern(&mut client, "tools/list", json!({}), json!({})).await;
    let changes: Vec<Value> = client.take_notifications().iter().map(|n| n["params"]["_meta"].clone()).collect();
    assert_eq!(
        changes,
        [
            json!({"io.modelcontextprotocol/subscriptionId": "sub-1"}),
            json!({"io.modelcontextprotocol/subscriptionId": "sub-2"})
        ]
    );

    // Cancelled: nothing more for it, and no answer.
    client.notify("notifications/cancelled", json!({"requestId": "sub-1"})).await.unwrap();
    // A round trip: the server reads in order, so the cancel has been seen.
    modern(&mut client, "tools/list", json!({}), json!({})).await;
    assert!(client.take_notifications().is_empty());
    assert!(tools.enable("media"));
    modern(&mut client, "tools/list", json!({}), json!({})).await;
    let changes: Vec<Value> = client.take_notifications().iter().map(|n| n["params"]["_meta"].clone()).collect();
    assert_eq!(changes, [json!({"io.modelcontextprotocol/subscriptionId": "sub-2"})]);

    // The connection ends: the open subscription is answered, the
    // cancelled one is not, and the server does not wait for them.
    let started = std::time::Instant::now();
    let rest = client.close().await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "shutdown waited for a subscription");
    let mut info = server_info();
    info["io.modelcontextprotocol/subscriptionId"] = json!("sub-2");
    assert_eq!(rest, [json!({"jsonrpc": "2.0", "id": "sub-2", "result": {"_meta": info, "resultType": "complete"}})]);
}

#[tokio::test]
async fn one_connection_may_speak_both_eras() {
    let mut client = server().connect_in_memory().unwrap();
    // A handshake-era request before `initialize` is refused, with a hint.
    let early = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(early["error"]["code"], -32600);
    assert!(early["error"]["message"].as_str().unwrap().contains("io.modelcontextprotocol/protocolVersion"));
    // Stateless requests need no handshake.
    let listed = modern(&mut client, "tools/list", json!({}), json!({})).await;
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 4);

    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}});
    let response = client.request("initialize", init).await.unwrap();
    assert_eq!(response["result"]["protocolVersion"], "2025-06-18");
    let old = client.request("tools/call", json!({"name": "squares", "arguments": {"n": 2}})).await.unwrap();
    assert_eq!(old["result"]["structuredContent"], json!({"result": [1, 4]}));
    assert!(old["result"].get("resultType").is_none());
    // The envelope still makes a request stateless on this connection.
    let new = modern(&mut client, "tools/call", json!({"name": "squares", "arguments": {"n": 2}}), json!({})).await;
    assert_eq!(new["result"]["structuredContent"], json!([1, 4]));
    assert_eq!(new["result"]["resultType"], "complete");
    assert_eq!(client.request("ping", json!({})).await.unwrap()["result"], json!({}));
}

#[tokio::test]
async fn batches_are_taken_only_from_2025_03_26_clients() {
    let mut client = connect_as(server(), "2025-03-26").await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "squares", "arguments": {"n": 3}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "nope"},
    ]);
    client.send(&batch).await.unwrap();
    let answer = client.recv().await.unwrap().unwrap();
    let answers = answer.as_array().unwrap_or_else(|| panic!("not a batch answer: {answer}"));
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[0]["result"]["content"][0]["text"], "[1,4,9]");
    assert_eq!(answers[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert_eq!(answers[2]["error"]["code"], -32601);
    client.send(&json!([])).await.unwrap();
    assert_eq!(client.recv().await.unwrap().unwrap()["error"]["code"], -32600);

    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut client = connect_as(server(), version).await;
        client.send(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])).await.unwrap();
        let refused = client.recv().await.unwrap().unwrap();
        assert_eq!(refused["error"]["code"], -32600, "{version}: {refused}");
    }
}

/// What each version sees of `tools/list` and of three calls.
async fn answers(version: &str) -> Value {
    let mut client;
    let ask = |method: &'static str, params: Value| (method, params);
    let requests = [
        ask("tools/list", json!({})),
        ask("tools/call", json!({"name": "squares", "arguments": {"n": 3}})),
        ask("tools/call", json!({"name": "media", "arguments": {}})),
        ask("tools/call", json!({"name": "squares", "arguments": {"n": "three"}})),
    ];
    let mut out = Vec::new();
    if version == MODERN {
        client = server().connect_in_memory().unwrap();
        for (method, params) in requests {
            out.push(modern(&mut client, method, params, json!({})).await);
        }
    } else {
        client = connect_as(server(), version).await;
        for (method, params) in requests {
            out.push(client.request(method, params).await.unwrap());
        }
    }
    Value::Array(out.into_iter().map(|response| response["result"].clone()).collect())
}

#[tokio::test]
async fn each_version_sees_exactly_what_it_knows() {
    let versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN];
    let mut actual = serde_json::Map::new();
    for version in versions {
        actual.insert(version.to_owned(), answers(version).await);
    }
    let actual = Value::Object(actual);

    // The rules, one at a time.
    for version in versions {
        let [list, squares, media, bad] = actual[version].as_array().unwrap().as_slice() else { panic!() };
        let tool = |name: &str| list["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
        let names: Vec<&str> = list["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["ask", "chatty", "media", "squares"], "{version}: sorted by name");
        let at_least = |since: &str| version >= since;
        assert_eq!(tool("squares").get("annotations").is_some(), at_least("2025-03-26"), "{version} annotations");
        assert_eq!(tool("squares").get("title").is_some(), at_least("2025-06-18"), "{version} title");
        assert_eq!(tool("squares").get("outputSchema").is_some(), at_least("2025-06-18"), "{version} outputSchema");
        assert_eq!(tool("squares").get("icons").is_some(), at_least("2025-11-25"), "{version} icons");
        assert!(tool("squares").get("execution").is_none(), "{version} execution");
        assert_eq!(squares.get("structuredContent").is_some(), at_least("2025-06-18"), "{version} structured");
        let kinds: Vec<&str> =
            media["content"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
        let expected_kinds: &[&str] = match version {
            "2024-11-05" => &["text", "text"],
            "2025-03-26" => &["text", "audio"],
            _ => &["text", "audio", "resource_link"],
        };
        assert_eq!(kinds, expected_kinds, "{version} content");
        assert_eq!(bad["isError"], true, "{version}: bad arguments are a tool error");
        let stateless = version == MODERN;
        for result in [list, squares, media, bad] {
            assert_eq!(result.get("resultType").is_some(), stateless, "{version} resultType");
        }
        assert_eq!(list.get("ttlMs").is_some() && list.get("cacheScope").is_some(), stateless, "{version} cache");
        let structured = &squares["structuredContent"];
        match version {
            "2025-06-18" | "2025-11-25" => assert_eq!(structured, &json!({"result": [1, 4, 9]})),
            MODERN => assert_eq!(structured, &json!([1, 4, 9])),
            _ => {}
        }
    }

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/eras.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the golden file")).unwrap();
    for version in versions {
        assert_eq!(actual[version], expected[version], "the answers of {version}");
    }
}
