//! An axum router's routes served as MCP tools in the same process: the
//! router is never bound to a socket, each call goes through it as a
//! tower service, and its extractors see the path, query, headers and
//! body a client over HTTP would have sent.

use std::sync::{Arc, Mutex};

use mcp_runtime::Server;
use mcp_runtime::axum::extract::{Json, Path, Query, State};
use mcp_runtime::axum::http::{HeaderMap, StatusCode};
use mcp_runtime::axum::routing::get;
use mcp_runtime::axum::{Router, body::Bytes};
use mcp_runtime::openapi::{Auth, OpenApi, RouteMap};
use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};

/// The service's own state: the items it holds.
type Items = Arc<Mutex<Vec<Value>>>;

fn app(items: Items) -> Router {
    let api = Router::new()
        .route(
            "/items",
            get(|State(items): State<Items>, Query(q): Query<Vec<(String, String)>>| async move {
                let all = items.lock().unwrap().clone();
                let wanted = q.iter().find(|(k, _)| k == "name").map(|(_, v)| v.clone());
                let found: Vec<Value> =
                    all.into_iter().filter(|i| wanted.as_ref().is_none_or(|w| i["name"] == **w)).collect();
                Json(json!({"items": found, "query": q}))
            })
            .post(
                |State(items): State<Items>, headers: HeaderMap, Json(mut item): Json<Value>| async move {
                    let who = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                    item["by"] = who.into();
                    items.lock().unwrap().push(item.clone());
                    (StatusCode::CREATED, Json(item))
                },
            ),
        )
        .route(
            "/items/{id}",
            get(|State(items): State<Items>, Path(id): Path<usize>| async move {
                match items.lock().unwrap().get(id) {
                    Some(item) => Ok(Json(item.clone())),
                    None => Err((StatusCode::NOT_FOUND, format!("no item {id}"))),
                }
            }),
        )
        .route("/logo", get(|| async { ([("content-type", "image/png")], Bytes::from_static(b"\x89PNG")) }))
        .with_state(items);
    Router::new().nest("/api", api)
}

/// The router's routes as its OpenAPI document describes them.
fn document() -> Value {
    let item = json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}});
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Items", "version": "2.0.0"},
        "servers": [{"url": "https://items.example.com/api"}],
        "paths": {
            "/items": {
                "get": {"operationId": "list_items", "parameters": [{"name": "name", "in": "query", "schema": {"type": "string"}}],
                        "responses": {"200": {"description": "the items", "content": {"application/json": {"schema": {"type": "object", "properties": {"items": {"type": "array"}}}}}}}},
                "post": {"operationId": "add_item", "requestBody": {"required": true, "content": {"application/json": {"schema": item}}},
                         "responses": {"201": {"description": "added", "content": {"application/json": {"schema": item}}}}}
            },
            "/items/{id}": {"get": {"operationId": "get_item",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 0}}],
                "responses": {"200": {"description": "one", "content": {"application/json": {"schema": item}}}, "404": {"description": "none"}}}},
            "/logo": {"get": {"operationId": "logo", "responses": {"200": {"description": "the logo", "content": {"image/png": {}}}}}}
        }
    })
}

#[tokio::test]
async fn a_routers_routes_are_tools_called_in_process() {
    let items: Items = Arc::default();
    let api = OpenApi::from_value(document()).unwrap().router(app(items.clone())).auth(Auth::bearer("t0ken"));
    let server = Server::from_openapi(&api).unwrap();
    mcp_runtime::clients::check_clients(&server).assert_clear();
    let mut client = TestClient::connect(server).await.unwrap();
    let mut names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    names.sort();
    assert_eq!(names, ["add_item", "get_item", "list_items", "logo"]);

    // The body reaches the handler's `Json` extractor, the credential its headers.
    let added = client.call_tool("add_item", json!({"name": "cup", "size": 2})).await.unwrap();
    assert!(!added.is_error(), "{added:?}");
    assert_eq!(added.structured_content.unwrap(), json!({"name": "cup", "size": 2, "by": "Bearer t0ken"}));
    client.call_tool("add_item", json!({"name": "pot"})).await.unwrap();
    // The service's own state changed: the same router, no copy of it.
    assert_eq!(items.lock().unwrap().len(), 2);

    // The path parameter reaches `Path`, the query `Query`.
    let one = client.call_tool("get_item", json!({"id": 1})).await.unwrap();
    assert_eq!(one.structured_content.unwrap()["name"], "pot");
    let found = client.call_tool("list_items", json!({"name": "cup"})).await.unwrap();
    let found = found.structured_content.unwrap();
    assert_eq!(found["items"], json!([{"name": "cup", "size": 2, "by": "Bearer t0ken"}]));
    assert_eq!(found["query"], json!([["name", "cup"]]));

    // The handler's error status is an error result with its text.
    let missing = client.call_tool("get_item", json!({"id": 9})).await.unwrap();
    assert!(missing.is_error());
    assert_eq!(missing.content[0].as_text(), Some("the API answered 404 Not Found: no item 9"));
    let logo = client.call_tool("logo", json!({})).await.unwrap();
    assert!(matches!(&logo.content[0], mcp_core::Content::Image(image) if image.data == "iVBORw=="), "{logo:?}");
}

#[tokio::test]
async fn in_process_routes_follow_route_maps_and_bounds() {
    let items: Items = Arc::new(Mutex::new(vec![json!({"name": "x".repeat(4096)})]));
    let api = OpenApi::from_value(document())
        .unwrap()
        .router(app(items))
        .max_response_bytes(1024)
        .route(RouteMap::resource().methods(["GET"]));
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let templates = client.list_resource_templates().await.unwrap();
    let mut uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    uris.sort();
    assert_eq!(uris, ["api://items/{id}", "api://items{?name}"]);
    let too_large = client.read_resource("api://items").await.unwrap_err();
    assert!(too_large.message.contains("larger than 1024 bytes"), "{too_large:?}");
    let logo = client.read_resource("api://logo").await.unwrap();
    assert_eq!(logo.contents[0].bytes().unwrap(), b"\x89PNG");

    // A base URL's path replaces the document's: here the routes are not found.
    let api = OpenApi::from_value(document()).unwrap().router(app(Arc::default())).base_url("/v2");
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let result = client.call_tool("get_item", json!({"id": 0})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("the API answered 404 Not Found"));
}

#[tokio::test]
async fn the_example_serves_a_utoipa_described_service_in_process() {
    let client = mcp_runtime_client::Client::builder()
        .stderr(mcp_runtime_client::Stderr::Capture)
        .command(crate::common::example("axum_api"), ["--stdio"])
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["add_todo", "finish_todo", "list_todos"]);
    // utoipa's schemas, through the portable profile, suit every known client.
    mcp_runtime::clients::ClientReport::for_tools(&tools).assert_clear();
    let add = tools.iter().find(|t| t.name == "add_todo").unwrap();
    assert_eq!(add.input_schema["required"], json!(["title"]));
    let added = client.call("add_todo", json!({"title": "write the guide"})).await.unwrap();
    assert_eq!(added.structured_content.unwrap(), json!({"id": 0, "title": "write the guide", "done": false}));
    let done = client.call("finish_todo", json!({"id": 0})).await.unwrap();
    assert_eq!(done.structured_content.unwrap()["done"], true);
    let listed = client.call("list_todos", json!({})).await.unwrap();
    assert_eq!(listed.structured_content.unwrap()["todos"][0]["done"], true);
    let missing = client.call("finish_todo", json!({"id": 5})).await.unwrap();
    assert!(missing.is_error(), "{missing:?}");
    client.close().await;
}
