//! The Streamable HTTP benchmark: each peer serves HTTP on a port of its
//! own, and 1, 16 or 64 clients (each on its own keep-alive connection,
//! TCP_NODELAY on, one call at a time) call `calculator` over and over:
//!
//! - **session**: the handshake era (2025-11-25): `initialize`, the
//!   `Mcp-Session-Id` it gives, `notifications/initialized`, then calls in
//!   that session;
//! - **stateless**: 2026-07-28: no handshake; each call carries its version
//!   and capabilities in `params._meta` and mirrors its method and tool name
//!   in headers.
//!
//! Answers may come as JSON or as an SSE stream; either is parsed, and
//! every answer's text is checked.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp_core::http as mcp_http;
use mcp_core::{ProtocolVersion, envelope, methods};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

/// An error a client task can hand back.
pub(crate) type SendError = Box<dyn std::error::Error + Send + Sync>;

/// A peer over HTTP: its name, its package (and binary), the arguments that
/// serve sessions, and those that serve stateless calls (`None`: it cannot).
pub(crate) struct HttpPeer {
    pub(crate) name: &'static str,
    pub(crate) package: &'static str,
    session: &'static str,
    stateless: Option<&'static str>,
}

/// The HTTP peers. rmcp serves stateless calls in its stateless
/// configuration (no sessions, JSON answers); the others serve both eras
/// from one configuration.
pub(crate) const HTTP_PEERS: [HttpPeer; 4] = [
    HttpPeer { name: "floor", package: "bench-raw", session: "--http", stateless: Some("--http") },
    HttpPeer { name: "ours", package: "bench-ours", session: "--http", stateless: Some("--http") },
    HttpPeer { name: "rmcp", package: "bench-rmcp-peer", session: "--http", stateless: Some("--http-stateless") },
    HttpPeer { name: "flymcprust", package: "bench-flymcprust-peer", session: "--http", stateless: Some("--http") },
];

impl HttpPeer {
    /// The arguments that serve `mode` (`None`: it cannot).
    pub(crate) fn args(&self, mode: Mode) -> Option<&'static str> {
        match mode {
            Mode::Session => Some(self.session),
            Mode::Stateless => self.stateless,
        }
    }
}

/// The two eras measured.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Mode {
    Session,
    Stateless,
}

impl Mode {
    pub(crate) const ALL: [Mode; 2] = [Mode::Session, Mode::Stateless];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Session => "session",
            Mode::Stateless => "stateless",
        }
    }
}

/// Concurrent clients, one measurement each.
pub(crate) const CLIENTS: [usize; 3] = [1, 16, 64];

/// A p50 above this at one client is the signature of Nagle's algorithm
/// meeting delayed ACKs (about 40 ms per call on Linux).
pub(crate) const NAGLE_SIGNATURE_MS: f64 = 20.0;

/// The warning line for a p50 (µs) at one client that shows the signature.
pub(crate) fn nagle_warning(peer: &str, mode: Mode, p50_us: f64) -> Option<String> {
    (p50_us > NAGLE_SIGNATURE_MS * 1e3).then(|| {
        format!(
            "warning: {peer} ({}): p50 at 1 client is {:.1} ms, above {NAGLE_SIGNATURE_MS} ms: the signature of \
             Nagle's algorithm meeting delayed ACKs (a response written in pieces without TCP_NODELAY)",
            mode.name(),
            p50_us / 1e3
        )
    })
}

/// How long each client count is driven.
#[derive(Clone, Copy)]
pub(crate) enum Budget {
    /// For this long after the warm-up.
    Seconds(f64),
    /// This many calls per client, whatever the client count (the smoke
    /// round: a few hundred calls per peer, never judged on speed).
    Calls([usize; 3]),
}

#[derive(Clone, Copy)]
pub(crate) struct HttpPlan {
    pub(crate) rounds: usize,
    pub(crate) budget: Budget,
    /// Checked calls each client makes before the clock starts.
    pub(crate) warmup: usize,
}

