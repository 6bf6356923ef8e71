//! What reaches the API besides JSON: a form body, a key in a cookie
//! beside the operation's own cookie parameters.

use mcp_runtime::Server;
use mcp_runtime::openapi::{Auth, OpenApi};
use mcp_runtime::testing::TestClient;
use serde_json::json;

use crate::openapi::{PETSTORE, start_api};

#[tokio::test]
async fn form_bodies_and_cookie_keys() {
    let base = start_api().await;
    let document = PETSTORE.replace(
        "  /health:",
        "  /login:\n    post:\n      operationId: login\n      parameters:\n        \
         - {name: theme, in: cookie, schema: {type: string}}\n      requestBody:\n        required: true\n        \
         content: {application/x-www-form-urlencoded: {schema: {type: object, required: [user], properties: \
         {user: {type: string}, scopes: {type: array, items: {type: string}}}}}}\n      responses:\n        \
         '201': {description: ok, content: {application/json: {schema: {type: object, properties: {method: {type: string}}}}}}\n  \
         /health:",
    );
    let api = OpenApi::from_str(&document).unwrap().base_url(&base).auth(Auth::cookie("session", "k3y"));
    assert!(!format!("{:?}", Auth::cookie("session", "k3y")).contains("k3y"));
    let mut client = TestClient::connect(Server::from_openapi(&api).unwrap()).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let login = tools.iter().find(|t| t.name == "login").unwrap();
    assert_eq!(login.input_schema["required"], json!(["user"]));
    let result = client
        .call_tool("login", json!({"user": "ada lovelace", "scopes": ["read", "write"], "theme": "dark"}))
        .await
        .unwrap();
    assert!(!result.is_error(), "{result:?}");
    let echo = result.structured_content.unwrap();
    assert_eq!(echo["contentType"], "application/x-www-form-urlencoded");
    assert_eq!(echo["body"], "user=ada+lovelace&scopes=read&scopes=write");
    // The operation's cookie parameter and the credential's cookie, in one header.
    assert_eq!(echo["cookie"], "theme=dark; session=k3y");
}

#[tokio::test]
async fn text_and_binary_bodies_are_sent_as_their_media_type() {
    let base = start_api().await;
    let document = PETSTORE.replace(
        "  /health:",
        "  /render:\n    post:\n      operationId: render\n      requestBody:\n        required: true\n        \
         description: The Markdown to render.\n        content: {text/markdown: {schema: {type: string}}}\n      \
         responses:\n        '201': {description: ok, content: {application/json: {schema: {type: object}}}}\n  \
         /blobs/{name}:\n    put:\n      operationId: put_blob\n      parameters:\n        \
         - {name: name, in: path, required: true, schema: {type: string}}\n      requestBody:\n        \
         content: {application/octet-stream: {schema: {type: string, format: binary}}}\n      responses:\n        \
         '200': {description: ok, content: {application/json: {schema: {type: object}}}}\n  \
         /health:",
    );
    let api = OpenApi::from_str(&document).unwrap().base_url(&base);
    let server = Server::from_openapi(&api).unwrap();
    mcp_runtime::clients::check_clients(&server).assert_clear();
    let mut client = TestClient::connect(server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let render = tools.iter().find(|t| t.name == "render").unwrap();
    assert_eq!(render.input_schema["required"], json!(["body"]));
    let body = &render.input_schema["properties"]["body"];
    assert_eq!(body["type"], "string");
    assert_eq!(body["description"], "The Markdown to render. (sent as `text/markdown`)");
    let blob = &tools.iter().find(|t| t.name == "put_blob").unwrap().input_schema["properties"]["body"];
    assert_eq!(blob["type"], "string");
    assert_eq!(blob["description"], "(the bytes in base64, sent as `application/octet-stream`)");

    let echoed = |result: mcp_runtime::CallToolResult| -> serde_json::Value {
        assert!(!result.is_error(), "{result:?}");
        serde_json::from_str(result.content[0].as_text().unwrap()).unwrap()
    };
    let echo = echoed(client.call_tool("render", json!({"body": "# Title\n\n*hi*"})).await.unwrap());
    assert_eq!((&echo["contentType"], &echo["body"]), (&json!("text/markdown"), &json!("# Title\n\n*hi*")));

    // "\u{1}\u{2}bytes" in base64.
    let echo = echoed(client.call_tool("put_blob", json!({"name": "a.bin", "body": "AQJieXRlcw=="})).await.unwrap());
    assert_eq!(echo["path"], "/v1/blobs/a.bin");
    assert_eq!((&echo["contentType"], &echo["body"]), (&json!("application/octet-stream"), &json!("\u{1}\u{2}bytes")));

    let bad = client.call_tool("put_blob", json!({"name": "a.bin", "body": "not base64!"})).await.unwrap();
    assert!(bad.is_error(), "{bad:?}");
    assert!(bad.content[0].as_text().unwrap().contains("base64"), "{bad:?}");
}
