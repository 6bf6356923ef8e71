//! An HTTP API served as MCP tools from its OpenAPI document: a small
//! axum app stands in for the API, and a client lists and calls the tools
//! through the protocol, checking what reached the API.

use mcp_runtime::Server;
use mcp_runtime::axum::body::Body;
use mcp_runtime::axum::http::{HeaderMap, Method, StatusCode, Uri};
use mcp_runtime::axum::response::Response;
use mcp_runtime::openapi::{Auth, MapTo, OpenApi, RouteMap};
use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};

/// A petstore in OpenAPI 3.0, as YAML.
pub(crate) const PETSTORE: &str = r##"
openapi: 3.0.3
info: {title: Petstore, version: 1.2.3}
servers: [{url: /v1}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      tags: [pets]
      parameters:
        - {name: limit, in: query, description: How many at most, schema: {type: integer, format: int32, maximum: 100, default: 20}}
        - {name: tag, in: query, schema: {type: array, items: {type: string}}}
        - {name: status, in: query, explode: false, schema: {type: array, items: {type: string, enum: [available, sold]}}}
      responses:
        '200': {description: the echo, content: {application/json: {schema: {$ref: '#/components/schemas/Echo'}}}}
    post:
      operationId: createPet
      summary: Create a pet
      tags: [pets]
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
      responses:
        '201': {description: the echo, content: {application/json: {schema: {$ref: '#/components/schemas/Echo'}}}}
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, description: The pet, schema: {type: string}}
    get:
      operationId: show pet by id!
      description: One pet.
      parameters:
        - {name: X-Request-Id, in: header, schema: {type: string, format: uuid}}
      responses:
        '200': {description: the echo, content: {application/json: {schema: {$ref: '#/components/schemas/Echo'}}}}
    put:
      summary: Replace a pet
      requestBody:
        content: {application/json: {schema: {type: object, required: [petId], properties: {petId: {type: integer}, name: {type: string}}}}}
      responses:
        '200': {description: ok}
    delete:
      operationId: deletePet
      tags: [admin]
      responses:
        '204': {description: gone}
  /health:
    get:
      operationId: health
      responses:
        '200': {description: ok, content: {text/plain: {schema: {type: string}}}}
  /dump:
    get:
      operationId: dump
      responses:
        '200': {description: ok, content: {text/plain: {schema: {type: string}}}}
  /photo:
    get:
      operationId: photo
      responses:
        '200': {description: ok, content: {image/png: {}}}
  /upload:
    post:
      operationId: upload
      requestBody:
        content: {multipart/form-data: {schema: {type: object}}}
      responses:
        '200': {description: ok}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        id: {type: integer, format: int64, readOnly: true}
        name: {type: string, description: Its name}
        tag: {type: string, nullable: true}
        kind: {type: string, enum: [cat, dog], default: cat}
        parent: {$ref: '#/components/schemas/Pet'}
    Echo:
      type: object
      properties:
        method: {type: string}
        path: {type: string}
        query: {type: string, nullable: true}
        auth: {type: string, nullable: true}
        requestId: {type: string, nullable: true}
        body: {nullable: true}
"##;

