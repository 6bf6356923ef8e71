//! A server made from an OpenAPI document composes like any other: a
//! gateway's `mcpServers` file takes an `openapi` entry, and such a server
//! mounts and imports under a prefix, its tools and resources renamed.

use mcp_runtime::Server;
use mcp_runtime::openapi::RouteMap;
use mcp_runtime::proxy::Config;
use mcp_runtime::testing::TestClient;
use serde_json::json;

use crate::openapi::{PETSTORE, petstore, start_api};

#[tokio::test]
async fn a_gateway_file_serves_an_openapi_entry() {
    let base = start_api().await;
    let folder = std::env::temp_dir().join(format!("mcp-openapi-gateway-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("petstore.yaml"), PETSTORE).unwrap();
    let file = folder.join("gateway.json");
    // A relative document path is read from the file's folder; a disabled
    // entry's document is not read at all (this one is not a document).
    std::fs::write(folder.join("old.yaml"), "openapi: [not a document").unwrap();
    let config = json!({"mcpServers": {
        "pets": {"openapi": "petstore.yaml", "baseUrl": base, "exclude": ["dump"]},
        "old": {"openapi": "old.yaml", "disabled": true}
    }});
    std::fs::write(&file, config.to_string()).unwrap();
    let config = Config::from_file(&file).unwrap();
    // The document is read and built once, with the file: the mount serves
    // what was read, whatever became of the document since.
    std::fs::remove_file(folder.join("petstore.yaml")).unwrap();
    let gateway = Server::empty("gateway", "1.0.0").mount_config(&config);
    let mut client = TestClient::connect(gateway).await.unwrap();
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"pets_listPets".to_owned()) && !names.contains(&"pets_dump".to_owned()), "{names:?}");
    assert!(!names.iter().any(|name| name.starts_with("old_")), "{names:?}");
    let listed = client.call_tool("pets_listPets", json!({"limit": 2})).await.unwrap();
    assert_eq!(listed.structured_content.unwrap()["query"], "limit=2");

    // A document that cannot be served is refused when the file is read, naming the entry.
    let broken = json!({"mcpServers": {"pets": {"openapi": "petstore.yaml"}}});
    std::fs::write(folder.join("petstore.yaml"), PETSTORE).unwrap();
    std::fs::write(&file, broken.to_string()).unwrap();
    let error = Config::from_file(&file).unwrap_err().to_string();
    assert!(error.contains("server `pets`") && error.contains("base_url"), "{error}");
    std::fs::remove_dir_all(&folder).unwrap();
}

#[tokio::test]
async fn an_openapi_server_mounts_and_imports_under_a_prefix() {
    let base = start_api().await;
    let api = petstore(&base).route(RouteMap::resource().methods(["GET"]).path("^/health$"));
    let host = Server::empty("host", "1.0.0")
        .mount("remote", Server::from_openapi(&api).unwrap())
        .import("local", Server::from_openapi(&api).unwrap());
    let mut client = TestClient::connect(host).await.unwrap();
    for tool in ["remote_createPet", "local_createPet"] {
        let created = client.call_tool(tool, json!({"name": "Rex"})).await.unwrap();
        assert_eq!(created.structured_content.unwrap()["body"], json!({"name": "Rex"}), "{tool}");
    }
    let mut uris: Vec<String> = client.list_resources().await.unwrap().into_iter().map(|r| r.uri).collect();
    uris.sort();
    assert_eq!(uris.len(), 2, "{uris:?}");
    for uri in uris {
        let health = client.read_resource(&uri).await.unwrap();
        assert_eq!(health.contents[0].bytes().unwrap(), b"all good", "{uri}");
    }
}
