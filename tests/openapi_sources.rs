//! A document in several files, or at a URL, with the documents it refers
//! to: files beside a file and URLs on its own origin are followed; a URL
//! on another origin only when allowed, and then not to a private address
//! unless that is allowed too; bounds hold, and every refusal names the
//! reference.

use std::net::SocketAddr;

use axum::Router;
use axum::routing::get;
use mcp_runtime::Server;
use mcp_runtime::openapi::{OpenApi, Sources};
use mcp_runtime::testing::TestClient;
use serde_json::Value;

/// The root: one operation whose body is a pet, described in another file.
fn root(pet: &str) -> String {
    format!(
        r#"openapi: 3.0.3
info: {{title: Pets, version: "1"}}
servers: [{{url: "http://127.0.0.1:9/v1"}}]
paths:
  /pets:
    post:
      operationId: createPet
      requestBody:
        content:
          application/json:
            schema: {{$ref: "{pet}#/Pet"}}
      responses: {{"201": {{description: created}}}}
components:
  schemas:
    Owner:
      type: object
      properties:
        name: {{type: string, description: The owner's name}}
"#
    )
}

/// The pet: a local reference, and one back to the root (a cycle of files).
const PET: &str = r##"Pet:
  type: object
  required: [name]
  properties:
    name: {type: string, description: The pet's name}
    tag: {$ref: "#/Tag"}
    owner: {$ref: "ROOT#/components/schemas/Owner"}
Tag:
  type: string
  description: A tag for the pet
"##;

async fn input_schema(api: OpenApi) -> Value {
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let tool = tools.into_iter().find(|t| t.name == "createPet").expect("createPet is served");
    serde_json::to_value(tool.input_schema).unwrap()
}

fn assert_bundled(schema: &Value) {
    let properties = &schema["properties"];
    assert_eq!(properties["name"]["description"], "The pet's name", "{schema}");
    assert_eq!(properties["tag"]["description"], "A tag for the pet", "{schema}");
    assert_eq!(properties["owner"]["properties"]["name"]["description"], "The owner's name", "{schema}");
}

fn folder(name: &str) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("mcp-openapi-sources-{name}-{}", std::process::id()));
    std::fs::create_dir_all(folder.join("schemas")).unwrap();
    folder
}

#[tokio::test]
async fn a_document_in_several_files_is_read_whole() {
    let dir = folder("files");
    std::fs::write(dir.join("root.yaml"), root("./schemas/pet.yaml")).unwrap();
    std::fs::write(dir.join("schemas/pet.yaml"), PET.replace("ROOT", "../root.yaml")).unwrap();
    let location = dir.join("root.yaml");
    let api = OpenApi::load(location.to_str().unwrap(), &Sources::new()).await.unwrap();
    assert_bundled(&input_schema(api).await);

    // One document read alone names what it cannot follow.
    let error = OpenApi::from_file(&location).err().expect("refused").to_string();
    assert!(error.contains("./schemas/pet.yaml#/Pet") && error.contains("OpenApi::load"), "{error}");

    // A file that is not there: the reference that names it.
    std::fs::write(dir.join("root.yaml"), root("./schemas/missing.yaml")).unwrap();
    let error = OpenApi::load(location.to_str().unwrap(), &Sources::new()).await.err().expect("refused").to_string();
    assert!(error.contains("requestBody") && error.contains("missing.yaml"), "{error}");

    // Bounds: two documents where one is allowed.
    std::fs::write(dir.join("root.yaml"), root("./schemas/pet.yaml")).unwrap();
    let error = OpenApi::load(location.to_str().unwrap(), &Sources::new().max_documents(1))
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("max_documents"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Serve `root` at `/openapi.yaml` and `pet` at `/schemas/pet.yaml`.
async fn serve(root: String, pet: String) -> String {
    let app = Router::new()
        .route("/openapi.yaml", get(move || std::future::ready(root.clone())))
        .route("/schemas/pet.yaml", get(move || std::future::ready(pet.clone())));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

#[tokio::test]
async fn a_document_at_a_url_follows_its_own_origin_and_other_origins_only_when_allowed() {
    // Its own origin: followed, as the document itself was fetched.
    let own = serve(root("schemas/pet.yaml"), PET.replace("ROOT", "../openapi.yaml")).await;
    let api = OpenApi::load(&format!("{own}/openapi.yaml"), &Sources::new()).await.unwrap();
    assert_bundled(&input_schema(api).await);

    // Another origin (another port): someone else's document.
    let other = serve(String::new(), PET.replace("ROOT", &format!("{own}/openapi.yaml"))).await;
    let host = serve(root(&format!("{other}/schemas/pet.yaml")), String::new()).await;
    let url = format!("{host}/openapi.yaml");
    let error = OpenApi::load(&url, &Sources::new()).await.err().expect("refused").to_string();
    assert!(error.contains("another origin") && error.contains("allow_remote_refs"), "{error}");
    // Allowed, but on a loopback address: still refused.
    let remote = Sources::new().allow_remote_refs(true);
    let error = OpenApi::load(&url, &remote).await.err().expect("refused").to_string();
    assert!(error.contains("127.0.0.1") && error.contains("allow_private_addresses"), "{error}");
    // Both allowed: read whole.
    let api = OpenApi::load(&url, &remote.allow_private_addresses(true)).await.unwrap();
    assert_bundled(&input_schema(api).await);

    // A name that resolves to a private address is refused as it resolves.
    let port = other.rsplit(':').next().unwrap();
    let named = serve(root(&format!("http://localhost:{port}/schemas/pet.yaml")), String::new()).await;
    let error = OpenApi::load(&format!("{named}/openapi.yaml"), &Sources::new().allow_remote_refs(true))
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("localhost") && error.contains("allow_private_addresses"), "{error}");
}

#[tokio::test]
async fn a_given_client_gets_the_fetch_deadline() {
    // A document that never comes: the fetch gives up, with a client of
    // the caller's own that has no deadline of its own.
    let app = Router::new().route("/openapi.yaml", get(std::future::pending::<String>));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let sources = Sources::new().client(reqwest::Client::new()).timeout(std::time::Duration::from_millis(200));
    let url = format!("http://{addr}/openapi.yaml");
    let load = OpenApi::load(&url, &sources);
    // Only so that a fetch without the deadline fails rather than hangs.
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(120), load).await;
    let error = outcome.expect("the fetch never gave up").err().expect("refused").to_string();
    assert!(error.contains("cannot fetch") && error.contains("timed out"), "{error}");
}
