//! `State<T>` through the protocol: one value shared by every call of
//! every tool, and a server missing a state its tools need refuses to
//! start, naming the tool and the type.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::memory::{call, connect};
use mcp_runtime::Error;
use mcp_runtime::prelude::*;
use serde_json::json;

/// Notes kept by the server.
#[derive(Default)]
struct Notes(Mutex<Vec<String>>);

type Counter = State<AtomicU64>;

/// Add a note; returns how many calls the server has had.
#[tool]
fn note(text: String, notes: State<Notes>, calls: Counter) -> String {
    notes.0.lock().unwrap().push(text);
    format!("call {}", calls.fetch_add(1, Ordering::SeqCst) + 1)
}

/// List the notes.
#[tool]
async fn notes(notes: State<Notes>, calls: Counter) -> String {
    calls.fetch_add(1, Ordering::SeqCst);
    notes.0.lock().unwrap().join(", ")
}

#[tokio::test]
async fn state_is_shared_by_every_call_of_every_tool() {
    let server = Server::empty("state", "1")
        .tool(note::Tool)
        .tool(notes::Tool)
        .with_state(Notes::default())
        .with_state(AtomicU64::new(100));
    let mut client = connect(server).await;
    assert_eq!(call(&mut client, "note", json!({"text": "a"})).await["content"][0]["text"], "call 101");
    assert_eq!(call(&mut client, "note", json!({"text": "b"})).await["content"][0]["text"], "call 102");
    assert_eq!(call(&mut client, "notes", json!({})).await["content"][0]["text"], "a, b");
    assert_eq!(call(&mut client, "note", json!({"text": "c"})).await["content"][0]["text"], "call 104");
    // State parameters are not arguments.
    let tools = crate::common::memory::list(&mut client).await;
    let note = tools.iter().find(|t| t["name"] == "note").unwrap();
    assert_eq!(
        note["inputSchema"],
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    );
}

#[tokio::test]
async fn a_missing_state_stops_the_server_at_start_up() {
    let server = Server::empty("state", "1").tool(notes::Tool).with_state(Notes::default());
    let err = server.connect_in_memory().map(|_| ()).unwrap_err();
    assert!(matches!(err, Error::MissingState { .. }));
    assert_eq!(
        err.to_string(),
        "tool `notes` (`suite::state::notes`) takes a `State<core::sync::atomic::AtomicU64>`, but none is registered; \
         add one with `.with_state(…)` on the server"
    );
}