pub(crate) const HTTP_FULL: HttpPlan = HttpPlan { rounds: 3, budget: Budget::Seconds(2.0), warmup: 5 };
pub(crate) const HTTP_SMOKE: HttpPlan = HttpPlan { rounds: 1, budget: Budget::Calls([40, 5, 2]), warmup: 1 };

/// One client count's figures: calls/s, p50 and p99 in µs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Figures {
    pub(crate) rate: f64,
    pub(crate) p50_us: f64,
    pub(crate) p99_us: f64,
}

/// What one server run gave: figures per client count, and the server's
/// peak resident set afterwards.
pub(crate) struct ModeRun {
    pub(crate) figures: Vec<Figures>,
    pub(crate) peak_rss_mib: f64,
}

/// Spawn `peer` in `mode`, drive it with each client count, and stop it.
/// `None` when the peer does not serve this mode.
pub(crate) async fn measure(
    peer: &HttpPeer,
    binary: &Path,
    mode: Mode,
    plan: HttpPlan,
) -> Result<Option<ModeRun>, SendError> {
    let Some(args) = peer.args(mode) else { return Ok(None) };
    let (mut child, url) = spawn(binary, args).await?;
    let pid = child.id().ok_or("the server already exited")?;
    let mut figures = Vec::new();
    for (at, clients) in CLIENTS.into_iter().enumerate() {
        let budget = match plan.budget {
            Budget::Seconds(s) => Run::For(Duration::from_secs_f64(s)),
            Budget::Calls(calls) => Run::Calls(calls[at]),
        };
        figures.push(drive(&url, mode, clients, plan.warmup, budget).await?);
    }
    let peak_rss_mib = super::memory_mib(pid, "VmHWM").map_err(|e| e.to_string())?;
    child.kill().await?;
    Ok(Some(ModeRun { figures, peak_rss_mib }))
}

/// Start a server with `args 127.0.0.1:0` and read its URL from stderr.
pub(crate) async fn spawn(binary: &Path, args: &str) -> Result<(Child, String), SendError> {
    let mut child = Command::new(binary)
        .args([args, "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().ok_or("no stderr")?).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let line = stderr.next_line().await?.ok_or("the server exited before listening")?;
            if let Some(at) = line.find("http://") {
                break Ok::<_, SendError>(line[at..].split_whitespace().next().unwrap_or_default().to_owned());
            }
        }
    })
    .await
    .map_err(|_| "the server did not listen within 30 s")??;
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });
    Ok((child, url))
}

enum Run {
    For(Duration),
    Calls(usize),
}

