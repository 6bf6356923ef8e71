//! Resources and templates end to end, as a client sees them: lists, reads
//! of every kind of contents, template variables, the spec's errors in both
//! eras, subscriptions and their updates, run-time changes, and the
//! start-up checks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{Error, testing::TestClient};
use serde_json::{Value, json};

/// The application's configuration.
#[resource("config://app", mime_type = "application/json", size = 17, annotations(audience = ["user"], priority = 0.8))]
fn app_config() -> Json<Value> {
    Json(json!({"theme": "dark"}))
}

/// A note, by title.
#[resource("notes://{title}", title = "A note")]
fn note(title: String) -> String {
    format!("the note called {title}")
}

/// The index of every note (a fixed URI the template also matches).
#[resource("notes://index")]
fn index() -> &'static str {
    "every note"
}

/// A user's profile.
#[resource("users://{id}/profile")]
async fn profile(id: u64) -> Result<String, ResourceError> {
    match id {
        0 => Err(ResourceError::not_found("user 0 does not exist")),
        13 => Err(ResourceError::new("user 13 is archived; ask for 14")),
        666 => Err(std::io::Error::other("db password=hunter2").into()),
        _ => Ok(format!("user {id}")),
    }
}

/// A file under the workspace.
#[resource("files:///{+path}")]
fn file(path: String) -> Blob {
    Blob::new(path.into_bytes()).with_mime_type("application/octet-stream")
}

/// Search, with optional paging.
#[resource("search://{query}{?page,limit}")]
fn search(query: String, page: Option<u32>, limit: Option<u32>) -> String {
    format!("{query} page={page:?} limit={limit:?}")
}

/// Reads counted in shared state, with the request's context.
#[resource("stats://reads")]
fn reads(counter: State<AtomicU64>, ctx: Context) -> String {
    let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
    format!("{n} reads of {}", ctx.request_id())
}

/// Never finishes in time.
#[resource("slow://forever", timeout = "50ms")]
async fn forever() -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "late".to_owned()
}

/// Panics.
#[resource("broken://panic")]
fn broken() -> String {
    panic!("resource exploded at /srv/secret")
}

fn server() -> Server {
    Server::empty("resources", "1")
        .resource(app_config::Resource)
        .resource(note::Resource)
        .resource(index::Resource)
        .resource(profile::Resource)
        .resource(file::Resource)
        .resource(search::Resource)
        .resource(reads::Resource)
        .resource(forever::Resource)
        .resource(broken::Resource)
        .with_state(AtomicU64::new(0))
}

fn text(result: &mcp_runtime::protocol::ReadResourceResult) -> String {
    match &result.contents[0] {
        mcp_runtime::protocol::content::ResourceContents::Text { text, .. } => text.clone(),
        other => panic!("expected text, got {other:?}"),
    }
}

#[tokio::test]
async fn resources_and_templates_are_listed_sorted_with_their_fields() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let resources = client.list_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["broken://panic", "config://app", "notes://index", "slow://forever", "stats://reads"]);
    let config = &resources[1];
    assert_eq!(config.name, "app_config");
    assert_eq!(config.title.as_deref(), Some("App Config"));
    assert_eq!(config.description.as_deref(), Some("The application's configuration."));
    assert_eq!(config.mime_type.as_deref(), Some("application/json"));
    assert_eq!(config.size, Some(17));
    let annotations = config.annotations.as_ref().unwrap();
    assert_eq!((annotations.audience.clone(), annotations.priority), (Some(vec!["user".to_owned()]), Some(0.8)));

    let templates = client.list_resource_templates().await.unwrap();
    let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(uris, ["files:///{+path}", "notes://{title}", "search://{query}{?page,limit}", "users://{id}/profile"]);
    assert_eq!(templates[1].title.as_deref(), Some("A note"));

    // 2024-11-05 has no titles.
    let mut old = TestClient::connect_as(server(), ProtocolVersion::V2024_11_05).await.unwrap();
    assert!(old.list_resources().await.unwrap().iter().all(|r| r.title.is_none()));
}

