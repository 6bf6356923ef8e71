//! What user middleware costs: `calculator` calls over stdio to our server
//! with no layers and with three pass-through `from_fn` layers (each
//! counts the call in an atomic, then runs the rest): sequential p50 and
//! calls/s, and pipelined calls/s, with the stdio table's code and amounts.

use std::collections::HashMap;
use std::path::Path;

use mcp_core::ProtocolVersion;
use serde_json::json;

use crate::{Error, Peer, Plan, percentile, summary};

/// The layer counts compared.
const LAYERS: [usize; 2] = [0, 3];

/// The figures, in this order, per layer count.
const METRICS: [(&str, &str); 3] =
    [("sequential call p50", "µs"), ("sequential calls/s", "calls/s"), ("pipelined calls/s (64 in flight)", "calls/s")];

/// `results[layers][metric]`: one value per round.
pub(crate) type Results = HashMap<usize, Vec<Vec<f64>>>;

/// Each layer count `plan.rounds` times, alternating which goes first.
pub(crate) async fn measure(binary: &Path, plan: Plan) -> Result<Results, Error> {
    let mut results = Results::new();
    for round in 0..plan.rounds {
        for i in 0..LAYERS.len() {
            let layers = LAYERS[(i + round) % LAYERS.len()];
            eprintln!("middleware round {}/{}: {layers} layers", round + 1, plan.rounds);
            let count = layers.to_string();
            let mut server =
                Peer::spawn_with(binary, &["--layers", &count], ProtocolVersion::V2025_06_18, json!({})).await?;
            let (latencies, rate) = server.sequential(plan.sequential).await?;
            let pipelined = server.pipelined(plan.pipelined, plan.in_flight).await?;
            server.finish().await?;
            let values = [percentile(&latencies, 0.50), rate, pipelined];
            let slots = results.entry(layers).or_insert_with(|| vec![Vec::new(); METRICS.len()]);
            for (slot, value) in slots.iter_mut().zip(values) {
                slot.push(value);
            }
        }
    }
    Ok(results)
}

pub(crate) fn print_table(results: &Results, plan: Plan) {
    println!("## Middleware (ours over stdio, calculator calls; 3 pass-through `from_fn` layers against none)\n");
    println!("| measurement | unit | no layers | 3 layers | 3 layers ÷ none |");
    println!("|---|---|---|---|---|");
    for (i, (name, unit)) in METRICS.iter().enumerate() {
        let (none, none_text) = summary(&results[&0][i]);
        let (three, three_text) = summary(&results[&3][i]);
        println!("| {name} | {unit} | {none_text} | {three_text} | {:.2} |", three / none);
    }
    println!(
        "\n{} round(s); medians, with min–max over rounds when there are several. Every answer was checked.\n",
        plan.rounds
    );
}
