//! What a server logs on stderr while clients come and go: at the default
//! level, start-up and incidents, never a line per session (a client that
//! opens a session per call would make thousands a second); the level set
//! in code with `Server::log_level`, and the environment over it.

use std::process::Stdio;

use crate::common::http::Client;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;

/// Run `session-server` over HTTP with `level` (or its default) and
/// `MCP_LOG` as given, open five sessions on it (so three end the oldest idle one to
/// make room: it holds two), then stop it: everything it wrote on stderr.
async fn stderr_after_five_sessions(level: Option<&str>, mcp_log: Option<&str>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_session-server"));
    command.arg("--http=127.0.0.1:0").args(level).env_remove("RUST_LOG").env_remove("MCP_LOG");
    if let Some(mcp_log) = mcp_log {
        command.env("MCP_LOG", mcp_log);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let url = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).await.unwrap() > 0, "the server exited:\n{seen}");
        seen.push_str(&line);
        if let Some((_, url)) = line.split_once("serving MCP over Streamable HTTP at ") {
            break url.trim().to_owned();
        }
    };
    for _ in 0..5 {
        Client::new(&url).initialize().await;
    }
    // What it logged for a session was written before its answer was sent.
    child.kill().await.unwrap();
    stderr.read_to_string(&mut seen).await.unwrap();
    seen
}

#[tokio::test]
async fn sessions_that_come_and_go_log_nothing_per_session_at_the_default_level() {
    let stderr = stderr_after_five_sessions(None, None).await;
    assert!(!stderr.contains("client connected"), "{stderr}");
    assert!(!stderr.contains("ending the least recently used idle HTTP session"), "{stderr}");
    // A full table is news once, with the setting that sizes it.
    assert_eq!(stderr.matches("the HTTP session table is full").count(), 1, "{stderr}");
    assert!(stderr.contains("HttpOptions::max_sessions"), "{stderr}");
}

#[tokio::test]
async fn the_level_set_in_code_applies_and_the_environment_wins_over_it() {
    let debug = stderr_after_five_sessions(Some("debug"), None).await;
    assert_eq!(debug.matches("client connected").count(), 5, "{debug}");
    assert_eq!(debug.matches("ending the least recently used idle HTTP session").count(), 3, "{debug}");

    let warn = stderr_after_five_sessions(Some("warn"), None).await;
    assert!(!warn.contains("the HTTP session table is full"), "an info line at warn:\n{warn}");

    let overridden = stderr_after_five_sessions(Some("warn"), Some("debug")).await;
    assert_eq!(overridden.matches("client connected").count(), 5, "MCP_LOG=debug wins:\n{overridden}");
}
