//! MCP Apps through the protocol: a host that declares the UI extension
//! and a plain client, each over a pipe in both eras, see the same server;
//! the host gets views and tools for views, the plain client plain tools.
//! The same server behind a mount keeps its views reachable under the
//! mount's names. (The example's view, rendered in Chromium by a host page,
//! is `.ci/apps-browser`'s test.)

use std::time::Duration;

use mcp_core::ProtocolVersion;
use mcp_core::apps::{EXTENSION, MIME_TYPE};
use mcp_runtime::apps::{Permission, View};
use mcp_runtime::prelude::*;
use mcp_runtime_client::{Client, ClientBuilder, EraChoice};
use serde_json::{Value, json};

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

const BARS: &str = "<!doctype html><html><body><div id=bars></div></body></html>";

/// Chart the numbers.
#[tool(ui = "ui://charts/bars")]
fn chart(values: Vec<f64>) -> Json<Vec<f64>> {
    Json(values)
}

/// Scale the chart; the chart's buttons call it.
#[tool(app_only, ui = "ui://charts/bars")]
fn rescale(factor: f64, values: Vec<f64>) -> Json<Vec<f64>> {
    Json(values.into_iter().map(|v| v * factor).collect())
}

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn bars() -> View {
    View::new("ui://charts/bars", BARS)
        .title("Bars")
        .connect_domains(["https://api.example.com"])
        .resource_domains(["https://cdn.example.com"])
        .permission(Permission::ClipboardWrite)
        .prefers_border(false)
}

fn server() -> Server {
    Server::empty("charts", "1").tool(chart::Tool).tool(rescale::Tool).tool(add::Tool).resource(bars())
}

/// A client that renders views, as hosts declare it.
fn host(version: ProtocolVersion) -> ClientBuilder {
    plain(version).extension(EXTENSION, json!({ "mimeTypes": [MIME_TYPE] }))
}

fn plain(version: ProtocolVersion) -> ClientBuilder {
    Client::builder().name("apps-test", "1").era(EraChoice::Version(version)).timeout(Duration::from_secs(10))
}

async fn connect(server: Server, client: ClientBuilder) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(server.serve(server_read, server_write));
    let (read, write) = tokio::io::split(client_end);
    client.io(read, write).await.expect("the client connects")
}

