//! The soak: a long stream of mixed traffic over stdio (valid calls,
//! lists, garbage lines, calls cancelled as soon as sent, oversized lines),
//! checking that every request is answered exactly once, that nothing the
//! protocol leaves unanswered is answered, and that memory stays flat.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use super::{Error, Peer};

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
                peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).await?;
                pending.insert(id);
            }
            6 => {
                let id = peer.id();
                peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})).await?;
                pending.insert(id);
            }
            7 => peer.stdin.write_all(b"{\"jsonrpc\": \"2.0\", \"id\": oops\n").await?,
            8 => {
                let id = peer.id();
                let params = json!({"name": "sleep", "arguments": {"ms": 50}});
                peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).await?;
                let cancel = json!({"requestId": id, "reason": "soak"});
                peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})).await?;
                cancelled.insert(id);
                report.cancelled += 1;
            }
            _ => peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": [1]})).await?,
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
    peer.send(&json!({"jsonrpc": "2.0", "id": last, "method": "ping"})).await?;
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
