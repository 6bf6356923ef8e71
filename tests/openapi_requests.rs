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