/// `clients` clients at once, each on its own connection, one call at a time.
async fn drive(url: &str, mode: Mode, clients: usize, warmup: usize, run: Run) -> Result<Figures, SendError> {
    let mut connected = Vec::with_capacity(clients);
    for n in 0..clients {
        let mut client = Client::connect(url, mode, n).await?;
        for _ in 0..warmup {
            client.call().await?;
        }
        connected.push(client);
    }
    let started = Instant::now();
    let deadline = match run {
        Run::For(duration) => Some(started + duration),
        Run::Calls(_) => None,
    };
    let calls = match run {
        Run::For(_) => usize::MAX,
        Run::Calls(calls) => calls,
    };
    let mut tasks = Vec::with_capacity(clients);
    for mut client in connected {
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while latencies.len() < calls && deadline.is_none_or(|d| Instant::now() < d) {
                let t = Instant::now();
                client.call().await?;
                latencies.push(t.elapsed().as_secs_f64() * 1e6);
            }
            Ok::<_, SendError>(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    Ok(Figures {
        rate: latencies.len() as f64 / elapsed,
        p50_us: super::percentile(&latencies, 0.50),
        p99_us: super::percentile(&latencies, 0.99),
    })
}

/// One client: one keep-alive HTTP/1.1 connection, one request at a time.
pub(crate) struct Client {
    sender: SendRequest<Full<Bytes>>,
    authority: String,
    path: String,
    mode: Mode,
    /// The session's id and negotiated version, in the session mode.
    session: Option<(String, String)>,
    next_id: i64,
    /// Where this client's numbers start, so no two clients send the same
    /// call.
    base: i64,
}

impl Client {
    /// Connect, and open a session in the session era.
    pub(crate) async fn connect(url: &str, mode: Mode, n: usize) -> Result<Client, SendError> {
        let rest = url.strip_prefix("http://").ok_or("not an http:// URL")?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let stream = tokio::net::TcpStream::connect(authority).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        let path = if path.is_empty() { "/".to_owned() } else { path.to_owned() };
        let mut client = Client {
            sender,
            authority: authority.to_owned(),
            path,
            mode,
            session: None,
            next_id: 0,
            base: n as i64 * 1_000_000_000,
        };
        if mode == Mode::Session {
            client.open_session().await?;
        }
        Ok(client)
    }

    /// The session's id and negotiated version, in the session era.
    pub(crate) fn session(&self) -> Option<(&str, &str)> {
        self.session.as_ref().map(|(id, version)| (id.as_str(), version.as_str()))
    }

    /// `initialize`, then `notifications/initialized` in the new session.
    async fn open_session(&mut self) -> Result<(), SendError> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": methods::INITIALIZE, "params": {
            "protocolVersion": ProtocolVersion::LATEST_HANDSHAKE.as_str(), "capabilities": {},
            "clientInfo": {"name": "mcp-bench", "version": "1"}}});
        let (status, headers, messages) = self.post(&init, &[]).await?;
        if status != 200 {
            return Err(format!("initialize: HTTP {status}").into());
        }
        let id = headers
            .get(mcp_http::SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .ok_or("initialize gave no Mcp-Session-Id")?
            .to_owned();
        let answer = answer_to(messages, 0)?;
        let version = answer["protocolVersion"].as_str().ok_or("initialize gave no protocolVersion")?.to_owned();
        self.session = Some((id, version));
        let initialized = json!({"jsonrpc": "2.0", "method": methods::INITIALIZED});
        let (status, _, _) = self.post(&initialized, &[]).await?;
        if status != 202 {
            return Err(format!("notifications/initialized: HTTP {status}, not 202").into());
        }
        Ok(())
    }

    /// One checked `calculator` call.
    pub(crate) async fn call(&mut self) -> Result<(), SendError> {
        self.next_id += 1;
        let id = self.next_id;
        let a = self.base + id;
        let mut params = json!({"name": "calculator", "arguments": {"operation": "add", "a": a, "b": 1}});
        let mirrored: &[(&str, &str)] = match self.mode {
            Mode::Session => &[],
            Mode::Stateless => {
                params["_meta"] = json!({envelope::PROTOCOL_VERSION: ProtocolVersion::LATEST.as_str(),
                    envelope::CLIENT_CAPABILITIES: {}});
                &[
                    (mcp_http::PROTOCOL_VERSION, ProtocolVersion::LATEST.as_str()),
                    (mcp_http::MCP_METHOD, methods::TOOLS_CALL),
                    (mcp_http::MCP_NAME, "calculator"),
                ]
            }
        };
        let request = json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params});
        let (status, _, messages) = self.post(&request, mirrored).await?;
        if status != 200 {
            return Err(format!("tools/call: HTTP {status}").into());
        }
        let result = answer_to(messages, id)?;
        let text = result["content"][0]["text"].as_str().ok_or_else(|| format!("no text in {result}"))?;
        let want = format!("result: {}", a + 1);
        if text != want {
            return Err(format!("expected {want:?}, got {text:?}").into());
        }
        Ok(())
    }

    /// POST one message; the status, the headers, and the JSON-RPC messages
    /// of the answer (from a JSON body or an SSE stream).
    async fn post(
        &mut self,
        message: &Value,
        extra: &[(&str, &str)],
    ) -> Result<(hyper::StatusCode, hyper::HeaderMap, Vec<Value>), SendError> {
        let mut request = hyper::Request::post(&self.path)
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some((id, version)) = &self.session {
            request = request.header(mcp_http::SESSION_ID, id).header(mcp_http::PROTOCOL_VERSION, version);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(Bytes::from(serde_json::to_vec(message)?)))?;
        self.sender.ready().await?;
        let response = tokio::time::timeout(Duration::from_secs(60), async {
            let response = self.sender.send_request(request).await?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await?.to_bytes();
            Ok::<_, SendError>((parts, body))
        })
        .await
        .map_err(|_| "no answer within 60 s")??;
        let (parts, body) = response;
        let messages = answer_messages(&parts.headers, &body)?;
        Ok((parts.status, parts.headers, messages))
    }
}

