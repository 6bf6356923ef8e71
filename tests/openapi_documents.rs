//! Real OpenAPI documents no one here wrote (`tests/fixtures/openapi/`:
//! the Petstore in 3.0 and 3.1, and GitHub's REST API with 1,221
//! operations), each served as it is: every operation accounted for,
//! a tool list every known client accepts, and schemas an independent
//! JSON Schema validator takes as valid 2020-12.

use std::io::Read;
use std::path::PathBuf;

use mcp_runtime::Server;
use mcp_runtime::openapi::{MapTo, OpenApi, RouteMap};
use mcp_runtime::testing::TestClient;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/openapi").join(name)
}

fn github() -> String {
    let file = std::fs::File::open(fixture("api.github.com.json.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(file).read_to_string(&mut text).unwrap();
    text
}

/// Every advertised schema is a valid JSON Schema 2020-12 document.
fn assert_valid_schemas(tools: &[mcp_core::Tool]) {
    for tool in tools {
        let input = Value::Object(tool.input_schema.clone());
        jsonschema::draft202012::meta::validate(&input).unwrap_or_else(|e| panic!("{}: {e}: {input}", tool.name));
        jsonschema::draft202012::new(&input).unwrap_or_else(|e| panic!("{}: {e}", tool.name));
        if let Some(output) = &tool.output_schema {
            let output = Value::Object(output.clone());
            jsonschema::draft202012::meta::validate(&output).unwrap_or_else(|e| panic!("{}: {e}", tool.name));
        }
    }
}

#[tokio::test]
async fn the_petstore_in_30_and_31_serves_whole() {
    for version in ["3.0", "3.1"] {
        let api = OpenApi::from_file(fixture(&format!("petstore-{version}.yaml"))).unwrap();
        let mapping = api.mapping().unwrap();
        // Every operation is served, 3.1's upload of an image (an octet
        // stream) too, its bytes given in base64; 3.0's is multipart.
        let left_out: Vec<_> = mapping.iter().filter(|m| m.left_out).map(|m| m.path.as_str()).collect();
        let (expected, served): (&[&str], usize) =
            if version == "3.0" { (&["/pet/{petId}/uploadImage"], 19) } else { (&[], 20) };
        assert_eq!(left_out, expected, "{version}");
        assert_eq!(mapping.iter().filter(|m| m.to == MapTo::Tool).count(), served, "{version}");

        let server = Server::from_openapi(&api).unwrap();
        assert_eq!(server.info().name, "Swagger Petstore");
        mcp_runtime::clients::check_clients(&server).assert_clear();
        let mut client = TestClient::connect(server).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.len(), served);
        assert_valid_schemas(&tools);
        let add = tools.iter().find(|t| t.name == "addPet").unwrap();
        // The `Pet` body's properties, through `$ref`s to `Category` and `Tag`.
        let properties = add.input_schema["properties"].as_object().unwrap();
        assert_eq!(add.input_schema["required"], serde_json::json!(["name", "photoUrls"]), "{version}");
        assert_eq!(properties["status"]["enum"], serde_json::json!(["available", "pending", "sold"]));
        assert_eq!(properties["category"]["properties"]["name"]["type"], "string");

        // The GETs as resources: templates where the path has parameters.
        let api = OpenApi::from_file(fixture(&format!("petstore-{version}.yaml")))
            .unwrap()
            .route(RouteMap::resource().methods(["GET"]));
        let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
        let templates = client.list_resource_templates().await.unwrap();
        assert!(templates.iter().any(|t| t.uri_template == "api://pet/{petId}"), "{templates:?}");
    }
}

#[test]
fn githubs_rest_api_serves_with_every_client_clear() {
    let api = OpenApi::from_str(&github()).unwrap().base_url("https://api.github.com");
    let mapping = api.mapping().unwrap();
    assert!(mapping.len() > 1_000, "{}", mapping.len());
    // Every operation is served, the two that take raw bodies too: Markdown
    // as text, a release asset's bytes in base64.
    let left_out: Vec<&str> = mapping.iter().filter(|m| m.left_out).map(|m| m.path.as_str()).collect();
    assert_eq!(left_out, Vec::<&str>::new());
    let server = Server::from_openapi(&api).unwrap();
    let report = mcp_runtime::clients::check_clients(&server);
    report.assert_clear();
    let tools = server.tool_definitions().unwrap();
    assert_eq!(tools.len(), mapping.iter().filter(|m| m.tool.is_some()).count());
    assert_valid_schemas(&tools);
    // Names are unique and what every model API takes.
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.iter().all(|n| n.len() <= 64 && n.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))));
    names.sort();
    names.dedup();
    assert_eq!(names.len(), tools.len());
    let raw = |name: &str| tools.iter().find(|t| t.name == name).unwrap().input_schema["properties"]["body"].clone();
    let markdown = raw("markdown_render-raw");
    assert!(markdown["description"].as_str().unwrap().ends_with("(sent as `text/plain`)"), "{markdown}");
    let asset = raw("repos_upload-release-asset");
    assert!(
        asset["description"].as_str().unwrap().contains("in base64, sent as `application/octet-stream`"),
        "{asset}"
    );
    // A union of an integer and a string is open, and says what it was.
    let dispatch = tools.iter().find(|t| t.name == "actions_create-workflow-dispatch").unwrap();
    let workflow = &dispatch.input_schema["properties"]["workflow_id"];
    assert!(workflow.get("oneOf").is_none() && workflow.get("type").is_none(), "{workflow}");
    assert!(workflow["description"].as_str().unwrap().ends_with("One of: integer; string."), "{workflow}");
}