/// The stand-in API: every request is answered with what it was, except
/// a few paths with answers of their own.
pub(crate) async fn api(method: Method, uri: Uri, headers: HeaderMap, body: String) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let reply = |status: StatusCode, media: &str, body: Body| {
        Response::builder().status(status).header("content-type", media).body(body).unwrap()
    };
    match uri.path() {
        "/v1/pets/missing" => {
            return reply(
                StatusCode::NOT_FOUND,
                "application/json",
                Body::from(r#"{"error":"no pet called missing"}"#),
            );
        }
        "/v1/health" => return reply(StatusCode::OK, "text/plain", Body::from("all good")),
        "/v1/dump" => return reply(StatusCode::OK, "text/plain", Body::from("x".repeat(64 * 1024))),
        "/v1/photo" => return reply(StatusCode::OK, "image/png", Body::from(vec![0x89, b'P', b'N', b'G'])),
        "/v1/pets/7" if method == Method::GET => {
            return reply(StatusCode::OK, "application/json", Body::from(r#"{"id":7,"name":"Rex","tag":null}"#));
        }
        "/v1/slow" => {
            // Answers only when the client gives up: the guard tells the test it did.
            let guard = Dropped(SLOW.lock().unwrap().take());
            std::future::pending::<()>().await;
            drop(guard);
        }
        _ => {}
    }
    let echo = json!({
        "method": method.as_str(),
        "path": uri.path(),
        "query": uri.query(),
        "auth": header("authorization"),
        "requestId": header("x-request-id"),
        "cookie": header("cookie"),
        "contentType": header("content-type"),
        "body": serde_json::from_str::<Value>(&body).ok().unwrap_or(Value::String(body)),
    });
    let status = if method == Method::POST { StatusCode::CREATED } else { StatusCode::OK };
    reply(status, "application/json", Body::from(echo.to_string()))
}

/// Where `/v1/slow` says its request was dropped.
static SLOW: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>> = std::sync::Mutex::new(None);

struct Dropped(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for Dropped {
    fn drop(&mut self) {
        if let Some(tell) = self.0.take() {
            let _ = tell.send(());
        }
    }
}

/// The API on a loopback port; its base URL.
pub(crate) async fn start_api() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = mcp_runtime::axum::Router::new().fallback(api);
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, app).await });
    format!("http://{address}/v1")
}

pub(crate) fn petstore(base: &str) -> OpenApi {
    OpenApi::from_str(PETSTORE).unwrap().base_url(base).auth(Auth::bearer("s3cret")).max_response_bytes(16 * 1024)
}

fn tool<'a>(tools: &'a [mcp_core::Tool], name: &str) -> &'a mcp_core::Tool {
    tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

fn text(result: &mcp_core::CallToolResult) -> &str {
    result.content[0].as_text().unwrap()
}