/// The JSON-RPC messages of an answer's body: none, one JSON message, or
/// an SSE stream's, as its `Content-Type` says.
pub(crate) fn answer_messages(headers: &hyper::HeaderMap, body: &[u8]) -> Result<Vec<Value>, SendError> {
    let kind = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    Ok(if body.is_empty() {
        Vec::new()
    } else if kind.starts_with("text/event-stream") {
        sse_messages(body)?
    } else {
        vec![serde_json::from_slice(body)?]
    })
}

/// The JSON-RPC messages in an SSE body: each event's data lines, joined;
/// events without data (priming events, comments) are skipped.
fn sse_messages(body: &[u8]) -> Result<Vec<Value>, SendError> {
    let text = std::str::from_utf8(body)?;
    let mut messages = Vec::new();
    let mut data = String::new();
    for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() {
            if !data.trim().is_empty() {
                messages.push(serde_json::from_str(&data)?);
            }
            data.clear();
        } else if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    if !data.trim().is_empty() {
        messages.push(serde_json::from_str(&data)?);
    }
    Ok(messages)
}

/// The result of the answer to request `id` among `messages`, which must
/// be neither an error nor a tool error.
fn answer_to(messages: Vec<Value>, id: i64) -> Result<Value, SendError> {
    let message = messages
        .into_iter()
        .find(|m| m.get("id") == Some(&json!(id)))
        .ok_or_else(|| format!("no answer to request {id}"))?;
    if let Some(error) = message.get("error") {
        return Err(format!("error response: {error}").into());
    }
    let result = message.get("result").cloned().ok_or("a response without a result")?;
    if result.get("isError") == Some(&json!(true)) {
        return Err(format!("tool error: {result}").into());
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_bodies_give_their_messages() {
        let body = b"data: \nid: 0\nretry: 3000\n\ndata: {\"id\":1}\r\nid: 1/0\r\n\r\n: comment\n\n";
        let messages = sse_messages(body).unwrap();
        assert_eq!(messages, vec![json!({"id": 1})]);
        assert_eq!(sse_messages(b"data:{\"a\":\ndata: 2}").unwrap(), vec![json!({"a": 2})]);
    }

    #[test]
    fn a_40_ms_p50_at_one_client_is_flagged() {
        assert!(nagle_warning("x", Mode::Session, 44_000.0).is_some_and(|w| w.starts_with("warning: x (session)")));
        assert!(nagle_warning("x", Mode::Stateless, 150.0).is_none());
    }

    #[test]
    fn answers_are_checked() {
        let ok = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}});
        assert!(answer_to(vec![json!({"method": "x"}), ok], 3).is_ok());
        assert!(answer_to(vec![json!({"id": 3, "error": {"code": 1}})], 3).is_err());
        assert!(answer_to(vec![json!({"id": 3, "result": {"isError": true}})], 3).is_err());
        assert!(answer_to(vec![], 3).is_err());
    }
}
