//! The practical floor: read a line, answer it, no framework. It does only
//! what the benchmark asks (no validation beyond what it needs), so it shows
//! what the frameworks cost. With `--http ADDR`, the same over HTTP: see
//! [`http`].

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

mod http;

fn main() {
    let mut args = std::env::args().skip(1);
    if let (Some("--http"), Some(addr)) = (args.next().as_deref(), args.next()) {
        if let Err(error) = http::serve(&addr) {
            eprintln!("bench-raw: {error}");
            std::process::exit(1);
        }
        return;
    }
    let stdout = Arc::new(Mutex::new(std::io::stdout()));
    let stdin = std::io::stdin();
    let mut line = String::new();
    let mut input = stdin.lock();
    let mut sleepers = Vec::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = message.get("id").cloned() else { continue };
        let params = &message["params"];
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "bench-raw", "version": "1.0.0"}
            }),
            "tools/list" => tools(),
            "tools/call" if params["name"] == "sleep" => {
                let ms = params["arguments"]["ms"].as_u64().unwrap_or(0);
                let out = stdout.clone();
                sleepers.push(std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(ms));
                    write(&out, &id, text(format!("slept {ms} ms")));
                }));
                continue;
            }
            "tools/call" => call(params),
            _ => json!({}),
        };
        write(&stdout, &id, result);
    }
    for sleeper in sleepers {
        let _ = sleeper.join();
    }
}

fn write(out: &Mutex<std::io::Stdout>, id: &Value, result: Value) {
    let mut bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap_or_default();
    bytes.push(b'\n');
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = out.write_all(&bytes).and_then(|()| out.flush());
}

fn text(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn call(params: &Value) -> Value {
    let args = &params["arguments"];
    match params["name"].as_str().unwrap_or_default() {
        "calculator" => {
            let (a, b) = (args["a"].as_f64().unwrap_or(0.0), args["b"].as_f64().unwrap_or(0.0));
            let value = match args["operation"].as_str().unwrap_or_default() {
                "add" => a + b,
                "subtract" => a - b,
                "multiply" => a * b,
                _ => a / b,
            };
            text(format!("result: {value}"))
        }
        "text_analyzer" => {
            let t = args["text"].as_str().unwrap_or_default();
            text(format!("characters: {}\nwords: {}", t.chars().count(), t.split_whitespace().count()))
        }
        _ => json!({"content": [{"type": "text", "text": "unknown tool"}], "isError": true}),
    }
}

fn tools() -> Value {
    let object =
        |properties: Value, required: Value| json!({"type": "object", "properties": properties, "required": required});
    json!({"tools": [
        {"name": "calculator", "description": "Perform basic arithmetic on two numbers.", "inputSchema": object(
            json!({"operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]},
                   "a": {"type": "number"}, "b": {"type": "number"}}),
            json!(["operation", "a", "b"]))},
        {"name": "text_analyzer", "description": "Count the characters and words of a text.", "inputSchema": object(
            json!({"text": {"type": "string"}}), json!(["text"]))},
        {"name": "sleep", "description": "Sleep for `ms` milliseconds.", "inputSchema": object(
            json!({"ms": {"type": "integer", "minimum": 0}}), json!(["ms"]))}
    ]})
}
