//! stdio: the server as a child process, newline-delimited JSON-RPC on its
//! stdin and stdout, its stderr kept (the last lines, for error messages
//! and the log lines of an internal error) and shown too with `-v`.

use std::collections::VecDeque;
use std::path::Path;
use std::pin::Pin;
use std::process::Stdio as Piped;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::{Message, Notification, Outcome, Request};
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use super::answer_server_request;
use crate::failure::Failure;
use crate::output;

/// How many lines of the server's stderr a failure shows.
const TAIL_LINES: usize = 20;
/// How many lines of the server's stderr are kept, to find the lines of
/// an internal error in.
const KEPT_LINES: usize = 500;

type Reader = Lines<BufReader<Pin<Box<dyn AsyncRead + Send>>>>;
type Writer = Pin<Box<dyn AsyncWrite + Send>>;

/// One server on pipes.
pub struct Stdio {
    writer: Option<Writer>,
    reader: Reader,
    child: Option<Child>,
    stderr: Tail,
    /// The task that reads the server's stderr into `stderr`.
    stderr_reader: Option<JoinHandle<()>>,
}

/// The last lines the server wrote on stderr.
#[derive(Clone, Default)]
pub struct Tail(Arc<Mutex<VecDeque<String>>>);

impl Tail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == KEPT_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The last [`TAIL_LINES`] lines, for a failure.
    fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let skip = lines.len().saturating_sub(TAIL_LINES);
        lines.iter().skip(skip).map(String::as_str).collect::<Vec<_>>().join("\n")
    }

    /// Every line kept.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
    }
}

impl Stdio {
    /// Start `program` with piped stdin and stdout.
    pub fn spawn(program: &Path, args: &[String], verbose: bool) -> Result<Stdio, Failure> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                Failure::new(format!("cannot start `{}`: {e}", program.display()))
                    .hint("check the path, or build the server first (--example NAME / --bin NAME builds it)")
            })?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Failure::new("the server's pipes could not be opened"));
        };
        let tail = Tail::default();
        let kept = tail.clone();
        let reader = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if verbose {
                    eprintln!("{}", output::Style::stderr().dim(&format!("[server] {line}")));
                }
                kept.push(line);
            }
        });
        let mut stdio = Stdio::over(Box::pin(stdout), Box::pin(stdin));
        stdio.child = Some(child);
        stdio.stderr = tail;
        stdio.stderr_reader = Some(reader);
        Ok(stdio)
    }

    /// A connection over any pair of streams (a child's pipes, or a test's).
    fn over(reader: Pin<Box<dyn AsyncRead + Send>>, writer: Writer) -> Stdio {
        Stdio {
            writer: Some(writer),
            reader: BufReader::new(reader).lines(),
            child: None,
            stderr: Tail::default(),
            stderr_reader: None,
        }
    }

    /// The server's stderr, when this connection started the server.
    pub fn server_log(&self) -> Option<Tail> {
        self.child.is_some().then(|| self.stderr.clone())
    }

    /// Send `request` and read until its response, answering the server's
    /// own requests and skipping its notifications on the way.
    pub async fn request(&mut self, request: &Request) -> Result<Outcome, Failure> {
        self.send(request).await?;
        loop {
            let Some(line) = self.next_line().await? else {
                return Err(self.ended(&format!("answering `{}`", request.method)).await);
            };
            if line.trim().is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_str(&line) {
                Ok(value) => value,
                Err(_) => {
                    output::warn(&format!(
                        "the server wrote a line that is not JSON on stdout (stdout is for JSON-RPC only; logs belong on stderr): {}",
                        clip(&line)
                    ));
                    continue;
                }
            };
            if let Some(outcome) = null_id_error(&value) {
                return Ok(outcome);
            }
            match Message::from_value(value) {
                Ok(Message::Response(response)) if response.id.as_ref() == Some(&request.id) => {
                    return Ok(response.outcome);
                }
                Ok(Message::Request(asked)) => self.send(&answer_server_request(&asked)).await?,
                Ok(Message::Response(_) | Message::Notification(_)) => {}
                Err(invalid) => output::warn(&format!("the server sent an invalid message: {}", invalid.reason)),
            }
        }
    }

    /// Send a notification.
    pub async fn notify(&mut self, notification: &Notification) -> Result<(), Failure> {
        self.send(notification).await
    }

    async fn send(&mut self, message: &impl Serialize) -> Result<(), Failure> {
        let mut line =
            serde_json::to_vec(message).map_err(|e| Failure::new(format!("cannot encode a message: {e}")))?;
        line.push(b'\n');
        let Some(writer) = self.writer.as_mut() else {
            return Err(Failure::new("the connection to the server is closed"));
        };
        let written = async {
            writer.write_all(&line).await?;
            writer.flush().await
        };
        if written.await.is_err() {
            return Err(self.ended("reading its input").await);
        }
        Ok(())
    }

    async fn next_line(&mut self) -> Result<Option<String>, Failure> {
        self.reader.next_line().await.map_err(|e| Failure::new(format!("cannot read the server's output: {e}")))
    }

    /// The failure of a server that stopped while `doing` something: its
    /// exit status and the end of its stderr.
    async fn ended(&mut self, doing: &str) -> Failure {
        let status = match self.child.as_mut() {
            Some(child) => match tokio::time::timeout(Duration::from_secs(2), child.wait()).await {
                Ok(Ok(status)) => format!(" ({status})"),
                _ => String::new(),
            },
            None => String::new(),
        };
        // The stderr reader may still be draining the last lines.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let tail = self.stderr.text();
        let failure = Failure::new(format!("the server exited before {doing}{status}"));
        if tail.is_empty() {
            failure.hint("it wrote nothing on stderr; does it speak MCP over stdio?")
        } else {
            failure.detail(format!("its stderr ended with:\n{tail}"))
        }
    }

    /// Close the server's input and give it a moment to exit, as a client
    /// does at the end of a session; then stop it. Its stderr is read to
    /// the end (or for a moment more, should another process hold it).
    pub async fn close(mut self) {
        drop(self.writer.take());
        if let Some(mut child) = self.child.take()
            && tokio::time::timeout(Duration::from_secs(3), child.wait()).await.is_err()
        {
            let _ = child.kill().await;
        }
        if let Some(reader) = self.stderr_reader.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
        }
    }
}

