//! The soak: a long stream of mixed traffic over stdio (valid calls,
//! lists, garbage lines, calls cancelled as soon as sent, oversized lines),
//! checking that every request is answered exactly once, that nothing the
//! protocol leaves unanswered is answered, and that memory stays flat.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use super::{Error, Peer};
use mcp_core::http as mcp_http;
use mcp_core::{ProtocolVersion, envelope, methods};

/// Requests in flight at once.
const WINDOW: usize = 256;
/// One line in this many is oversized (past the server's 4 MiB limit).
const OVERSIZED_EVERY: usize = 50_000;

/// What a soak saw.
pub(crate) struct Report {
    messages: usize,
    seconds: f64,
    answered: usize,
    lost: usize,
    duplicated: usize,
    parse_errors: usize,
    oversized_refused: usize,
    cancelled: usize,
    answered_despite_cancel: usize,
    rss_mib: [f64; 3],
}

impl Report {
    pub(crate) fn print(&self) {
        println!(
            "\n## Soak: {} messages over stdio in {:.1} s ({:.0}/s)\n",
            self.messages,
            self.seconds,
            self.messages as f64 / self.seconds
        );
        println!("| measure | value |\n|---|---|");
        println!("| requests answered | {} |", self.answered);
        println!("| answers lost | {} |", self.lost);
        println!("| answers duplicated | {} |", self.duplicated);
        println!("| garbage lines answered with -32700 | {} |", self.parse_errors);
        println!("| oversized lines refused | {} |", self.oversized_refused);
        println!(
            "| calls cancelled at once (answered anyway: {}) | {} |",
            self.answered_despite_cancel, self.cancelled
        );
        println!(
            "| RSS at start / middle / end | {:.1} / {:.1} / {:.1} MiB |",
            self.rss_mib[0], self.rss_mib[1], self.rss_mib[2]
        );
    }

    /// Lost or duplicated answers, or memory that grew, are failures.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.lost > 0 || self.duplicated > 0 {
            return Err(format!("soak: {} answers lost, {} duplicated", self.lost, self.duplicated).into());
        }
        Ok(())
    }
}

fn rss_mib(peer: &Peer) -> Result<f64, Error> {
    peer.memory_mib("VmRSS")
}

/// Drive `total` messages through the server at `binary`.
pub(crate) async fn soak(binary: &Path, total: usize) -> Result<Report, Error> {
    let mut peer = Peer::spawn(binary).await?;
    let started = Instant::now();
    let mut rss = [rss_mib(&peer)?, 0.0, 0.0];
    let mut pending: HashSet<i64> = HashSet::new();
    let mut cancelled: HashSet<i64> = HashSet::new();
    let mut seen: HashSet<i64> = HashSet::new();
    let mut report = Report {
        messages: total,
        seconds: 0.0,
        answered: 0,
        lost: 0,
        duplicated: 0,
        parse_errors: 0,
        oversized_refused: 0,
        cancelled: 0,
        answered_despite_cancel: 0,
        rss_mib: [0.0; 3],
    };
    let oversized =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\",\"pad\":\"{}\"}}\n", "x".repeat(5 << 20));
    for i in 0..total {
        if i == total / 2 {
            rss[1] = rss_mib(&peer)?;
        }
        match i % 10 {
            _ if i % OVERSIZED_EVERY == OVERSIZED_EVERY - 1 => peer.stdin.write_all(oversized.as_bytes()).await?,
            0..=5 => {
                let id = peer.id();
                let params = json!({"name": "calculator", "arguments": {"operation": "add", "a": id, "b": 1}});
                peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params}))
                    .await?;
                pending.insert(id);
            }
            6 => {
                let id = peer.id();
                peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_LIST})).await?;
                pending.insert(id);
            }
            7 => peer.stdin.write_all(b"{\"jsonrpc\": \"2.0\", \"id\": oops\n").await?,
            8 => {
                let id = peer.id();
                let params = json!({"name": "sleep", "arguments": {"ms": 50}});
                peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params}))
                    .await?;
                let cancel = json!({"requestId": id, "reason": "soak"});
                peer.send(&json!({"jsonrpc": "2.0", "method": methods::CANCELLED, "params": cancel})).await?;
                cancelled.insert(id);
                report.cancelled += 1;
            }
            _ => peer.send(&json!({"jsonrpc": "2.0", "method": methods::PROGRESS, "params": [1]})).await?,
        }
        while pending.len() >= WINDOW {
            peer.stdin.flush().await?;
            take(&mut peer, &mut pending, &cancelled, &mut seen, &mut report).await?;
        }
    }
    peer.stdin.flush().await?;
    while !pending.is_empty() {
        match tokio::time::timeout(
            std::time::Duration::from_secs(30),
            take(&mut peer, &mut pending, &cancelled, &mut seen, &mut report),
        )
        .await
        {
            Ok(result) => result?,
            Err(_) => break,
        }
    }
    report.lost = pending.len();
    // A last request flushes what came after the last counted answer (a
    // garbage line's error), so every line is accounted for.
    let last = peer.id();
    peer.send(&json!({"jsonrpc": "2.0", "id": last, "method": methods::PING})).await?;
    peer.stdin.flush().await?;
    pending.insert(last);
    while pending.contains(&last) {
        take(&mut peer, &mut pending, &cancelled, &mut seen, &mut report).await?;
    }
    report.answered -= 1;
    rss[2] = rss_mib(&peer)?;
    report.rss_mib = rss;
    report.seconds = started.elapsed().as_secs_f64();
    peer.finish().await?;
    Ok(report)
}

