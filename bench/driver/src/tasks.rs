//! Tasks throughput, ours alone (the peers' tasks are not measured): a
//! 2025-11-25 client (SEP-1686) over stdio asks for `calculator_task` calls
//! as tasks (`params.task`), on `bench-ours --tasks`:
//!
//! - sequential cycles: create (`tools/call` answered with a task), then
//!   `tasks/get` at once and again until `completed` (the task's
//!   `pollInterval` is ignored: this measures the server, not a polite
//!   client), then `tasks/result`;
//! - pipelined cycles: creates with up to 64 requests unanswered, each
//!   created task's `tasks/result` (which waits for the end) sent as soon
//!   as it is created;
//! - the same with 5,000 cycles in one session: tasks are kept for their
//!   TTL (60 s here), so the session holds thousands, past the 1,024 at
//!   which the runtime first prunes a session's list of tasks (then at
//!   doubling lengths); the other rows stay below it.
//!
//! Every result's text is checked.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use mcp_core::ProtocolVersion;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::{Error, Peer, checked, expect, percentile, summary, text};

/// How many cycles. Each measurement gets a fresh server, and stays under
/// the default store's 10,000 tasks (tasks live for their 60 s TTL).
#[derive(Clone, Copy)]
pub(crate) struct TasksPlan {
    pub(crate) rounds: usize,
    pub(crate) sequential: usize,
    pub(crate) pipelined: usize,
    /// Pipelined cycles in the row where one session keeps many tasks.
    pub(crate) many: usize,
    pub(crate) in_flight: usize,
}

pub(crate) const TASKS_FULL: TasksPlan =
    TasksPlan { rounds: 3, sequential: 1_000, pipelined: 1_000, many: 5_000, in_flight: 64 };
pub(crate) const TASKS_SMOKE: TasksPlan =
    TasksPlan { rounds: 1, sequential: 20, pipelined: 100, many: 200, in_flight: 64 };

/// The figures, in this order, one value per round each.
const METRICS: [(&str, &str); 5] = [
    ("sequential cycle p50 (create, poll, result)", "µs"),
    ("sequential cycles/s", "cycles/s"),
    ("tasks/get per sequential cycle (mean)", "polls"),
    ("pipelined cycles/s (create, then result; 64 in flight)", "cycles/s"),
    ("pipelined cycles/s, many tasks kept in one session", "cycles/s"),
];

/// Spawn `bench-ours --tasks` as a 2025-11-25 client that declared tasks.
async fn spawn(binary: &Path) -> Result<Peer, Error> {
    let capabilities = json!({"tasks": {"list": {}, "cancel": {}}});
    Peer::spawn_with(binary, &["--tasks"], ProtocolVersion::V2025_11_25, capabilities).await
}

/// `tools/call` params asking for `a + 1` as a task.
fn create(a: i64) -> Value {
    json!({"name": "calculator_task", "arguments": {"operation": "add", "a": a, "b": 1}, "task": {"ttl": 60_000}})
}

/// The task id of a `CreateTaskResult`.
fn task_id(created: &Value) -> Result<String, Error> {
    let id = created["task"]["taskId"].as_str().ok_or_else(|| format!("no task in {created}"))?;
    Ok(id.to_owned())
}

/// Every measurement, `plan.rounds` times: `results[metric]`.
pub(crate) async fn measure(binary: &Path, plan: TasksPlan) -> Result<Vec<Vec<f64>>, Error> {
    let mut results = vec![Vec::new(); METRICS.len()];
    for round in 0..plan.rounds {
        eprintln!("tasks round {}/{}", round + 1, plan.rounds);
        let mut server = spawn(binary).await?;
        let (mut cycles, mut polls) = (Vec::with_capacity(plan.sequential), 0);
        let started = Instant::now();
        for a in 0..plan.sequential as i64 {
            let t = Instant::now();
            let id = task_id(&server.request("tools/call", create(a)).await?)?;
            loop {
                polls += 1;
                let task = server.request("tasks/get", json!({"taskId": id})).await?;
                match task["status"].as_str() {
                    Some("completed") => break,
                    Some("working") => {}
                    _ => return Err(format!("task {id} did not complete: {task}").into()),
                }
            }
            let result = server.request("tasks/result", json!({"taskId": id})).await?;
            expect(&text(&result)?, &format!("result: {}", a + 1))?;
            cycles.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let rate = plan.sequential as f64 / started.elapsed().as_secs_f64();
        server.finish().await?;
        cycles.sort_by(f64::total_cmp);

        let mut rates = Vec::new();
        for total in [plan.pipelined, plan.many] {
            let mut server = spawn(binary).await?;
            rates.push(pipelined(&mut server, total, plan.in_flight).await?);
            server.finish().await?;
        }
        let values = [percentile(&cycles, 0.50), rate, polls as f64 / plan.sequential as f64, rates[0], rates[1]];
        for (slot, value) in results.iter_mut().zip(values) {
            slot.push(value);
        }
    }
    Ok(results)
}

/// What a request in flight is waiting for.
enum Waiting {
    /// The task computing `a + 1`.
    Created(i64),
    /// The result of that task.
    Result(i64),
}

/// `total` cycles, up to `in_flight` requests unanswered; cycles/s.
async fn pipelined(server: &mut Peer, total: usize, in_flight: usize) -> Result<f64, Error> {
    let started = Instant::now();
    let mut waiting: HashMap<i64, Waiting> = HashMap::new();
    let (mut created, mut done) = (0, 0);
    while done < total {
        while created < total && waiting.len() < in_flight {
            let id = server.id();
            let a = created as i64;
            server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": create(a)})).await?;
            waiting.insert(id, Waiting::Created(a));
            created += 1;
        }
        server.stdin.flush().await?;
        let message = server.recv().await?;
        // Notifications (task status) and stray answers are not waited for.
        let Some(what) = message["id"].as_i64().and_then(|id| waiting.remove(&id)) else { continue };
        match what {
            Waiting::Created(a) => {
                let task = task_id(&checked(message)?)?;
                let id = server.id();
                server
                    .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tasks/result", "params": {"taskId": task}}))
                    .await?;
                waiting.insert(id, Waiting::Result(a));
            }
            Waiting::Result(a) => {
                expect(&text(&checked(message)?)?, &format!("result: {}", a + 1))?;
                done += 1;
            }
        }
    }
    Ok(total as f64 / started.elapsed().as_secs_f64())
}

pub(crate) fn print_table(results: &[Vec<f64>], plan: TasksPlan) {
    println!(
        "## Tasks (ours alone over stdio: 2025-11-25 task-augmented `tools/call`; rmcp and FlyMCPRust not measured)\n"
    );
    println!("| measurement | unit | ours |");
    println!("|---|---|---|");
    for ((name, unit), values) in METRICS.iter().zip(results) {
        println!("| {name} | {unit} | {} |", summary(values).1);
    }
    println!(
        "\n{} round(s) of {} sequential cycles, {} pipelined, and {} pipelined in one session (\"many tasks\"), each \
         on a fresh server; medians, with min–max over rounds when there are several. Every result was checked.\n",
        plan.rounds, plan.sequential, plan.pipelined, plan.many
    );
}