#[tokio::test]
async fn operations_become_tools_with_portable_schemas() {
    let base = start_api().await;
    let server = Server::from_openapi(&petstore(&base)).unwrap();
    mcp_runtime::clients::check_clients(&server).assert_clear();
    let mut client = TestClient::connect(server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    // The multipart upload cannot be sent, so it is left out.
    assert_eq!(
        names,
        ["createPet", "deletePet", "dump", "health", "listPets", "photo", "put_pets_petId", "show_pet_by_id"]
    );

    let list = tool(&tools, "listPets");
    assert_eq!(list.description.as_deref(), Some("List pets"));
    let limit = &list.input_schema["properties"]["limit"];
    assert_eq!(limit["type"], "integer");
    assert_eq!(limit["default"], 20);
    assert_eq!(limit["maximum"], 100);
    assert_eq!(limit["description"], "How many at most");
    assert_eq!(list.input_schema["properties"]["status"]["items"]["enum"], json!(["available", "sold"]));
    assert!(list.input_schema.get("required").is_none());
    assert_eq!(list.annotations.as_ref().unwrap().read_only_hint, Some(true));
    let output = list.output_schema.as_ref().expect("an object answer gives an output schema");
    assert_eq!(output["properties"]["method"]["type"], "string");

    let create = tool(&tools, "createPet");
    let properties = create.input_schema["properties"].as_object().unwrap();
    // The body's properties are the arguments; the read-only `id` is not sent.
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["name", "tag", "kind", "parent"]);
    assert_eq!(create.input_schema["required"], json!(["name"]));
    // `nullable` is an optional plain type under the portable profile.
    assert_eq!(properties["tag"]["type"], "string");
    assert_eq!(properties["kind"], json!({"type": "string", "enum": ["cat", "dog"], "default": "cat"}));
    // The recursive `parent` is left open, and says so.
    assert!(properties["parent"]["description"].as_str().unwrap().contains("recursive"), "{properties:?}");
    assert!(properties["parent"].get("properties").is_none());

    let show = tool(&tools, "show_pet_by_id");
    assert_eq!(show.description.as_deref(), Some("One pet."));
    assert_eq!(show.input_schema["required"], json!(["petId"]));
    assert_eq!(show.input_schema["properties"]["petId"]["description"], "The pet");

    // `petId` is in the path and in the body: the body's gets a suffix.
    let put = tool(&tools, "put_pets_petId");
    let properties = put.input_schema["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["petId", "petId_body", "name"]);
    assert!(put.output_schema.is_none());
}

#[tokio::test]
async fn calls_reach_the_right_method_path_query_and_body() {
    let base = start_api().await;
    let server = Server::from_openapi(&petstore(&base)).unwrap();
    let mut client = TestClient::connect(server).await.unwrap();

    let listed = client
        .call_tool("listPets", json!({"limit": 5, "tag": ["a b", "c"], "status": ["available", "sold"]}))
        .await
        .unwrap();
    assert!(!listed.is_error(), "{listed:?}");
    let echo = listed.structured_content.as_ref().unwrap();
    assert_eq!(echo["method"], "GET");
    assert_eq!(echo["path"], "/v1/pets");
    assert_eq!(echo["query"], "limit=5&tag=a+b&tag=c&status=available%2Csold");
    assert_eq!(echo["auth"], "Bearer s3cret");

    let shown = client.call_tool("show_pet_by_id", json!({"petId": "a/../b c", "X-Request-Id": "r-1"})).await.unwrap();
    let echo: Value = serde_json::from_str(text(&shown)).unwrap();
    assert_eq!(echo["path"], "/v1/pets/a%2F..%2Fb%20c");
    assert_eq!(echo["requestId"], "r-1");

    let created = client.call_tool("createPet", json!({"name": "Rex", "tag": "good"})).await.unwrap();
    let echo = created.structured_content.as_ref().unwrap();
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["body"], json!({"name": "Rex", "tag": "good"}));

    let put = client.call_tool("put_pets_petId", json!({"petId": "7", "petId_body": 7, "name": "Tom"})).await.unwrap();
    let echo: Value = serde_json::from_str(text(&put)).unwrap();
    assert_eq!((echo["method"].as_str(), echo["path"].as_str()), (Some("PUT"), Some("/v1/pets/7")));
    assert_eq!(echo["body"], json!({"petId": 7, "name": "Tom"}));

    // Arguments are checked against the schema before any request.
    let refused = client.call_tool("createPet", json!({"tag": "x"})).await.unwrap();
    assert!(refused.is_error());
    assert!(text(&refused).contains("name"), "{}", text(&refused));
}

