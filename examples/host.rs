//! A host: hand the tools of one or more MCP servers to a model behind an
//! OpenAI-compatible chat-completions API, run the calls the model asks
//! for (several at once when it asks for several), feed the results back,
//! and print the model's answer.
//!
//! ```sh
//! export OPENAI_BASE_URL=http://localhost:11434/v1   # any compatible API
//! export OPENAI_API_KEY=...  OPENAI_MODEL=...
//! cargo run --example host -- --server "cargo run -q --example calculator" "What is 17 times 23?"
//! # an https:// API needs TLS:
//! cargo run --example host --features tls -- …
//! cargo run --example host -- --config servers.json "Summarise my notes"
//! ```
//!
//! `--server` takes a command line or an `http://` URL; `--config` a file
//! in the `mcpServers` shape clients use:
//! `{"mcpServers": {"calc": {"command": "calc", "args": [], "env": {"KEY": "…"}}, "web": {"url": "http://…/mcp"}}}`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use futures_util::future::join_all;
use mcp_runtime_client::protocol::providers::{Provider, convert};
use mcp_runtime_client::protocol::{CallToolResult, Content};
use mcp_runtime_client::{Client, Stderr};
use serde_json::{Value, json};

/// How many times the model may ask for tools before it must answer.
const MAX_TURNS: usize = 10;

/// One server from the command line or the config file.
enum Server {
    Command { program: String, args: Vec<String>, env: Vec<(String, String)> },
    Url(String),
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("host: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<String, String> {
    let (servers, prompt) = arguments()?;
    let base = std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".into());
    if base.starts_with("https://") && !cfg!(feature = "tls") {
        return Err(format!("{base} needs TLS: run with `--features tls`"));
    }
    let key = std::env::var("OPENAI_API_KEY").map_err(|_| "set OPENAI_API_KEY".to_owned())?;
    let model = std::env::var("OPENAI_MODEL").map_err(|_| "set OPENAI_MODEL".to_owned())?;

    // Connect to every server and gather its tools; with several servers
    // a tool is offered as `server__tool`, so names never collide.
    let several = servers.len() > 1;
    let mut routes: BTreeMap<String, (Client, String)> = BTreeMap::new();
    let mut definitions = Vec::new();
    for (name, server) in servers {
        let builder = Client::builder().name("mcp-runtime-host", env!("CARGO_PKG_VERSION")).stderr(Stderr::Null);
        let client = match server {
            Server::Command { program, args, env } => {
                env.into_iter().fold(builder, |b, (key, value)| b.env(key, value)).command(program, args).await
            }
            Server::Url(url) => builder.http(&url).await,
        }
        .map_err(|e| format!("{name}: {e}"))?;
        for tool in client.list_tools().await.map_err(|e| format!("{name}: {e}"))? {
            let offered = if several { format!("{name}__{}", tool.name) } else { tool.name.clone() };
            let mut definition = convert(Provider::OpenAi, &tool);
            definition["function"]["name"] = json!(offered);
            definitions.push(definition);
            routes.insert(offered, (client.clone(), tool.name));
        }
    }

    let http = reqwest::Client::new();
    let mut messages = vec![json!({ "role": "user", "content": prompt })];
    for _ in 0..MAX_TURNS {
        let request = json!({ "model": model, "messages": messages, "tools": definitions });
        let response = http
            .post(format!("{}/chat/completions", base.trim_end_matches('/')))
            .bearer_auth(&key)
            .json(&request)
            .send()
            .await
            .map_err(|e| format!("the model API: {e}"))?;
        let status = response.status();
        let body: Value = response.json().await.map_err(|e| format!("the model API's answer: {e}"))?;
        if !status.is_success() {
            return Err(format!("the model API answered {status}: {body}"));
        }
        let message = body["choices"][0]["message"].clone();
        let calls = message["tool_calls"].as_array().cloned().unwrap_or_default();
        if calls.is_empty() {
            return Ok(message["content"].as_str().unwrap_or_default().to_owned());
        }
        messages.push(message);
        // The model's calls run at once; their results go back in order.
        let results = join_all(calls.iter().map(|call| run_call(&routes, call))).await;
        for (call, content) in calls.iter().zip(results) {
            messages.push(json!({ "role": "tool", "tool_call_id": call["id"], "content": content }));
        }
    }
    Err(format!("the model asked for tools {MAX_TURNS} times without answering"))
}

/// Run one of the model's tool calls; what the model reads back, errors
/// included (a model can recover from a failed call).
async fn run_call(routes: &BTreeMap<String, (Client, String)>, call: &Value) -> String {
    let name = call["function"]["name"].as_str().unwrap_or_default();
    let Some((client, tool)) = routes.get(name) else {
        return format!("error: there is no tool named {name:?}");
    };
    let arguments: Value = match serde_json::from_str(call["function"]["arguments"].as_str().unwrap_or("{}")) {
        Ok(arguments) => arguments,
        Err(e) => return format!("error: the arguments are not JSON: {e}"),
    };
    match client.call(tool, arguments).await {
        Ok(result) => text_of(&result),
        Err(e) => format!("error: {e}"),
    }
}

/// A result as text for the model: its text blocks, or its structured
/// content, marked when the tool failed.
fn text_of(result: &CallToolResult) -> String {
    let mut text: Vec<String> = result
        .content
        .iter()
        .map(|c| match c {
            Content::Text(t) => t.text.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        })
        .collect();
    if text.is_empty()
        && let Some(structured) = &result.structured_content
    {
        text.push(structured.to_string());
    }
    let text = text.join("\n");
    if result.is_error == Some(true) { format!("error: {text}") } else { text }
}

fn arguments() -> Result<(Vec<(String, Server)>, String), String> {
    let usage = "usage: host [--server CMD|URL]... [--config FILE] PROMPT";
    let mut servers = Vec::new();
    let mut prompt = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--server" => {
                let server = args.next().ok_or(usage)?;
                let name = format!("s{}", servers.len() + 1);
                servers.push((name, parse_server(&server)?));
            }
            "--config" => servers.extend(config(&args.next().ok_or(usage)?)?),
            _ if prompt.is_none() => prompt = Some(arg),
            _ => return Err(usage.into()),
        }
    }
    if servers.is_empty() {
        return Err(format!("no servers: {usage}"));
    }
    Ok((servers, prompt.ok_or(usage)?))
}

fn parse_server(text: &str) -> Result<Server, String> {
    if text.starts_with("http://") || text.starts_with("https://") {
        return Ok(Server::Url(text.to_owned()));
    }
    let mut words = text.split_whitespace().map(str::to_owned);
    let program = words.next().ok_or("an empty --server")?;
    Ok(Server::Command { program, args: words.collect(), env: Vec::new() })
}

/// The servers of a config file in the `mcpServers` shape.
fn config(path: &str) -> Result<Vec<(String, Server)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let config: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let entries = config["mcpServers"].as_object().ok_or_else(|| format!("{path}: no \"mcpServers\" object"))?;
    entries
        .iter()
        .map(|(name, entry)| {
            let server = if let Some(url) = entry["url"].as_str() {
                Server::Url(url.to_owned())
            } else if let Some(program) = entry["command"].as_str() {
                let args = entry["args"].as_array().into_iter().flatten().filter_map(Value::as_str);
                let env = entry["env"].as_object().into_iter().flatten();
                let env = env.filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned()))).collect();
                Server::Command { program: program.to_owned(), args: args.map(str::to_owned).collect(), env }
            } else {
                return Err(format!("{path}: server {name:?} has neither \"command\" nor \"url\""));
            };
            Ok((name.clone(), server))
        })
        .collect()
}
