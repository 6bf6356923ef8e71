//! The client side: our client crate against the official Rust SDK's
//! client, each driving the same server (ours, over stdio), with the
//! driver's own hand-written client as the floor. Sequential calls and
//! calls pipelined 64 at a time, every answer checked.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use futures_util::{StreamExt, stream};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};

use crate::{Error, percentile, summary};

/// How much to measure.
#[derive(Clone, Copy)]
pub struct ClientPlan {
    pub rounds: usize,
    pub sequential: usize,
    pub pipelined: usize,
    pub in_flight: usize,
}

pub const CLIENTS_FULL: ClientPlan = ClientPlan { rounds: 3, sequential: 2_000, pipelined: 10_000, in_flight: 64 };
pub const CLIENTS_SMOKE: ClientPlan = ClientPlan { rounds: 1, sequential: 50, pipelined: 500, in_flight: 64 };

const PEERS: [&str; 3] = ["ours", "rmcp", "floor"];
const METRICS: [(&str, &str); 3] =
    [("sequential call p50", "µs"), ("sequential calls/s", "calls/s"), ("pipelined calls/s (64 in flight)", "calls/s")];

fn arguments(n: usize) -> Value {
    json!({ "operation": "add", "a": n, "b": 1 })
}

fn want(n: usize) -> String {
    format!("result: {}", n + 1)
}

fn check(got: Option<&str>, n: usize) -> Result<(), Error> {
    let want = want(n);
    if got == Some(want.as_str()) { Ok(()) } else { Err(format!("expected {want:?}, got {got:?}").into()) }
}

/// Per peer, per metric, one figure per round.
pub async fn measure(server: &Path, plan: ClientPlan) -> Result<HashMap<&'static str, Vec<Vec<f64>>>, Error> {
    let mut results: HashMap<&'static str, Vec<Vec<f64>>> =
        PEERS.iter().map(|p| (*p, vec![Vec::new(); METRICS.len()])).collect();
    for round in 0..plan.rounds {
        for at in 0..PEERS.len() {
            // Each round starts with another peer, so none always runs warm.
            let peer = PEERS[(at + round) % PEERS.len()];
            eprintln!("clients round {}/{}: {peer}", round + 1, plan.rounds);
            let figures = match peer {
                "ours" => ours(server, plan).await?,
                "rmcp" => rmcp(server, plan).await?,
                _ => floor(server, plan).await?,
            };
            for (slot, figure) in figures.into_iter().enumerate() {
                results.get_mut(peer).unwrap()[slot].push(figure);
            }
        }
    }
    Ok(results)
}

/// p50 in µs, sequential calls/s, pipelined calls/s.
fn figures(mut latencies: Vec<f64>, sequential_took: f64, pipelined: usize, pipelined_took: f64) -> Vec<f64> {
    let calls = latencies.len() as f64;
    latencies.sort_by(f64::total_cmp);
    vec![percentile(&latencies, 0.5) * 1e6, calls / sequential_took, pipelined as f64 / pipelined_took]
}

async fn ours(server: &Path, plan: ClientPlan) -> Result<Vec<f64>, Error> {
    // The handshake era, as rmcp's client speaks it (auto would pick
    // 2026-07-28 with our server, whose requests carry more).
    let era = mcp_runtime_client::EraChoice::Version(mcp_runtime_client::protocol::ProtocolVersion::LATEST_HANDSHAKE);
    let client = mcp_runtime_client::Client::builder().era(era).command(server, std::iter::empty::<&str>()).await?;
    let text = |r: &mcp_runtime_client::protocol::CallToolResult| {
        r.content.first().and_then(|c| c.as_text()).map(str::to_owned)
    };
    let mut latencies = Vec::with_capacity(plan.sequential);
    let started = Instant::now();
    for n in 0..plan.sequential {
        let at = Instant::now();
        let result = client.call("calculator", arguments(n)).await?;
        latencies.push(at.elapsed().as_secs_f64());
        check(text(&result).as_deref(), n)?;
    }
    let sequential_took = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let client = &client;
    let results: Vec<_> = stream::iter(0..plan.pipelined)
        .map(|n| async move { (n, client.call("calculator", arguments(n)).await) })
        .buffer_unordered(plan.in_flight)
        .collect()
        .await;
    let pipelined_took = started.elapsed().as_secs_f64();
    for (n, result) in results {
        check(text(&result?).as_deref(), n)?;
    }
    client.clone().close().await;
    Ok(figures(latencies, sequential_took, plan.pipelined, pipelined_took))
}