/// Read one message and account for it.
async fn take(
    peer: &mut Peer,
    pending: &mut HashSet<i64>,
    cancelled: &HashSet<i64>,
    seen: &mut HashSet<i64>,
    report: &mut Report,
) -> Result<(), Error> {
    let message: Value = peer.recv().await?;
    match message["id"].as_i64() {
        None if message["error"]["code"] == -32700 => report.parse_errors += 1,
        None | Some(0) if message["error"]["code"] == -32600 => report.oversized_refused += 1,
        None => return Err(format!("an answer to nothing: {message}").into()),
        Some(id) if !seen.insert(id) => report.duplicated += 1,
        Some(id) if cancelled.contains(&id) => report.answered_despite_cancel += 1,
        Some(id) => {
            if !pending.remove(&id) {
                return Err(format!("an answer to an id never sent: {message}").into());
            }
            if message.get("error").is_some() {
                return Err(format!("a request failed: {message}").into());
            }
            report.answered += 1;
        }
    }
    Ok(())
}

/// What the HTTP soak saw.
pub(crate) struct HttpReport {
    messages: usize,
    seconds: f64,
    answered: usize,
    lost: usize,
    refused_as_expected: usize,
    cancelled: usize,
    rss_mib: [f64; 3],
}

impl HttpReport {
    pub(crate) fn print(&self) {
        let rate = self.messages as f64 / self.seconds;
        println!("\n## Soak: {} requests over Streamable HTTP in {:.1} s ({rate:.0}/s)\n", self.messages, self.seconds);
        println!("| measure | value |\n|---|---|");
        println!("| calls and lists answered correctly | {} |", self.answered);
        println!("| answers lost or wrong | {} |", self.lost);
        println!("| garbage and oversized bodies refused with 400/413 | {} |", self.refused_as_expected);
        println!("| calls abandoned by hanging up | {} |", self.cancelled);
        let [start, middle, end] = self.rss_mib;
        println!("| RSS at start / middle / end | {start:.1} / {middle:.1} / {end:.1} MiB |");
    }

    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.lost > 0 {
            return Err(format!("HTTP soak: {} answers lost or wrong", self.lost).into());
        }
        Ok(())
    }
}

/// Concurrent HTTP clients.
const CLIENTS: usize = 32;

