//! Keep-alive pings on a long-lived connection (the loop stdio uses, here
//! in memory): a client that answers keeps its connection however long it
//! is quiet; one that never answers is let go after the deadline.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use serde_json::json;

/// Say hi.
#[tool]
fn hi() -> &'static str {
    "hi"
}

#[tokio::test]
async fn a_client_that_answers_pings_stays_connected() {
    let server =
        Server::empty("kept", "1").tool(hi::Tool).keep_alive(Duration::from_millis(10), Duration::from_millis(200));
    let mut client = TestClient::connect(server).await.unwrap();
    // Quiet for many intervals and past the deadline: each ping is answered
    // (a ping left unanswered would have ended the connection by now).
    tokio::time::sleep(Duration::from_millis(600)).await;
    let result = client.call_tool("hi", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "hi");
}

#[tokio::test]
async fn a_client_that_does_not_answer_pings_is_dropped_after_the_deadline() {
    let server = Server::empty("kept", "1").keep_alive(Duration::from_millis(10), Duration::from_millis(50));
    let mut client = server.connect_in_memory().unwrap();
    client.initialize().await.unwrap();
    let mut pings = 0;
    // Read what the server sends, answering nothing, until it ends the
    // connection (the bound only keeps a broken server from hanging the test).
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(message) = client.recv().await.unwrap() {
            if message["method"] == "ping" {
                pings += 1;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the connection was not ended");
    assert_eq!(pings, 1, "one ping at a time, and the connection ends when it goes unanswered");
}

#[tokio::test]
async fn without_keep_alive_nothing_is_sent() {
    let mut client = Server::empty("quiet", "1").connect_in_memory().unwrap();
    client.initialize().await.unwrap();
    let heard = tokio::time::timeout(Duration::from_millis(100), client.recv()).await;
    assert!(heard.is_err(), "the server sent {heard:?}");
}