#[tokio::test]
async fn reads_turn_return_values_into_contents() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let config = client.read_resource("config://app").await.unwrap();
    assert_eq!(
        serde_json::to_value(&config.contents).unwrap(),
        json!([{"uri": "config://app", "mimeType": "application/json", "text": "{\"theme\":\"dark\"}"}])
    );
    // A fixed URI wins over a template that matches it too.
    assert_eq!(text(&client.read_resource("notes://index").await.unwrap()), "every note");
    assert_eq!(text(&client.read_resource("notes://shopping%20list").await.unwrap()), "the note called shopping list");
    assert_eq!(text(&client.read_resource("users://42/profile").await.unwrap()), "user 42");
    let file = client.read_resource("files:///docs/a.txt").await.unwrap();
    assert_eq!(
        serde_json::to_value(&file.contents).unwrap(),
        json!([{"uri": "files:///docs/a.txt", "mimeType": "application/octet-stream", "blob": "ZG9jcy9hLnR4dA=="}])
    );
    assert_eq!(text(&client.read_resource("search://rust").await.unwrap()), "rust page=None limit=None");
    assert_eq!(
        text(&client.read_resource("search://rust?limit=5&page=2").await.unwrap()),
        "rust page=Some(2) limit=Some(5)"
    );
    assert_eq!(text(&client.read_resource("stats://reads").await.unwrap()).split(' ').next(), Some("1"));
    assert_eq!(text(&client.read_resource("stats://reads").await.unwrap()).split(' ').next(), Some("2"));
}

#[tokio::test]
async fn failures_are_the_protocols_errors_with_internals_masked() {
    let mut client = TestClient::connect(server().show_internal_errors(false)).await.unwrap();
    let missing = client.read_resource("nothing://here").await.unwrap_err();
    assert_eq!((missing.code, missing.data.clone()), (-32002, Some(json!({"uri": "nothing://here"}))));
    // A variable that does not fit its type names no resource.
    let bad = client.read_resource("users://abc/profile").await.unwrap_err();
    assert_eq!(bad.code, -32002);
    assert!(bad.message.contains("argument `id`"), "{}", bad.message);
    let gone = client.read_resource("users://0/profile").await.unwrap_err();
    assert_eq!(gone.message, "resource not found: users://0/profile (user 0 does not exist)");
    let shown = client.read_resource("users://13/profile").await.unwrap_err();
    assert_eq!((shown.code, shown.message.as_str()), (-32603, "user 13 is archived; ask for 14"));
    for uri in ["users://666/profile", "broken://panic"] {
        let masked = client.read_resource(uri).await.unwrap_err();
        assert_eq!(masked.code, -32603);
        assert!(masked.message.starts_with("internal error (incident "), "{}", masked.message);
        assert!(!masked.message.contains("hunter2") && !masked.message.contains("/srv"), "{}", masked.message);
    }
    let slow = client.read_resource("slow://forever").await.unwrap_err();
    assert!(slow.message.contains("timed out"), "{}", slow.message);
    // The session goes on.
    assert_eq!(text(&client.read_resource("notes://index").await.unwrap()), "every note");
}

/// A 2026-07-28 request's `_meta`.
fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

#[tokio::test]
async fn the_modern_era_gets_invalid_params_for_a_missing_resource_and_cache_hints() {
    let mut client = server().connect_in_memory().unwrap();
    let missing =
        client.request("resources/read", json!({"uri": "nothing://here", "_meta": modern_meta()})).await.unwrap();
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["data"]["uri"], "nothing://here");
    let read = client.request("resources/read", json!({"uri": "notes://index", "_meta": modern_meta()})).await.unwrap();
    let result = &read["result"];
    assert_eq!(
        (result["resultType"].clone(), result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!("complete"), json!(0), json!("public"))
    );
    let listed = client.request("resources/templates/list", json!({"_meta": modern_meta()})).await.unwrap();
    assert_eq!(listed["result"]["cacheScope"], "public", "{listed}");
    // Subscriptions belong to the handshake era.
    let subscribe =
        client.request("resources/subscribe", json!({"uri": "notes://index", "_meta": modern_meta()})).await.unwrap();
    assert_eq!(subscribe["error"]["code"], -32601);
}