#[tokio::test]
async fn errors_text_images_and_large_answers() {
    let base = start_api().await;
    let server = Server::from_openapi(&petstore(&base)).unwrap();
    let mut client = TestClient::connect(server).await.unwrap();

    let missing = client.call_tool("show_pet_by_id", json!({"petId": "missing"})).await.unwrap();
    assert!(missing.is_error());
    assert_eq!(text(&missing), r#"the API answered 404 Not Found: {"error":"no pet called missing"}"#);

    let health = client.call_tool("health", json!({})).await.unwrap();
    assert!(!health.is_error());
    assert_eq!(text(&health), "all good");

    let photo = client.call_tool("photo", json!({})).await.unwrap();
    match &photo.content[0] {
        mcp_core::Content::Image(image) => {
            assert_eq!(image.mime_type, "image/png");
            assert_eq!(image.data, "iVBORw==");
        }
        other => panic!("not an image: {other:?}"),
    }

    let dump = client.call_tool("dump", json!({})).await.unwrap();
    assert!(dump.is_error());
    assert!(text(&dump).contains("larger than 16384 bytes"), "{}", text(&dump));
}

#[tokio::test]
async fn an_unreachable_api_is_an_error_without_the_secret() {
    // A port nothing listens on: bound, then released.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1?api_key=k3y", listener.local_addr().unwrap());
    drop(listener);
    let api = OpenApi::from_str(PETSTORE)
        .unwrap()
        .base_url(base.replace("?api_key=k3y", ""))
        .auth(Auth::query("api_key", "k3y"));
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let result = client.call_tool("health", json!({})).await.unwrap();
    assert!(result.is_error());
    assert!(text(&result).starts_with("the API could not be reached"), "{}", text(&result));
    assert!(!text(&result).contains("k3y"), "{}", text(&result));
}

#[tokio::test]
async fn route_maps_decide_what_is_served() {
    let base = start_api().await;
    let api = petstore(&base)
        .route(RouteMap::exclude().tags(["admin"]))
        .route(RouteMap::tool().path("^/pets"))
        .route(RouteMap::exclude().methods(["get"]));
    let mapping = api.mapping().unwrap();
    let of = |path: &str, method: &str| mapping.iter().find(|m| m.path == path && m.method == method).unwrap();
    assert_eq!(of("/pets/{petId}", "DELETE").tool, None);
    assert_eq!(of("/pets/{petId}", "DELETE").reason, "route map rule 0");
    assert_eq!(of("/pets", "GET").tool.as_deref(), Some("listPets"));
    assert_eq!(of("/health", "GET").reason, "route map rule 2");
    // The operation that cannot be served is listed, with why.
    let upload = of("/upload", "POST");
    assert!(upload.left_out && upload.to == MapTo::Exclude, "{upload:?}");
    assert!(upload.reason.contains("multipart bodies are not sent"), "{upload:?}");
    assert!(upload.reason.contains("/paths/~1upload/post/requestBody"), "{upload:?}");
    assert!(!of("/pets/{petId}", "DELETE").left_out);
    let server = Server::from_openapi(&api).unwrap();
    let mut client = TestClient::connect(server).await.unwrap();
    let mut names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    names.sort();
    assert_eq!(names, ["createPet", "listPets", "put_pets_petId", "show_pet_by_id"]);

    let bad = petstore(&base).route(RouteMap::exclude().path("(unclosed"));
    let error = Server::from_openapi(&bad).err().unwrap();
    assert!(error.to_string().contains("route map rule 0"), "{error}");
}

#[tokio::test]
async fn openapi_31_null_types_and_servers() {
    let base = start_api().await;
    let document = json!({
        "openapi": "3.1.0",
        "info": {"title": "Notes", "version": "1"},
        "servers": [{"url": "{scheme}://unused.invalid", "variables": {"scheme": {"default": "http"}}}],
        "paths": {"/notes": {"post": {
            "operationId": "addNote",
            "requestBody": {"required": true, "content": {"application/json; charset=utf-8": {"schema": {
                "type": "object", "required": ["text"],
                "properties": {"text": {"type": "string"}, "due": {"type": ["string", "null"], "format": "date-time"}}
            }}}},
            "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {"type": "object", "properties": {"method": {"type": "string"}}}}}}}
        }}}
    });
    let api = OpenApi::from_str(&document.to_string()).unwrap();
    let server = Server::from_openapi(&api).unwrap();
    assert_eq!(server.info().name, "Notes");
    mcp_runtime::clients::check_clients(&server).assert_clear();
    let tools = server.tool_definitions().unwrap();
    let due = &tools[0].input_schema["properties"]["due"];
    assert_eq!(due["type"], "string");
    assert_eq!(tools[0].input_schema["required"], json!(["text"]));

    // The document's server URL is used when none is given.
    let mut client = TestClient::connect(Server::from_openapi(&api.base_url(&base)).unwrap()).await.unwrap();
    let result = client.call_tool("addNote", json!({"text": "hi", "due": null})).await.unwrap();
    assert_eq!(result.structured_content.unwrap()["method"], "POST");
}

#[test]
fn malformed_documents_say_where() {
    let cases = [
        (
            r##"{"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"name": "x"}], "responses": {}}}}}"##,
            "/paths/~1a/get/parameters/0",
        ),
        (
            r##"{"openapi": "3.1.0", "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/Nope"}]}}}}"##,
            "/paths/~1a/get/parameters/0/$ref",
        ),
        (
            r##"{"openapi": "3.1.0", "paths": {"/a": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "other.json#/X"}}}}}}}}"##,
            "/paths/~1a/post/requestBody/content/application~1json/schema/$ref",
        ),
        (r##"{"openapi": "4.0.0", "paths": {}}"##, "/openapi"),
        ("paths: [1", ""),
    ];
    for (text, pointer) in cases {
        let error = OpenApi::from_str(text).err().unwrap_or_else(|| panic!("accepted: {text}"));
        assert_eq!(error.pointer(), Some(pointer), "{error}");
        assert!(error.to_string().contains(pointer), "{error}");
        // A document already parsed is read by the same rules.
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            let error = OpenApi::from_value(value).err().unwrap_or_else(|| panic!("accepted as a value: {text}"));
            assert_eq!(error.pointer(), Some(pointer), "{error}");
        }
    }
    let no_server = OpenApi::from_str(r#"{"openapi": "3.0.0", "servers": [{"url": "/v1"}], "paths": {}}"#).unwrap();
    let error = Server::from_openapi(&no_server).err().unwrap();
    assert!(error.to_string().contains("base_url"), "{error}");
}

#[tokio::test]
async fn per_request_credentials_and_basic_auth() {
    let base = start_api().await;
    let api = petstore(&base).auth_per_request(|request| {
        // A credential chosen from the request (here an argument; a real
        // server reads `request.claims()`).
        (request.arguments().get("tag").and_then(Value::as_array)?.first()? == "alice")
            .then(|| Auth::basic("alice", Some("pw".into())))
    });
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let alice = client.call_tool("listPets", json!({"tag": ["alice"]})).await.unwrap();
    assert_eq!(alice.structured_content.unwrap()["auth"], "Basic YWxpY2U6cHc=");
    // Otherwise the fixed credential.
    let other = client.call_tool("listPets", json!({"tag": ["bob"]})).await.unwrap();
    assert_eq!(other.structured_content.unwrap()["auth"], "Bearer s3cret");
}

#[tokio::test]
async fn a_cancelled_call_drops_its_request_and_a_slow_api_times_out() {
    let base = start_api().await;
    let document = PETSTORE.replace(
        "  /photo:",
        "  /slow:\n    get:\n      operationId: slow\n      responses:\n        '200': {description: ok}\n  /photo:",
    );
    let api = OpenApi::from_str(&document).unwrap().base_url(&base);
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let (tell, dropped) = tokio::sync::oneshot::channel();
    *SLOW.lock().unwrap() = Some(tell);
    let call = client.start_call("slow", json!({})).await;
    // Wait until the API has the request, then cancel the MCP call.
    while SLOW.lock().unwrap().is_some() {
        tokio::task::yield_now().await;
    }
    client.cancel(call).await;
    dropped.await.expect("the API's handler was dropped with its connection");

    let api = OpenApi::from_str(&document).unwrap().base_url(&base).timeout(std::time::Duration::from_millis(50));
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let result = client.call_tool("slow", json!({})).await.unwrap();
    assert!(result.is_error());
    assert!(text(&result).starts_with("the API did not answer within 50ms: GET /slow"), "{}", text(&result));
}

#[tokio::test]
async fn the_example_serves_the_petstore_over_stdio() {
    let base = start_api().await;
    let client = mcp_runtime_client::Client::builder()
        .stderr(mcp_runtime_client::Stderr::Capture)
        .command(crate::common::example("openapi"), [base.as_str()])
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    // The route map leaves DELETE out.
    assert_eq!(names, ["createPet", "listPets", "showPetById"]);
    mcp_runtime::clients::ClientReport::for_tools(&tools).assert_clear();
    let pet = client.call("showPetById", json!({"petId": 7})).await.unwrap();
    assert!(!pet.is_error(), "{pet:?}");
    assert_eq!(pet.structured_content.unwrap()["name"], "Rex");
    let missing = client.call("showPetById", json!({"petId": "seven"})).await.unwrap();
    assert!(missing.is_error(), "{missing:?}");
    client.close().await;
}