/// An error response whose id is null (the server could not read our
/// request's id): the answer to the one request in flight.
fn null_id_error(value: &Value) -> Option<Outcome> {
    let object = value.as_object()?;
    if !object.get("id").is_some_and(Value::is_null) || object.contains_key("method") {
        return None;
    }
    let error = serde_json::from_value(object.get("error")?.clone()).ok()?;
    Some(Outcome::Error(error))
}

fn clip(line: &str) -> String {
    let mut clipped: String = line.chars().take(200).collect();
    if clipped.len() < line.len() {
        clipped.push('…');
    }
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::RequestId;
    use serde_json::json;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    /// A fake server that, before answering, pings the client, asks it to
    /// elicit, notifies and writes a stray line; the client must answer the
    /// ping, refuse the elicitation and still get its result.
    #[tokio::test]
    async fn server_requests_are_answered_and_notifications_skipped() {
        let (client_side, server_side) = tokio::io::duplex(64 * 1024);
        let (client_read, client_write) = tokio::io::split(client_side);
        let (server_read, mut server_write) = tokio::io::split(server_side);
        let server = tokio::spawn(async move {
            let mut lines = BufReader::new(server_read).lines();
            let request: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(request["method"], "tools/list");
            let say = |v: Value| format!("{v}\n");
            let script = [
                say(
                    json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}),
                ),
                "not json at all\n".to_owned(),
                say(json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"})),
                say(json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {}})),
            ];
            for line in script {
                server_write.write_all(line.as_bytes()).await.unwrap();
            }
            let pong: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "p1", "result": {}}));
            let refusal: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(refusal["id"], "e1");
            assert!(refusal["error"]["message"].as_str().unwrap().contains("not supported by cargo mcp"));
            let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": []}});
            server_write.write_all(say(answer).as_bytes()).await.unwrap();
        });
        let mut stdio = Stdio::over(Box::pin(client_read), Box::pin(client_write));
        let outcome = stdio.request(&Request::new(RequestId::from(7), "tools/list", None)).await.unwrap();
        assert_eq!(outcome, Outcome::Result(json!({"tools": []})));
        server.await.unwrap();
    }

    #[tokio::test]
    async fn a_server_that_ends_its_output_is_reported() {
        let (client_side, server_side) = tokio::io::duplex(1024);
        let (client_read, client_write) = tokio::io::split(client_side);
        drop(server_side);
        let mut stdio = Stdio::over(Box::pin(client_read), Box::pin(client_write));
        let failure = stdio.request(&Request::new(RequestId::from(1), "initialize", None)).await.unwrap_err();
        assert!(failure.message().contains("exited before"), "{}", failure.message());
    }
}