#[tokio::test]
async fn updates_follow_subscriptions() {
    let server = Server::empty("resources", "1").resource(note::Resource).resource(index::Resource);
    let resources = server.resources_handle();
    let mut client = TestClient::connect(server).await.unwrap();
    client.subscribe("notes://groceries").await.unwrap();
    resources.updated("notes://groceries");
    resources.updated("notes://index");
    assert_eq!(client.resource_updates().await, ["notes://groceries"]);
    client.unsubscribe("notes://groceries").await.unwrap();
    resources.updated("notes://groceries");
    assert!(client.resource_updates().await.is_empty());
    assert_eq!(client.subscribe("nothing://here").await.unwrap_err().code, -32002);
}

#[tokio::test]
async fn a_session_subscribes_to_a_bounded_number_of_resources() {
    let mut client = TestClient::connect(Server::empty("resources", "1").resource(note::Resource)).await.unwrap();
    for n in 0..1_024 {
        client.subscribe(&format!("notes://n{n}")).await.unwrap();
    }
    let refused = client.subscribe("notes://one-more").await.unwrap_err();
    assert_eq!(refused.code, -32600);
    assert!(refused.message.contains("at most 1024 resources"), "{}", refused.message);
    // One already subscribed to is no more; one dropped makes room.
    client.subscribe("notes://n7").await.unwrap();
    client.unsubscribe("notes://n7").await.unwrap();
    client.subscribe("notes://one-more").await.unwrap();
}

/// Serve `server` over HTTP on a free loopback port; its endpoint's URL.
async fn serve_http(server: Server) -> String {
    let router = server.http_router(mcp_runtime::transport::HttpOptions::new()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, router).await.unwrap() });
    url
}

#[tokio::test]
async fn the_official_rust_sdk_client_lists_and_reads_over_http() {
    use rmcp::ServiceExt;
    use rmcp::model::{ReadResourceRequestParams, ResourceContents};
    let url = serve_http(server()).await;
    let client = ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    let resources = client.list_all_resources().await.expect("rmcp accepted resources/list");
    assert_eq!(resources.len(), 5);
    let templates = client.list_all_resource_templates().await.expect("rmcp accepted templates");
    assert_eq!(templates.len(), 4);
    let read = client.read_resource(ReadResourceRequestParams::new("users://7/profile")).await.unwrap();
    assert!(matches!(&read.contents[0], ResourceContents::TextResourceContents { text, .. } if text == "user 7"));
    let blob = client.read_resource(ReadResourceRequestParams::new("files:///a/b")).await.unwrap();
    assert!(matches!(&blob.contents[0], ResourceContents::BlobResourceContents { blob, .. } if blob == "YS9i"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn updates_reach_only_the_sessions_that_subscribed() {
    let server = Server::empty("resources", "1").resource(index::Resource);
    let resources = server.resources_handle();
    let url = serve_http(server).await;
    let (mut watcher, mut bystander) = (crate::common::http::Client::new(&url), crate::common::http::Client::new(&url));
    watcher.initialize().await;
    bystander.initialize().await;
    let subscribed = watcher.request("resources/subscribe", json!({"uri": "notes://index"})).await;
    assert_eq!(subscribed.last()["result"], json!({}));
    // Each session's stream of messages that belong to no request.
    let open = |client: &crate::common::http::Client| {
        client
            .http
            .get(&client.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", client.session.clone().unwrap())
            .send()
    };
    let mut watching = open(&watcher).await.unwrap();
    let mut idle = open(&bystander).await.unwrap();
    resources.updated("notes://index");
    let chunk = tokio::time::timeout(Duration::from_secs(5), watching.chunk()).await.unwrap().unwrap().unwrap();
    let events = crate::common::http::events(std::str::from_utf8(&chunk).unwrap());
    assert_eq!(
        events,
        [json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://index"}})]
    );
    let nothing = tokio::time::timeout(Duration::from_millis(300), idle.chunk()).await;
    assert!(nothing.is_err(), "the bystander got {nothing:?}");
}

#[tokio::test]
async fn a_listen_stream_follows_the_resources_it_names() {
    let server = Server::empty("resources", "1").resource(index::Resource).resource(note::Resource);
    let resources = server.resources_handle();
    let mut client = server.connect_in_memory().unwrap();
    let listen = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(),
        "notifications": {"resourcesListChanged": true, "resourceSubscriptions": ["notes://index", "nothing://here"]}
    }});
    client.send(&listen).await.unwrap();
    let ack = client.recv().await.unwrap().unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true, "resourceSubscriptions": ["notes://index"]})
    );
    resources.updated("notes://index");
    let update = client.recv().await.unwrap().unwrap();
    assert_eq!(update["method"], "notifications/resources/updated");
    assert_eq!(
        update["params"],
        json!({"uri": "notes://index", "_meta": {"io.modelcontextprotocol/subscriptionId": 9}})
    );
    resources.add(app_config::Resource).unwrap();
    let changed = client.recv().await.unwrap().unwrap();
    assert_eq!(changed["method"], "notifications/resources/list_changed");
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);
}

