//! What a proxy costs: our server called directly, and through
//! `bench-proxy` (a server that mounts it with no prefix), by our client
//! crate over stdio and over Streamable HTTP (the proxy speaks to its
//! upstream over stdio in both); and a calculator served by `bench-proxy`
//! itself against the same calculator mounted in its process
//! (`Server::mount` of a `Server`), over stdio. Sequential calls and calls
//! pipelined 64 at a time, every answer checked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures_util::{StreamExt, stream};
use mcp_runtime_client::protocol::{CallToolResult, ProtocolVersion};
use mcp_runtime_client::{Client, EraChoice};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::clients::ClientPlan;
use crate::{Error, percentile, summary};

/// (transport, direct or proxied); `in process` is stdio to `bench-proxy`,
/// which serves the calculator itself or mounts it in its process
/// (`BENCH_IN_PROCESS` in its environment says which).
const RUNS: [(&str, &str); 6] = [
    ("stdio", "direct"),
    ("stdio", "proxied"),
    ("HTTP", "direct"),
    ("HTTP", "proxied"),
    ("in process", "direct"),
    ("in process", "proxied"),
];
const METRICS: [(&str, &str); 3] =
    [("sequential call p50", "µs"), ("sequential calls/s", "calls/s"), ("pipelined calls/s (64 in flight)", "calls/s")];

/// Build `bench-proxy` by a cargo invocation of its own (its `proxy`
/// feature must not reach the other peers' builds) and return its path.
pub fn build(release: &Path) -> Result<PathBuf, Error> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status =
        std::process::Command::new(cargo).args(["build", "--quiet", "--release", "-p", "bench-proxy"]).status()?;
    if !status.success() {
        return Err("building bench-proxy failed".into());
    }
    Ok(release.join(format!("bench-proxy{}", std::env::consts::EXE_SUFFIX)))
}

/// Per run, per metric, one figure per round.
pub async fn measure(
    ours: &Path,
    proxy: &Path,
    plan: ClientPlan,
) -> Result<HashMap<(&'static str, &'static str), Vec<Vec<f64>>>, Error> {
    let mut results: HashMap<_, Vec<Vec<f64>>> = RUNS.iter().map(|r| (*r, vec![Vec::new(); METRICS.len()])).collect();
    for round in 0..plan.rounds {
        for at in 0..RUNS.len() {
            let run = RUNS[(at + round) % RUNS.len()];
            eprintln!("proxy round {}/{}: {} {}", round + 1, plan.rounds, run.0, run.1);
            let (program, args): (&Path, Vec<&str>) = match run {
                ("in process", _) => (proxy, Vec::new()),
                (_, "direct") => (ours, Vec::new()),
                _ => (proxy, vec![ours.to_str().ok_or("a path that is no UTF-8")?]),
            };
            let mut builder = Client::builder().era(EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE));
            if run.0 == "in process" {
                builder = builder.env("BENCH_IN_PROCESS", if run.1 == "direct" { "direct" } else { "mounted" });
            }
            let (client, child) = match run.0 {
                "stdio" | "in process" => (builder.command(program, &args).await?, None),
                _ => {
                    let (url, child) = serve_http(program, &args).await?;
                    (builder.http(&url).await?, Some(child))
                }
            };
            let figures = calls(&client, plan).await.map_err(|e| format!("{} {}: {e}", run.0, run.1))?;
            client.close().await;
            if let Some(mut child) = child {
                let _ = child.kill().await;
            }
            for (slot, figure) in figures.into_iter().enumerate() {
                results.get_mut(&run).unwrap()[slot].push(figure);
            }
        }
    }
    Ok(results)
}

/// Start `program args --http 127.0.0.1:0` and read where it listens.
async fn serve_http(program: &Path, args: &[&str]) -> Result<(String, tokio::process::Child), Error> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = BufReader::new(child.stderr.take().ok_or("no stderr")?).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await? {
            if let Some(at) = line.find("Streamable HTTP at ") {
                return Ok::<_, Error>(line[at + "Streamable HTTP at ".len()..].trim().to_owned());
            }
        }
        Err("the server exited before it listened".into())
    })
    .await
    .map_err(|_| "the server did not listen within 30 s")??;
    // Keep reading its stderr, so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((url, child))
}

fn arguments(n: usize) -> Value {
    json!({ "operation": "add", "a": n, "b": 1 })
}

fn check(result: &CallToolResult, n: usize) -> Result<(), Error> {
    let want = format!("result: {}", n + 1);
    let got = result.content.first().and_then(|c| c.as_text());
    if got == Some(want.as_str()) { Ok(()) } else { Err(format!("expected {want:?}, got {got:?}").into()) }
}

/// p50 in µs, sequential calls/s, pipelined calls/s.
async fn calls(client: &Client, plan: ClientPlan) -> Result<Vec<f64>, Error> {
    let mut latencies = Vec::with_capacity(plan.sequential);
    let started = Instant::now();
    for n in 0..plan.sequential {
        let at = Instant::now();
        let result = client.call("calculator", arguments(n)).await?;
        latencies.push(at.elapsed().as_secs_f64());
        check(&result, n)?;
    }
    let sequential_took = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let results: Vec<_> = stream::iter(0..plan.pipelined)
        .map(|n| async move { (n, client.call("calculator", arguments(n)).await) })
        .buffer_unordered(plan.in_flight)
        .collect()
        .await;
    let pipelined_took = started.elapsed().as_secs_f64();
    for (n, result) in results {
        check(&result?, n)?;
    }
    latencies.sort_by(f64::total_cmp);
    Ok(vec![
        percentile(&latencies, 0.5) * 1e6,
        plan.sequential as f64 / sequential_took,
        plan.pipelined as f64 / pipelined_took,
    ])
}

pub fn print_table(results: &HashMap<(&str, &str), Vec<Vec<f64>>>, plan: ClientPlan) {
    println!("## Proxy (our server called directly, and through a proxy mounting it; our client crate)\n");
    println!("| transport | measurement | unit | direct | proxied | proxied ÷ direct |");
    println!("|---|---|---|---|---|---|");
    for transport in ["stdio", "HTTP", "in process"] {
        for (i, (name, unit)) in METRICS.iter().enumerate() {
            let (direct, direct_text) = summary(&results[&(transport, "direct")][i]);
            let (proxied, proxied_text) = summary(&results[&(transport, "proxied")][i]);
            println!("| {transport} | {name} | {unit} | {direct_text} | {proxied_text} | {:.2} |", proxied / direct);
        }
    }
    println!(
        "\n{} round(s); medians, with min–max over rounds when there are several. The proxy speaks to its \
         upstream over stdio; `in process` is `bench-proxy` over stdio serving a calculator itself (direct) \
         or mounting it as a `Server` of its process (proxied). Every answer was checked.\n",
        plan.rounds
    );
}
