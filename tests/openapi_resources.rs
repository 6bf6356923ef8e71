//! GET operations served as resources and resource templates by a route
//! map, listed and read through the protocol; and what stays a tool, and
//! why.

use mcp_core::ResourceContents;
use mcp_runtime::Server;
use mcp_runtime::openapi::{MapTo, OpenApi, RouteMap};
use mcp_runtime::testing::TestClient;
use serde_json::Value;

use crate::openapi::{PETSTORE, start_api};

/// The petstore with a GET whose only parameter is in the path.
fn with_owner(base: &str) -> OpenApi {
    let document = PETSTORE.replace(
        "  /health:",
        "  /owners/{ownerId}:\n    get:\n      operationId: owner\n      summary: One owner\n      parameters:\n        \
         - {name: ownerId, in: path, required: true, schema: {type: integer}}\n      responses:\n        '200': \
         {description: ok, content: {application/json: {schema: {type: object}}}}\n  \
         /owners/{name}:\n    get:\n      operationId: ownerByName\n      parameters:\n        \
         - {name: name, in: path, required: true, schema: {type: string}}\n      responses:\n        '200': \
         {description: ok}\n  /health:",
    );
    let api = OpenApi::from_str(&document).unwrap().base_url(base);
    api.auth(mcp_runtime::openapi::Auth::bearer("s3cret")).max_response_bytes(16 * 1024)
}