#[tokio::test]
async fn a_listen_stream_follows_a_bounded_number_of_resources_and_says_which() {
    let mut client = Server::empty("resources", "1").resource(note::Resource).connect_in_memory().unwrap();
    let uris: Vec<String> = (0..1_100).map(|n| format!("notes://n{n}")).collect();
    let listen = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(),
        "notifications": {"resourceSubscriptions": uris}
    }});
    client.send(&listen).await.unwrap();
    let ack = client.recv().await.unwrap().unwrap();
    let followed = ack["params"]["notifications"]["resourceSubscriptions"].as_array().unwrap().len();
    assert_eq!(followed, 1_024);
}

#[tokio::test]
async fn run_time_changes_are_checked_and_announced() {
    let server = Server::empty("resources", "1").resource(note::Resource);
    let resources = server.resources_handle();
    let mut client = TestClient::connect(server).await.unwrap();
    resources.add(index::Resource).unwrap();
    assert_eq!(client.resource_list_changes().await, 1);
    assert_eq!(text(&client.read_resource("notes://index").await.unwrap()), "every note");
    assert!(matches!(resources.add(index::Resource), Err(Error::DuplicateResource { .. })));
    assert!(resources.disable("notes://index"));
    assert!(!resources.disable("notes://index"));
    assert!(!resources.disable("nothing://here"));
    // Disabled, the template serves the URI.
    assert_eq!(text(&client.read_resource("notes://index").await.unwrap()), "the note called index");
    assert!(resources.remove("notes://{title}"));
    assert_eq!(client.read_resource("notes://x").await.unwrap_err().code, -32002);
    assert_eq!(resources.uris(), ["notes://index"]);
}

/// Another template over the notes.
#[resource("notes://{slug}")]
fn note_by_slug(slug: String) -> String {
    slug
}

/// A query variable that must be present.
#[resource("find://{q}{?page}")]
fn strict_find(q: String, page: u32) -> String {
    format!("{q}{page}")
}

/// Needs state the server does not have.
#[resource("state://missing")]
fn needs_state(value: State<String>) -> String {
    value.to_string()
}

