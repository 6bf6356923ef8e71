//! Streamable HTTP under wrk, a C HTTP load generator: for each peer and
//! era, a fresh server, then `wrk -t1 -c16` and `-c64` calling
//! `calculator` add. A Lua script gives every request a unique JSON-RPC
//! id (and `a` = that id), and checks every answer: HTTP 200, the answer
//! to that id, the text `result: <id + 1>`, no tool error. Its `done()`
//! prints one line the driver parses; any bad answer fails the run. Socket
//! errors (a server closing a connection wrk then reopens, a request
//! unanswered for wrk's 2 s timeout) lose no checked answer: they are
//! counted and printed under the table.
//!
//! In the session era, all of a run's connections share one session (wrk
//! cannot give each connection its own), opened by the driver.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_core::http as mcp_http;
use mcp_core::{ProtocolVersion, envelope, methods};
use serde_json::json;

use crate::http::{self, HttpPeer, Mode, SendError};

/// wrk connection counts, one run each.
pub(crate) const CONNECTIONS: [usize; 2] = [16, 64];

/// How much wrk does.
#[derive(Clone, Copy)]
pub(crate) struct WrkPlan {
    pub(crate) rounds: usize,
    /// How long each wrk run lasts (whole seconds: wrk takes no less).
    pub(crate) seconds: u64,
}

pub(crate) const WRK_FULL: WrkPlan = WrkPlan { rounds: 3, seconds: 2 };
pub(crate) const WRK_SMOKE: WrkPlan = WrkPlan { rounds: 1, seconds: 1 };

/// The wrk binary: found on `PATH`, or installed with apt-get when running
/// as root. `Err` says why the wrk rows are skipped.
pub(crate) fn find_or_install() -> Result<PathBuf, String> {
    if let Some(path) = on_path("wrk") {
        return Ok(path);
    }
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Uid:").map(|u| u.split_whitespace().next() == Some("0"))))
        .unwrap_or(false);
    if !root {
        return Err("wrk is not installed and this is not root (apt-get install wrk)".into());
    }
    eprintln!("wrk is not installed: apt-get install -y wrk");
    let apt = |args: &[&str]| {
        std::process::Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    // A fresh machine may have no package lists yet.
    let install = || apt(&["install", "-y", "-qq", "wrk"]);
    let installed = install() || (apt(&["update", "-qq"]) && install());
    if !installed {
        return Err("wrk is not installed and `apt-get install -y wrk` failed".into());
    }
    on_path("wrk").ok_or_else(|| "apt-get installed wrk, but it is not on PATH".into())
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// One wrk run: calls/s, p50 and p99 (µs), and wrk's socket errors.
pub(crate) struct Run {
    pub(crate) figures: http::Figures,
    pub(crate) socket_errors: u64,
}

/// Spawn `peer` in `mode` and run wrk at each connection count against it.
/// `None` when the peer does not serve this mode.
pub(crate) async fn measure(
    wrk: &Path,
    peer: &HttpPeer,
    binary: &Path,
    mode: Mode,
    plan: WrkPlan,
) -> Result<Option<Vec<Run>>, SendError> {
    let Some(args) = peer.args(mode) else { return Ok(None) };
    let (mut child, url) = http::spawn(binary, args).await?;
    let script = std::env::temp_dir().join(format!("mcp-bench-wrk-{}.lua", std::process::id()));
    let mut figures = Vec::new();
    for (at, connections) in CONNECTIONS.into_iter().enumerate() {
        // A checked call first (the server answers at all), and in the
        // session era the session wrk will use.
        let mut client = http::Client::connect(&url, mode, at).await?;
        client.call().await?;
        std::fs::write(&script, lua(mode, client.session()))?;
        figures.push(run(wrk, &script, &url, connections, plan.seconds).await?);
    }
    let _ = std::fs::remove_file(&script);
    child.kill().await?;
    Ok(Some(figures))
}

/// One wrk run; its figures.
async fn run(wrk: &Path, script: &Path, url: &str, connections: usize, seconds: u64) -> Result<Run, SendError> {
    // One wrk thread: with 2 cores, `-t2` would starve the server of the
    // other one.
    let output = tokio::time::timeout(
        Duration::from_secs(seconds + 30),
        tokio::process::Command::new(wrk)
            .args(["-t1", &format!("-c{connections}"), &format!("-d{seconds}s"), "-s"])
            .arg(script)
            .arg(url)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .map_err(|_| "wrk did not finish")??;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!("wrk failed: {stdout}{}", String::from_utf8_lossy(&output.stderr)).into());
    }
    parse(&stdout)
}

/// The figures from wrk's output: `Requests/sec:` from its summary, the
/// rest from the script's `mcp-bench:` line.
fn parse(stdout: &str) -> Result<Run, SendError> {
    let rate = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| format!("no Requests/sec in wrk's output: {stdout}"))?;
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("mcp-bench:"))
        .ok_or_else(|| format!("no mcp-bench line in wrk's output: {stdout}"))?;
    let field = |name: &str| -> Result<f64, SendError> {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no {name} in {line:?}").into())
    };
    let (good, bad) = (field("good")?, field("bad")?);
    if bad > 0.0 || good == 0.0 {
        return Err(format!("wrk: {good} good answers, {bad} wrong: {stdout}").into());
    }
    let figures = http::Figures { rate, p50_us: field("p50")?, p99_us: field("p99")? };
    Ok(Run { figures, socket_errors: field("socket")? as u64 })
}

