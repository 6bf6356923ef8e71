//! A fuzzer over framing and dispatch, on the stable toolchain (bolero's
//! random engine under `cargo test`): JSON-RPC lines from the spec's
//! examples, mutated byte by byte and spliced into each other, reach a
//! server in memory. Whatever arrives, the server must go on answering
//! (a `ping` after the input is answered), write only JSON-RPC, and end
//! cleanly when the client closes.
//!
//! CI runs 2,000 inputs. A long run: `MCP_FUZZ_ITERATIONS=10000000 cargo
//! test --release -p mcp-tests --test fuzz`; a failure prints the input and
//! `BOLERO_RANDOM_SEED` to replay it.

use std::time::Duration;

use bolero::{TypeGenerator, check};
use mcp_runtime::prelude::*;
use serde_json::Value;

/// Messages as the spec's examples write them, in both eras.
const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"ExampleClient","version":"1.0.0"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"optional-cursor-value"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"p"}}}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"pick","arguments":{"size":"large","count":3}}}"#,
    r#"[{"jsonrpc":"2.0","id":5,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}]"#,
    r#"{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"notes://welcome"}}"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"review","arguments":{"code":"fn main() {}"}}}"#,
    r#"{"jsonrpc":"2.0","id":8,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"code","value":"f"}}}"#,
    r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":10,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"debug"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"done"}}"#,
    r#"{"jsonrpc":"2.0","id":13,"result":{"roots":[{"uri":"file:///x"}]}}"#,
    r#"{"jsonrpc":"2.0","id":14,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"greet","arguments":{},"inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"x"}}},"requestState":"e30.AAAA","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#,
];

/// One change to a seed.
#[derive(Debug, TypeGenerator)]
enum Edit {
    Set {
        at: u16,
        byte: u8,
    },
    Insert {
        at: u16,
        byte: u8,
    },
    Cut {
        at: u16,
        len: u8,
    },
    /// Splice the tail of another seed in at `at`.
    Splice {
        seed: u8,
        from: u16,
        at: u16,
    },
}

/// One input: seeds with their edits, and raw bytes as a line of their own.
#[derive(Debug, TypeGenerator)]
struct Input {
    lines: Vec<(u8, Vec<Edit>)>,
    raw: Vec<u8>,
}

fn at(position: u16, len: usize) -> usize {
    usize::from(position) % (len + 1)
}

fn build(seed: u8, edits: &[Edit]) -> Vec<u8> {
    let mut line = SEEDS[usize::from(seed) % SEEDS.len()].as_bytes().to_vec();
    for edit in edits {
        match *edit {
            Edit::Set { at: p, byte } if !line.is_empty() => {
                let i = at(p, line.len() - 1);
                line[i] = byte;
            }
            Edit::Set { .. } => {}
            Edit::Insert { at: p, byte } => line.insert(at(p, line.len()), byte),
            Edit::Cut { at: p, len } => {
                let start = at(p, line.len());
                let end = (start + usize::from(len)).min(line.len());
                line.drain(start..end);
            }
            Edit::Splice { seed, from, at: p } => {
                let other = SEEDS[usize::from(seed) % SEEDS.len()].as_bytes();
                let tail = &other[at(from, other.len())..];
                let i = at(p, line.len());
                line.truncate(i);
                line.extend_from_slice(tail);
            }
        }
    }
    line
}

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    Large,
}

/// Pick some of a size.
#[tool]
fn pick(size: Size, #[arg(description = "how many")] count: u8) -> String {
    format!("{count} {}", matches!(size, Size::Large))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// Ask for a name.
#[tool]
async fn greet(ctx: Context) -> Result<String, ToolError> {
    Ok(ctx.elicit::<Name>("name?").await?.accepted().map_or_else(String::new, |n| n.name))
}

/// A note.
#[resource("notes://{title}")]
fn note(title: String) -> String {
    title
}

/// Review code.
#[prompt]
fn review(code: String) -> String {
    code
}

async fn exercise(input: &Input) {
    let server = Server::empty("fuzz", "1")
        .tool(add::Tool)
        .tool(pick::Tool)
        .tool(greet::Tool)
        .resource(note::Resource)
        .prompt(review::Prompt)
        .shutdown_grace(Duration::from_millis(200));
    let mut client = server.connect_in_memory().expect("the server starts");
    for (seed, edits) in &input.lines {
        let line = build(*seed, edits);
        client.send_line(&String::from_utf8_lossy(&line)).await.expect("the server reads");
    }
    client.send_line(&String::from_utf8_lossy(&input.raw)).await.expect("the server reads");
    client.send_line(r#"{"jsonrpc":"2.0","id":"fuzz-end","method":"ping"}"#).await.expect("the server reads");
    let answered = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let message = client.recv().await.expect("only JSON on the wire").expect("the server is still there");
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message["id"] == "fuzz-end" && message.get("method").is_none() {
                return;
            }
        }
    })
    .await;
    assert!(answered.is_ok(), "the server stopped answering");
    let rest: Vec<Value> = client.close().await.expect("the server ends cleanly");
    assert!(rest.iter().all(|m| m["jsonrpc"] == "2.0"));
}

#[test]
fn any_input_leaves_the_server_answering() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    check!().with_type::<Input>().with_iterations(iterations).for_each(|input| runtime.block_on(exercise(input)));
}