#[test]
fn ambiguous_or_unservable_resources_stop_the_server_from_starting() {
    let err = Server::empty("r", "1")
        .resource(note::Resource)
        .resource(note_by_slug::Resource)
        .resource_definitions()
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResource { .. }), "{err}");
    assert!(err.to_string().contains("can match the same URI"), "{err}");
    let err = Server::empty("r", "1").resource(strict_find::Resource).resource_definitions().unwrap_err();
    assert!(err.to_string().contains("must be an `Option<T>`"), "{err}");
    let err = Server::empty("r", "1").resource(needs_state::Resource).resource_definitions().unwrap_err();
    assert!(matches!(err, Error::MissingState { kind: "resource", .. }), "{err}");
    let err =
        Server::empty("r", "1").resource(index::Resource).resource(index::Resource).resource_definitions().unwrap_err();
    assert!(matches!(err, Error::DuplicateResource { .. }), "{err}");
    assert_eq!(server().resource_definitions().unwrap().len(), 9);
}

/// A file of the served directory.
#[resource("file:///{+path}")]
async fn workspace_file(
    path: String,
    files: State<mcp_runtime::resources::Directory>,
) -> Result<mcp_runtime::resources::DirectoryFile, ResourceError> {
    files.read(&path).await
}

#[tokio::test]
async fn a_served_directory_refuses_every_way_out() {
    let base = std::env::temp_dir().join(format!("mcp-directory-{}", std::process::id()));
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("docs/readme.md"), "# inside").unwrap();
    std::fs::write(root.join("logo.png"), [0x89, b'P', b'N', b'G']).unwrap();
    std::fs::write(root.join("big.txt"), "x".repeat(2048)).unwrap();
    std::fs::write(outside.join("secret.txt"), "the secret").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("escape.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    std::os::unix::fs::symlink(root.join("docs/readme.md"), root.join("alias.md")).unwrap();

    let files = mcp_runtime::resources::Directory::new(&root).unwrap().max_size(1024);
    let server = Server::empty("files", "1").resource(workspace_file::Resource).with_state(files);
    let mut client = TestClient::connect(server).await.unwrap();
    assert_eq!(text(&client.read_resource("file:///docs/readme.md").await.unwrap()), "# inside");
    assert_eq!(text(&client.read_resource("file:///alias.md").await.unwrap()), "# inside", "a link inside is fine");
    let logo = client.read_resource("file:///logo.png").await.unwrap();
    assert_eq!(serde_json::to_value(&logo.contents).unwrap()[0]["mimeType"], "image/png");

    let attacks = [
        "file:///../outside/secret.txt",
        "file:///docs/../../outside/secret.txt",
        "file:///%2e%2e/outside/secret.txt",
        "file:///docs%2F..%2F..%2Foutside%2Fsecret.txt",
        "file:///..%5Coutside%5Csecret.txt",
        "file:////etc/passwd",
        "file:///./docs/readme.md",
        "file:///docs//readme.md",
        "file:///escape.txt",
        "file:///out/secret.txt",
        "file:///docs",
        "file:///nothing.txt",
        "file:///docs/readme.md%00.png",
    ];
    for uri in attacks {
        let refused = client.read_resource(uri).await.unwrap_err();
        assert_eq!(refused.code, -32002, "{uri}: {refused:?}");
        assert!(
            !refused.message.contains("secret") || refused.message.contains("secret.txt` in"),
            "{uri}: {refused:?}"
        );
    }
    let big = client.read_resource("file:///big.txt").await.unwrap_err();
    assert!(big.message.contains("over this directory's limit of 1024 bytes"), "{big:?}");
    std::fs::remove_dir_all(&base).unwrap();
}

/// How often a report covers.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Period {
    Daily,
    Weekly,
    Monthly,
}

/// The latest report of a period.
#[resource("reports://{period}/latest")]
fn latest_report(period: Period) -> &'static str {
    match period {
        Period::Daily => "today",
        Period::Weekly => "this week",
        Period::Monthly => "this month",
    }
}