/// The Lua script for `mode`, with the session's headers in the session
/// era.
fn lua(mode: Mode, session: Option<(&str, &str)>) -> String {
    let mut params = json!({"name": "calculator", "arguments": {"operation": "add", "a": "@ID@", "b": 1}});
    let mut headers = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
    ];
    match (mode, session) {
        (Mode::Session, Some((id, version))) => {
            headers.push((mcp_http::SESSION_ID.to_owned(), id.to_owned()));
            headers.push((mcp_http::PROTOCOL_VERSION.to_owned(), version.to_owned()));
        }
        _ => {
            params["_meta"] = json!({envelope::PROTOCOL_VERSION: ProtocolVersion::LATEST.as_str(),
                envelope::CLIENT_CAPABILITIES: {}});
            headers.push((mcp_http::PROTOCOL_VERSION.to_owned(), ProtocolVersion::LATEST.as_str().to_owned()));
            headers.push((mcp_http::MCP_METHOD.to_owned(), methods::TOOLS_CALL.to_owned()));
            headers.push((mcp_http::MCP_NAME.to_owned(), "calculator".to_owned()));
        }
    }
    let request = json!({"jsonrpc": "2.0", "id": "@ID@", "method": methods::TOOLS_CALL, "params": params});
    let template = request.to_string().replace("\"@ID@\"", "%d");
    let headers: String = headers.iter().map(|(k, v)| format!("wrk.headers[{k:?}] = {v:?}\n")).collect();
    format!(
        r#"wrk.method = "POST"
{headers}local template = [==[{template}]==]

-- Per wrk thread: the next id (the driver's own calls used small ones,
-- and a session refuses an id already in flight), and the answers seen.
next_id = 1000000
good = 0
bad = 0

function request()
  next_id = next_id + 1
  return wrk.format(nil, nil, nil, string.format(template, next_id, next_id))
end

-- The answer must be HTTP 200, to a request id, with the text
-- "result: <id + 1>" and no tool error (a JSON body or an SSE stream).
function response(status, headers, body)
  local id = tonumber(string.match(body or "", '"id"%s*:%s*(%d+)'))
  if status == 200 and id and not string.find(body, '"isError"%s*:%s*true')
      and string.find(body, '"text"%s*:%s*"result: ' .. string.format("%d", id + 1) .. '"') then
    good = good + 1
  else
    bad = bad + 1
  end
end

local threads = {{}}
function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local g, b = 0, 0
  for _, thread in ipairs(threads) do
    g = g + thread:get("good")
    b = b + thread:get("bad")
  end
  local e = summary.errors
  -- A status error (HTTP 4xx/5xx) is a bad answer already.
  io.write(string.format("mcp-bench: good=%d bad=%d socket=%d p50=%d p99=%d\n", g, b,
    e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_parsed_and_bad_answers_fail() {
        let ok = "  Requests/sec:  12345.67\nmcp-bench: good=100 bad=0 socket=3 p50=80 p99=300\n";
        let run = parse(ok).unwrap();
        let figures = run.figures;
        assert_eq!((figures.rate, figures.p50_us, figures.p99_us, run.socket_errors), (12345.67, 80.0, 300.0, 3));
        assert!(parse(&ok.replace("bad=0", "bad=1")).is_err());
        assert!(parse(&ok.replace("good=100", "good=0")).is_err());
        assert!(parse("Requests/sec: 1\n").is_err());
    }

    #[test]
    fn the_script_numbers_each_request() {
        let script = lua(Mode::Stateless, None);
        assert!(script.contains(r#""id":%d"#) && script.contains(r#""a":%d"#), "{script}");
        assert!(lua(Mode::Session, Some(("s1", "2025-11-25"))).contains(r#"= "s1""#));
    }
}