fn names(tools: &[mcp_core::Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

#[tokio::test]
async fn a_host_sees_views_and_tools_for_views() {
    for version in ERAS {
        let client = connect(server(), host(version)).await;
        let capabilities = serde_json::to_value(client.server_capabilities()).unwrap();
        assert_eq!(capabilities["extensions"][EXTENSION], json!({}), "{version}: {capabilities}");

        let tools = client.list_tools().await.unwrap();
        assert_eq!(names(&tools), ["add", "chart", "rescale"], "{version}");
        let chart = tools.iter().find(|t| t.name == "chart").unwrap();
        let meta = Value::Object(chart.meta.clone().unwrap());
        assert_eq!(meta["ui"], json!({ "resourceUri": "ui://charts/bars" }), "{version}");
        assert_eq!(meta["ui/resourceUri"], "ui://charts/bars", "{version}: the flat key early hosts read");
        let rescale = tools.iter().find(|t| t.name == "rescale").unwrap();
        assert_eq!(rescale.meta.as_ref().unwrap()["ui"]["visibility"], json!(["app"]));
        assert!(tools.iter().find(|t| t.name == "add").unwrap().meta.is_none());

        let view_meta = json!({
            "csp": { "connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"] },
            "permissions": { "clipboardWrite": {} },
            "prefersBorder": false,
        });
        let listed = client.list_resources().await.unwrap();
        let view = listed.iter().find(|r| r.uri == "ui://charts/bars").expect("the view is listed");
        assert_eq!(view.mime_type.as_deref(), Some(MIME_TYPE));
        assert_eq!(view.title.as_deref(), Some("Bars"));
        assert_eq!(view.size, Some(BARS.len() as u64));
        assert_eq!(view.meta.as_ref().unwrap()["ui"], view_meta, "{version}");

        let read = serde_json::to_value(client.read_resource("ui://charts/bars").await.unwrap()).unwrap();
        let contents = &read["contents"][0];
        assert_eq!(contents["uri"], "ui://charts/bars");
        assert_eq!(contents["mimeType"], MIME_TYPE);
        assert_eq!(contents["text"], BARS);
        assert_eq!(contents["_meta"]["ui"], view_meta, "{version}");

        // The view's own call, through the host.
        let scaled: Vec<f64> =
            client.call_structured("rescale", json!({ "factor": 2.0, "values": [1.0, 3.0] })).await.unwrap();
        assert_eq!(scaled, [2.0, 6.0]);
        client.close().await;
    }
}

#[tokio::test]
async fn a_plain_client_gets_plain_tools_and_no_tool_for_views() {
    for version in ERAS {
        let client = connect(server(), plain(version)).await;
        // The server still says what it offers; the client's model never
        // sees a tool it cannot render the view of.
        let tools = client.list_tools().await.unwrap();
        assert_eq!(names(&tools), ["add", "chart"], "{version}");
        let charted: Vec<f64> = client.call_structured("chart", json!({ "values": [1.0, 2.0] })).await.unwrap();
        assert_eq!(charted, [1.0, 2.0], "{version}: the result stands alone");

        let refused = client.call("rescale", json!({ "factor": 2.0, "values": [1.0] })).await.unwrap_err();
        let error = refused.server_error().unwrap_or_else(|| panic!("{version}: {refused}"));
        assert_eq!(error.code, -32602, "{version}: {error:?}");
        assert!(error.message.contains("rescale"), "{version}: {}", error.message);
        assert!(!error.message.contains("views"), "{version}: the refusal says nothing of hidden tools");
        client.close().await;
    }
}

#[tokio::test]
async fn a_server_without_views_declares_no_extension() {
    for version in ERAS {
        let client = connect(Server::empty("plain", "1").tool(add::Tool), host(version)).await;
        let capabilities = serde_json::to_value(client.server_capabilities()).unwrap();
        assert!(capabilities["extensions"].get(EXTENSION).is_none(), "{version}: {capabilities}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_tool_naming_a_view_the_server_lacks_stops_it_at_startup() {
    let (_client, server_end) = tokio::io::duplex(64);
    let (read, write) = tokio::io::split(server_end);
    let error = Server::empty("charts", "1").tool(chart::Tool).serve(read, write).await.unwrap_err().to_string();
    assert!(
        error.contains("tool `chart`")
            && error.contains("`ui://charts/bars`")
            && error.contains("View::new(\"ui://charts/bars\""),
        "{error}"
    );
}

#[tokio::test]
async fn a_view_outside_ui_scheme_is_refused_at_startup() {
    let (_client, server_end) = tokio::io::duplex(64);
    let (read, write) = tokio::io::split(server_end);
    let error = Server::empty("charts", "1")
        .resource(View::new("https://example.com/bars.html", BARS))
        .serve(read, write)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("`https://example.com/bars.html` cannot name a view"), "{error}");
    assert!(error.contains("ui://notes/editor"), "the message shows the form: {error}");
}

#[tokio::test]
async fn a_view_from_a_file_is_read_at_each_read() {
    let path = std::env::temp_dir().join(format!("mcp-apps-{}.html", std::process::id()));
    std::fs::write(&path, "<p>first</p>").unwrap();
    let server = Server::empty("charts", "1").tool(chart::Tool).resource(View::file("ui://charts/bars", &path));
    let client = connect(server, host(ProtocolVersion::LATEST)).await;
    let text = |read: mcp_core::ReadResourceResult| serde_json::to_value(read).unwrap()["contents"][0]["text"].clone();
    assert_eq!(text(client.read_resource("ui://charts/bars").await.unwrap()), "<p>first</p>");
    std::fs::write(&path, "<p>rebuilt</p>").unwrap();
    assert_eq!(text(client.read_resource("ui://charts/bars").await.unwrap()), "<p>rebuilt</p>");

    std::fs::remove_file(&path).unwrap();
    let error = client.read_resource("ui://charts/bars").await.unwrap_err();
    let error = error.server_error().expect("the server answers with an error");
    // The path is the operator's to see (in the log), not the client's.
    assert!(error.message.starts_with("internal error") && !error.message.contains("mcp-apps-"), "{}", error.message);
    // The server lives on.
    let charted: Vec<f64> = client.call_structured("chart", json!({ "values": [4.0] })).await.unwrap();
    assert_eq!(charted, [4.0]);
    client.close().await;
}

#[tokio::test]
async fn a_mounted_servers_views_keep_working_under_the_mount() {
    for version in ERAS {
        let gateway = Server::empty("gateway", "1").mount("charts", server());
        let client = connect(gateway, host(version)).await;
        let capabilities = serde_json::to_value(client.server_capabilities()).unwrap();
        assert!(capabilities["extensions"].get(EXTENSION).is_some(), "{version}: {capabilities}");
        let tools = client.list_tools().await.unwrap();
        assert_eq!(names(&tools), ["charts_add", "charts_chart", "charts_rescale"], "{version}");
        let chart = tools.iter().find(|t| t.name == "charts_chart").unwrap();
        let uri = chart.meta.as_ref().unwrap()["ui"]["resourceUri"].as_str().unwrap().to_owned();
        assert_eq!(chart.meta.as_ref().unwrap()["ui/resourceUri"], uri.as_str());
        assert_ne!(uri, "ui://charts/bars", "{version}: the view is renamed with the mount's resources");
        let read = serde_json::to_value(client.read_resource(&uri).await.unwrap()).unwrap();
        assert_eq!(read["contents"][0]["text"], BARS, "{version}: the renamed URI reads the view");
        assert_eq!(read["contents"][0]["mimeType"], MIME_TYPE);
        let scaled: Vec<f64> =
            client.call_structured("charts_rescale", json!({ "factor": 3.0, "values": [1.0] })).await.unwrap();
        assert_eq!(scaled, [3.0]);
        client.close().await;

        // A plain client of the gateway: the mounted tool for views is hidden.
        let gateway = Server::empty("gateway", "1").mount("charts", server());
        let client = connect(gateway, plain(version)).await;
        assert_eq!(names(&client.list_tools().await.unwrap()), ["charts_add", "charts_chart"], "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn an_imported_servers_views_are_renamed_with_its_resources() {
    let gateway = Server::empty("gateway", "1").import("charts", server());
    let client = connect(gateway, host(ProtocolVersion::LATEST)).await;
    let tools = client.list_tools().await.unwrap();
    let chart = tools.iter().find(|t| t.name == "charts_chart").unwrap();
    let uri = chart.meta.as_ref().unwrap()["ui"]["resourceUri"].as_str().unwrap().to_owned();
    let listed = client.list_resources().await.unwrap();
    assert!(listed.iter().any(|r| r.uri == uri), "{uri} in {:?}", listed.iter().map(|r| &r.uri).collect::<Vec<_>>());
    let read = serde_json::to_value(client.read_resource(&uri).await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["text"], BARS);
    client.close().await;
}