/// Users whose names start with what was typed.
async fn user_names(completing: mcp_runtime::completion::Completing) -> Vec<String> {
    ["ada", "alan", "grace"].into_iter().filter(|n| n.starts_with(completing.value())).map(String::from).collect()
}

/// A user's page.
#[resource("people://{name}")]
fn person(#[arg(complete = user_names)] name: String) -> String {
    name
}

#[tokio::test]
async fn template_variables_complete_from_their_types_and_functions() {
    let server =
        Server::empty("r", "1").resource(latest_report::Resource).resource(person::Resource).resource(index::Resource);
    let mut client = server.connect_in_memory().unwrap();
    let init = client.initialize().await.unwrap();
    assert_eq!(init["capabilities"]["completions"], json!({}));
    let complete = |uri: &str, name: &str, value: &str| json!({"ref": {"type": "ref/resource", "uri": uri}, "argument": {"name": name, "value": value}});
    let periods =
        client.request("completion/complete", complete("reports://{period}/latest", "period", "M")).await.unwrap();
    assert_eq!(periods["result"]["completion"], json!({"values": ["monthly"], "total": 1, "hasMore": false}));
    let all = client.request("completion/complete", complete("reports://{period}/latest", "period", "")).await.unwrap();
    assert_eq!(all["result"]["completion"]["values"], json!(["daily", "weekly", "monthly"]));
    let people = client.request("completion/complete", complete("people://{name}", "name", "a")).await.unwrap();
    assert_eq!(people["result"]["completion"]["values"], json!(["ada", "alan"]));
    let fixed = client.request("completion/complete", complete("notes://index", "x", "")).await.unwrap();
    assert_eq!(fixed["result"]["completion"]["values"], json!([]));
    let unknown = client.request("completion/complete", complete("people://{nom}", "name", "")).await.unwrap();
    assert_eq!(unknown["error"]["code"], -32602);
    let wrong = client.request("completion/complete", complete("people://{name}", "age", "")).await.unwrap();
    assert_eq!(wrong["error"]["code"], -32602);
    assert_eq!(
        client.request("resources/read", json!({"uri": "reports://weekly/latest"})).await.unwrap()["result"]["contents"]
            [0]["text"],
        "this week"
    );
}

/// A profile with fields that may be `None`, and `null`s that mean
/// something: a list's element, a map's value, a JSON value.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sparse {
    name: String,
    nickname: Option<String>,
    address: Option<Address>,
    scores: Vec<Option<u8>>,
    tags: std::collections::BTreeMap<String, Option<String>>,
    extra: Value,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Address {
    city: String,
    zip: Option<String>,
}

fn sparse() -> Sparse {
    Sparse {
        name: "Ada".into(),
        nickname: None,
        address: Some(Address { city: "London".into(), zip: None }),
        scores: vec![Some(3), None],
        tags: [("team".to_owned(), None)].into(),
        extra: Value::Null,
    }
}

/// The sparse profile, as a resource.
#[resource("profiles://sparse")]
fn sparse_resource() -> Json<Sparse> {
    Json(sparse())
}

/// The sparse profile, as a tool's structured output.
#[tool]
fn sparse_tool() -> Json<Sparse> {
    Json(sparse())
}

#[tokio::test]
async fn json_output_leaves_none_out_alike_in_resources_and_tools() {
    let server = Server::empty("sparse", "1").resource(sparse_resource::Resource).tool(sparse_tool::Tool);
    let mut client = TestClient::connect(server).await.unwrap();
    let read = client.read_resource("profiles://sparse").await.unwrap();
    let resource: Value = serde_json::from_str(&text(&read)).unwrap();
    let expected = json!({
        "name": "Ada",
        "address": {"city": "London"},
        "scores": [3, null],
        "tags": {"team": null},
        "extra": null,
    });
    assert_eq!(resource, expected);
    let called = client.call_tool("sparse_tool", json!({})).await.unwrap();
    assert_eq!(called.structured_content, Some(expected));
}