fn text(contents: &ResourceContents) -> (&str, Option<&str>) {
    match contents {
        ResourceContents::Text { text, mime_type, .. } => (text, mime_type.as_deref()),
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn gets_become_resources_and_templates() {
    let base = start_api().await;
    let api = with_owner(&base).route(RouteMap::resource().methods(["GET"]));
    let mapping = api.mapping().unwrap();
    let of = |path: &str, method: &str| mapping.iter().find(|m| m.path == path && m.method == method).unwrap();
    assert_eq!((of("/health", "GET").to, of("/health", "GET").uri.as_deref()), (MapTo::Resource, Some("api://health")));
    let owner = of("/owners/{ownerId}", "GET");
    assert_eq!((owner.to, owner.uri.as_deref()), (MapTo::ResourceTemplate, Some("api://owners/{ownerId}")));
    // A template that could be read as another already served stays a tool.
    let by_name = of("/owners/{name}", "GET");
    assert_eq!(by_name.tool.as_deref(), Some("ownerByName"));
    let why = "its URI `api://owners/{name}` can match the same URIs as `api://owners/{ownerId}`";
    assert!(by_name.reason.contains(why), "{by_name:?}");
    // Optional query parameters are the template's query variables.
    let list = of("/pets", "GET");
    assert_eq!(list.uri.as_deref(), Some("api://pets{?limit,tag,status}"));
    // A header parameter cannot be a URI variable: a tool, and the reason says so.
    let show = of("/pets/{petId}", "GET");
    assert_eq!((show.to, show.tool.as_deref()), (MapTo::Tool, Some("show_pet_by_id")));
    assert!(show.reason.contains("asks for a resource, but the parameter `X-Request-Id`"), "{show:?}");
    assert_eq!(of("/pets", "POST").to, MapTo::Tool);

    let server = Server::from_openapi(&api).unwrap();
    mcp_runtime::clients::check_clients(&server).assert_clear();
    let mut client = TestClient::connect(server).await.unwrap();
    let mut uris: Vec<String> = client.list_resources().await.unwrap().into_iter().map(|r| r.uri).collect();
    uris.sort();
    assert_eq!(uris, ["api://dump", "api://health", "api://photo"]);
    let templates = client.list_resource_templates().await.unwrap();
    let owner = templates.iter().find(|t| t.name == "owner").unwrap();
    assert_eq!(owner.uri_template, "api://owners/{ownerId}");
    assert_eq!(owner.description.as_deref(), Some("One owner"));
    assert_eq!(owner.mime_type.as_deref(), Some("application/json"));
    let mut tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    tools.sort();
    assert_eq!(tools, ["createPet", "deletePet", "ownerByName", "put_pets_petId", "show_pet_by_id"]);

    // A fixed resource: the API's text, its media type.
    let health = client.read_resource("api://health").await.unwrap();
    assert_eq!(text(&health.contents[0]), ("all good", Some("text/plain")));
    // A template: the variable goes into the path, the credential along.
    let read = client.read_resource("api://owners/42").await.unwrap();
    let (body, media) = text(&read.contents[0]);
    assert_eq!(media, Some("application/json"));
    assert_eq!(read.contents[0].uri(), "api://owners/42");
    let echo: Value = serde_json::from_str(body).unwrap();
    assert_eq!((echo["method"].as_str(), echo["path"].as_str()), (Some("GET"), Some("/v1/owners/42")));
    assert_eq!(echo["auth"], "Bearer s3cret");
    // Query variables go into the query.
    let listed = client.read_resource("api://pets?limit=3").await.unwrap();
    let echo: Value = serde_json::from_str(text(&listed.contents[0]).0).unwrap();
    assert_eq!((echo["path"].as_str(), echo["query"].as_str()), (Some("/v1/pets"), Some("limit=3")));
    // Binary answers are blobs.
    let photo = client.read_resource("api://photo").await.unwrap();
    assert_eq!(photo.contents[0].bytes().unwrap(), [0x89, b'P', b'N', b'G']);
    // A large answer is refused, saying why.
    let dump = client.read_resource("api://dump").await.unwrap_err();
    assert!(dump.message.contains("larger than 16384 bytes"), "{dump:?}");
}

#[tokio::test]
async fn errors_of_reads_and_prefixes() {
    let base = start_api().await;
    // `/pets/{petId}`'s header parameter removed: it can be a template.
    let document = PETSTORE.replace(
        "      parameters:\n        - {name: X-Request-Id, in: header, schema: {type: string, format: uuid}}\n",
        "",
    );
    let api = OpenApi::from_str(&document)
        .unwrap()
        .base_url(&base)
        .uri_prefix("petstore://")
        .route(RouteMap::resource().path(r"^/pets/\{petId\}$"));
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates.iter().map(|t| t.uri_template.as_str()).collect::<Vec<_>>(), ["petstore://pets/{petId}"]);
    let rex = client.read_resource("petstore://pets/7").await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(text(&rex.contents[0]).0).unwrap()["name"], "Rex");
    // An error status is a failed read naming it.
    let missing = client.read_resource("petstore://pets/missing").await.unwrap_err();
    assert!(
        missing.message.contains(r#"the API answered 404 Not Found: {"error":"no pet called missing"}"#),
        "{missing:?}"
    );
    // The rule matched PUT and DELETE too: only a GET can be a resource.
    let mapping = api.mapping().unwrap();
    let delete = mapping.iter().find(|m| m.method == "DELETE").unwrap();
    assert_eq!(delete.to, MapTo::Tool);
    assert!(delete.reason.contains("only a GET can be a resource"), "{delete:?}");
}

#[tokio::test]
async fn a_fixed_uri_beside_a_template_is_a_resource() {
    let base = start_api().await;
    // `/pets/{petId}` without its header parameter, and `/pets/count` beside it.
    let document = PETSTORE
        .replace(
            "      parameters:\n        - {name: X-Request-Id, in: header, schema: {type: string, format: uuid}}\n",
            "",
        )
        .replace(
            "  /health:",
            "  /pets/count:\n    get:\n      operationId: countPets\n      responses:\n        '200': \
             {description: ok, content: {application/json: {schema: {type: object}}}}\n  /health:",
        );
    let api = OpenApi::from_str(&document).unwrap().base_url(&base).route(RouteMap::resource().path(r"^/pets/"));
    let mapping = api.mapping().unwrap();
    let of = |path: &str| mapping.iter().find(|m| m.path == path && m.method == "GET").unwrap();
    assert_eq!((of("/pets/count").to, of("/pets/count").uri.as_deref()), (MapTo::Resource, Some("api://pets/count")));
    let show = of("/pets/{petId}");
    assert_eq!((show.to, show.uri.as_deref()), (MapTo::ResourceTemplate, Some("api://pets/{petId}")), "{show:?}");

    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let uris: Vec<String> = client.list_resources().await.unwrap().into_iter().map(|r| r.uri).collect();
    assert_eq!(uris, ["api://pets/count"]);
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates.iter().map(|t| t.uri_template.as_str()).collect::<Vec<_>>(), ["api://pets/{petId}"]);
    // The fixed URI is read as itself, any other through the template.
    let count = client.read_resource("api://pets/count").await.unwrap();
    let echo: Value = serde_json::from_str(text(&count.contents[0]).0).unwrap();
    assert_eq!(echo["path"], "/v1/pets/count");
    let rex = client.read_resource("api://pets/7").await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(text(&rex.contents[0]).0).unwrap()["name"], "Rex");
}