async fn rmcp(server: &Path, plan: ClientPlan) -> Result<Vec<f64>, Error> {
    let transport = rmcp::transport::TokioChildProcess::new(tokio::process::Command::new(server))?;
    let client = ().serve(transport).await?;
    let call = |n: usize| {
        let arguments: Map<String, Value> = arguments(n).as_object().cloned().unwrap_or_default();
        CallToolRequestParams::new("calculator").with_arguments(arguments)
    };
    let text = |r: &rmcp::model::CallToolResult| r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone());
    let mut latencies = Vec::with_capacity(plan.sequential);
    let started = Instant::now();
    for n in 0..plan.sequential {
        let at = Instant::now();
        let result = client.call_tool(call(n)).await?;
        latencies.push(at.elapsed().as_secs_f64());
        check(text(&result).as_deref(), n)?;
    }
    let sequential_took = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let peer = client.peer().clone();
    let results: Vec<_> = stream::iter(0..plan.pipelined)
        .map(|n| {
            let peer = peer.clone();
            async move { (n, peer.call_tool(call(n)).await) }
        })
        .buffer_unordered(plan.in_flight)
        .collect()
        .await;
    let pipelined_took = started.elapsed().as_secs_f64();
    for (n, result) in results {
        check(text(&result?).as_deref(), n)?;
    }
    client.cancel().await?;
    Ok(figures(latencies, sequential_took, plan.pipelined, pipelined_took))
}

/// The driver's own client: a line per request, no bookkeeping beyond an
/// id per call (it checks every answer too).
async fn floor(server: &Path, plan: ClientPlan) -> Result<Vec<f64>, Error> {
    let mut peer = crate::Peer::spawn(server).await?;
    let mut latencies = Vec::with_capacity(plan.sequential);
    let started = Instant::now();
    for n in 0..plan.sequential {
        let at = Instant::now();
        let text = peer.call("calculator", arguments(n)).await?;
        latencies.push(at.elapsed().as_secs_f64());
        check(Some(&text), n)?;
    }
    let sequential_took = started.elapsed().as_secs_f64();
    let rate = peer.pipelined(plan.pipelined, plan.in_flight).await?;
    Ok(figures(latencies, sequential_took, plan.pipelined, plan.pipelined as f64 / rate))
}

pub fn print_table(results: &HashMap<&str, Vec<Vec<f64>>>, plan: ClientPlan) {
    println!("## Clients (each drives our server over stdio; calculator calls)\n");
    println!("| measurement | unit | our client | rmcp client | floor (hand-written) | ours ÷ rmcp | ours ÷ floor |");
    println!("|---|---|---|---|---|---|---|");
    for (i, (name, unit)) in METRICS.iter().enumerate() {
        let (ours, ours_text) = summary(&results["ours"][i]);
        let (rmcp, rmcp_text) = summary(&results["rmcp"][i]);
        let (floor, floor_text) = summary(&results["floor"][i]);
        println!(
            "| {name} | {unit} | {ours_text} | {rmcp_text} | {floor_text} | {:.2} | {:.2} |",
            ours / rmcp,
            ours / floor
        );
    }
    println!(
        "\n{} round(s); medians, with min–max over rounds when there are several. Every answer was checked.\n",
        plan.rounds
    );
}
