//! The API's operations as tools, called as a client calls them against a
//! stand-in for the API, and what every major MCP client would make of
//! their schemas.

use mcp_runtime::clients::check_clients;
use mcp_runtime::testing::TestClient;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A stand-in for the API: answers one request with `body`, and hands
/// back the request it got.
async fn api_answering(body: &'static str) -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let served = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut request = Vec::new();
        let mut buffer = [0; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let read = stream.read(&mut buffer).await.unwrap();
            if read == 0 {
                break;
            }
            request.extend_from_slice(&buffer[..read]);
        }
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(answer.as_bytes()).await.unwrap();
        String::from_utf8_lossy(&request).into_owned()
    });
    (base, served)
}

#[tokio::test]
async fn get_todo_asks_the_api_and_returns_its_answer() {
    let (base, served) = api_answering(r#"{"id": 7, "title": "write tests", "done": false}"#).await;
    let server = {{crate}}::server(Some(&base)).unwrap();
    let mut client = TestClient::connect(server).await.unwrap();
    let result = client.call_tool("getTodo", json!({"id": 7})).await.unwrap();
    assert_eq!(result.structured_content, Some(json!({"id": 7, "title": "write tests", "done": false})));
    let request = served.await.unwrap();
    assert!(request.starts_with("GET /todos/7 "), "{request}");
}

#[tokio::test]
async fn every_operation_is_a_tool() {
    let mut client = TestClient::connect({{crate}}::server(None).unwrap()).await.unwrap();
    let mut names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    names.sort();
    assert_eq!(names, ["createTodo", "getTodo"]);
}

/// Fails when a client would reject a tool or mishandle its schema:
/// keep it in CI.
#[test]
fn every_client_takes_the_tools() {
    check_clients(&{{crate}}::server(None).unwrap()).assert_clear();
}