/// `total` requests over Streamable HTTP from 32 clients at once: stateless
/// (2026-07-28) calls and lists, session calls, garbage and oversized
/// bodies, and calls abandoned mid-flight.
pub(crate) async fn soak_http(binary: &Path, total: usize) -> Result<HttpReport, Error> {
    let mut child = tokio::process::Command::new(binary)
        .args(["--http", "127.0.0.1:0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().ok_or("no stderr")?).lines();
    let url = loop {
        let line = stderr.next_line().await?.ok_or("the server exited before listening")?;
        if let Some(at) = line.find("http://") {
            break line[at..].split_whitespace().next().unwrap_or_default().to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });
    let pid = child.id().ok_or("the server already exited")?;
    let rss = move || super::memory_mib(pid, "VmRSS").map_err(|e| SendError::from(e.to_string()));
    let http = reqwest::Client::builder().pool_max_idle_per_host(CLIENTS).build()?;
    let started = Instant::now();
    let start_rss = rss().map_err(|e| e.to_string())?;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let middle = std::sync::Arc::new(std::sync::Mutex::new(0.0));
    let mut workers = Vec::new();
    for worker in 0..CLIENTS {
        let (http, url, done, middle, rss) = (http.clone(), url.clone(), done.clone(), middle.clone(), rss);
        let share = total / CLIENTS + usize::from(worker < total % CLIENTS);
        workers.push(tokio::spawn(async move { http_worker(&http, &url, share, &done, total, &middle, rss).await }));
    }
    let mut report = HttpReport {
        messages: total,
        seconds: 0.0,
        answered: 0,
        lost: 0,
        refused_as_expected: 0,
        cancelled: 0,
        rss_mib: [start_rss, 0.0, 0.0],
    };
    for worker in workers {
        let (answered, lost, refused, cancelled) =
            worker.await.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
        report.answered += answered;
        report.lost += lost;
        report.refused_as_expected += refused;
        report.cancelled += cancelled;
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.rss_mib[1] = *middle.lock().unwrap_or_else(|e| e.into_inner());
    report.rss_mib[2] = rss().map_err(|e| e.to_string())?;
    child.kill().await?;
    Ok(report)
}

type Tally = (usize, usize, usize, usize);

/// An error a worker task can hand back.
type SendError = Box<dyn std::error::Error + Send + Sync>;

async fn http_worker(
    http: &reqwest::Client,
    url: &str,
    share: usize,
    done: &std::sync::atomic::AtomicUsize,
    total: usize,
    middle: &std::sync::Mutex<f64>,
    rss: impl Fn() -> Result<f64, SendError>,
) -> Result<Tally, SendError> {
    use std::sync::atomic::Ordering;
    let (mut answered, mut lost, mut refused, mut cancelled) = (0, 0, 0, 0);
    let envelope = json!({envelope::PROTOCOL_VERSION: ProtocolVersion::LATEST.as_str(),
        envelope::CLIENT_CAPABILITIES: {}});
    let post = |body: Vec<u8>, method: &str, name: Option<&str>, session: Option<&str>| {
        let mut request = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        // A stateless request mirrors its method (and name) in headers;
        // `initialize` and session requests do not.
        if session.is_none() && method != methods::INITIALIZE {
            request = request
                .header(mcp_http::MCP_METHOD, method)
                .header(mcp_http::PROTOCOL_VERSION, ProtocolVersion::LATEST.as_str());
            if let Some(name) = name {
                request = request.header(mcp_http::MCP_NAME, name);
            }
        }
        if let Some(session) = session {
            request = request
                .header(mcp_http::SESSION_ID, session)
                .header(mcp_http::PROTOCOL_VERSION, ProtocolVersion::LATEST_HANDSHAKE.as_str());
        }
        request
    };
    // A session of this client's own, for the handshake half.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": methods::INITIALIZE, "params": {"protocolVersion": ProtocolVersion::LATEST_HANDSHAKE.as_str(),
        "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}});
    let opened = post(serde_json::to_vec(&init)?, methods::INITIALIZE, None, None).send().await?;
    let session = opened.headers().get(mcp_http::SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let session = session.ok_or("initialize gave no session")?;
    let initialized = json!({"jsonrpc": "2.0", "method": methods::INITIALIZED});
    post(serde_json::to_vec(&initialized)?, "", None, Some(&session)).send().await?;
    let oversized = vec![b' '; 5 << 20];
    for i in 0..share {
        let id = i as i64 + 1;
        let add = |meta: Option<&Value>| {
            let mut params = json!({"name": "calculator", "arguments": {"operation": "add", "a": id, "b": 1}});
            if let Some(meta) = meta {
                params["_meta"] = meta.clone();
            }
            json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params})
        };
        match i % 10 {
            _ if i % 25_000 == 24_999 => {
                // Refused with 413, or cut off while still sending it (the
                // server reads no more of a body it has refused).
                match post(oversized.clone(), methods::TOOLS_CALL, None, None).send().await {
                    Ok(answer) if answer.status() != 413 => lost += 1,
                    _ => refused += 1,
                }
            }
            0..=3 => {
                let body = serde_json::to_vec(&add(Some(&envelope)))?;
                let answer = post(body, methods::TOOLS_CALL, Some("calculator"), None).send().await?.text().await?;
                if answer.contains(&format!("result: {}", id + 1)) { answered += 1 } else { lost += 1 }
            }
            4..=6 => {
                let body = serde_json::to_vec(&add(None))?;
                let answer = post(body, methods::TOOLS_CALL, None, Some(&session)).send().await?.text().await?;
                if answer.contains(&format!("result: {}", id + 1)) { answered += 1 } else { lost += 1 }
            }
            7 => {
                let list =
                    json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_LIST, "params": {"_meta": envelope}});
                let answer =
                    post(serde_json::to_vec(&list)?, methods::TOOLS_LIST, None, None).send().await?.text().await?;
                if answer.contains("\"calculator\"") { answered += 1 } else { lost += 1 }
            }
            8 => {
                let status =
                    post(b"{\"jsonrpc\": oops".to_vec(), methods::TOOLS_CALL, None, None).send().await?.status();
                if status == 400 { refused += 1 } else { lost += 1 }
            }
            _ => {
                // A slow call abandoned after 5 ms: the server stops it.
                let sleep = json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL,
                    "params": {"name": "sleep", "arguments": {"ms": 200}, "_meta": envelope}});
                let call = post(serde_json::to_vec(&sleep)?, methods::TOOLS_CALL, Some("sleep"), None).send();
                let _ = tokio::time::timeout(std::time::Duration::from_millis(5), call).await;
                cancelled += 1;
            }
        }
        if done.fetch_add(1, Ordering::Relaxed) + 1 == total / 2 {
            *middle.lock().unwrap_or_else(|e| e.into_inner()) = rss()?;
        }
    }
    Ok((answered, lost, refused, cancelled))
}
