//! The benchmark driver: builds the peer servers in release mode, drives
//! each over stdio as a client would, then over Streamable HTTP with 1, 16
//! and 64 clients, checks every answer, and prints medians (and min–max)
//! side by side with ratios.
//!
//! ```sh
//! cargo run --release -p mcp-bench             # the full run (minutes)
//! cargo run --release -p mcp-bench -- --smoke  # seconds; what CI runs
//! cargo run --release -p mcp-bench -- --http-only   # only the HTTP tables (hyper clients, then wrk)
//! cargo run --release -p mcp-bench -- --stdio-only  # only the stdio table
//! cargo run --release -p mcp-bench -- --clients-only  # only the client table
//! cargo run --release -p mcp-bench -- --proxy-only  # only the proxy table
//! cargo run --release -p mcp-bench -- --middleware-only  # ours with 3 layers against none
//! cargo run --release -p mcp-bench -- --tasks-only  # ours' task create-poll-result cycles
//! cargo run --release -p mcp-bench -- --no-soak     # the tables, no soak
//! cargo run --release -p mcp-bench -- --soak 1000000  # the soak alone
//! cargo run --release -p mcp-bench -- --scale-out 10000  # replicas behind HAProxy
//! cargo run --release -p mcp-bench -- --ours PATH   # another build of ours (an older commit's)
//! bash bench/workload.sh --seconds 60 --rounds 3   # the published MCP workload (`--workload`)
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use mcp_core::{ProtocolVersion, methods};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

mod clients;
mod http;
mod middleware;
mod proxy;
mod scale;
mod soak;
mod tasks;
mod workload;
mod wrk;

type Error = Box<dyn std::error::Error>;

/// A memory figure of process `pid` from `/proc/<pid>/status`, in MiB.
fn memory_mib(pid: u32, key: &str) -> Result<f64, Error> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {key} in /proc/<pid>/status"))?;
    Ok(kib / 1024.0)
}

/// The servers compared over stdio, by package (and binary) name.
const PEERS: [(&str, &str); 4] = [
    ("ours", "bench-ours"),
    ("rmcp", "bench-rmcp-peer"),
    ("flymcprust", "bench-flymcprust-peer"),
    ("raw loop", "bench-raw"),
];

/// How much work each measurement does.
#[derive(Clone, Copy)]
struct Plan {
    rounds: usize,
    spawns: usize,
    sequential: usize,
    pipelined: usize,
    in_flight: usize,
    sleepers: usize,
    big_calls: usize,
    lists: usize,
}

const FULL: Plan = Plan {
    rounds: 3,
    spawns: 10,
    sequential: 2_000,
    pipelined: 10_000,
    in_flight: 64,
    sleepers: 100,
    big_calls: 5,
    lists: 200,
};
const SMOKE: Plan =
    Plan { rounds: 1, spawns: 2, sequential: 50, pipelined: 500, in_flight: 64, sleepers: 10, big_calls: 1, lists: 10 };

/// One measurement's name, unit, and whether more is better.
const METRICS: [(&str, &str, bool); 10] = [
    ("startup (spawn → initialize)", "ms", false),
    ("sequential call p50", "µs", false),
    ("sequential call p99", "µs", false),
    ("sequential calls/s", "calls/s", true),
    ("pipelined calls/s (64 in flight)", "calls/s", true),
    ("100 × sleep 100 ms, concurrently", "ms", false),
    ("1 MB argument", "MB/s", true),
    ("tools/list p50", "µs", false),
    // Idle to busy (startup, the sequential and pipelined calls, the
    // sleeps), before the 1 MB message raises every peer's peak.
    ("peak RSS before the 1 MB message (VmHWM)", "MiB", false),
    ("peak RSS (VmHWM)", "MiB", false),
];

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let smoke = flag("--smoke");
    // One `--…-only` flag runs that part alone; none (or several) run all.
    let only = ["--stdio-only", "--http-only", "--clients-only", "--proxy-only", "--middleware-only", "--tasks-only"]
        .map(flag);
    let all = only.iter().filter(|o| **o).count() != 1;
    let [stdio, http_bench, clients_bench, proxy_bench, middleware_bench, tasks_bench] = only.map(|o| all || o);
    if flag("--workload") {
        return workload::run(&args).await;
    }
    if let Some(at) = args.iter().position(|a| a == "--scale-out") {
        let calls = args.get(at + 1).and_then(|n| n.parse().ok()).unwrap_or(10_000);
        let seconds = args.iter().position(|a| a == "--seconds");
        let seconds = seconds.and_then(|at| args.get(at + 1)).and_then(|n| n.parse().ok()).unwrap_or(10.0);
        let plan = scale::Plan { calls, clients: 8, seconds };
        return scale::run(plan).await.map_err(|e| e.to_string().into());
    }
    let mut binaries = build()?;
    // The middleware and tasks rows use this build's `bench-ours` even with
    // `--ours`: an older one may lack `--layers` (and would silently run
    // without layers) or `--tasks`.
    let built_ours = binaries["ours"].clone();
    // Another build of our server against the same peers, e.g. an older
    // commit's `bench-ours`, for a same-hour before-and-after comparison.
    if let Some(at) = args.iter().position(|a| a == "--ours") {
        let path = args.get(at + 1).ok_or("--ours needs the path of a bench-ours binary")?;
        binaries.insert("ours", PathBuf::from(path));
    }
    if let Some(at) = args.iter().position(|a| a == "--soak") {
        let total = args.get(at + 1).and_then(|n| n.parse().ok()).unwrap_or(1_000_000);
        let report = soak::soak(&binaries["ours"], total).await?;
        report.print();
        let http = soak::soak_http(&binaries["ours"], total).await?;
        http.print();
        report.check()?;
        return http.check();
    }
    if stdio {
        let plan = if smoke { SMOKE } else { FULL };
        let results = measure_stdio(&binaries, plan).await?;
        print_table(&results, plan);
    }
    if middleware_bench {
        let plan = if smoke { SMOKE } else { FULL };
        let results = middleware::measure(&built_ours, plan).await?;
        middleware::print_table(&results, plan);
    }
    if tasks_bench {
        let plan = if smoke { tasks::TASKS_SMOKE } else { tasks::TASKS_FULL };
        let results = tasks::measure(&built_ours, plan).await?;
        tasks::print_table(&results, plan);
    }
    if http_bench {
        let plan = if smoke { http::HTTP_SMOKE } else { http::HTTP_FULL };
        let results = measure_http(&binaries, plan).await?;
        print_http_table(&results, plan);
        let plan = if smoke { wrk::WRK_SMOKE } else { wrk::WRK_FULL };
        match wrk::find_or_install() {
            Ok(wrk) => {
                let (results, notes) = measure_wrk(&wrk, &binaries, plan).await?;
                print_wrk_table(&results, &notes, plan);
            }
            Err(why) => println!("## Streamable HTTP under wrk\n\nSkipped: {why}.\n"),
        }
    }
    if clients_bench {
        let plan = if smoke { clients::CLIENTS_SMOKE } else { clients::CLIENTS_FULL };
        let results = clients::measure(&binaries["ours"], plan).await?;
        clients::print_table(&results, plan);
    }
    if proxy_bench {
        // The same amounts as the client comparison.
        let plan = if smoke { clients::CLIENTS_SMOKE } else { clients::CLIENTS_FULL };
        let ours = &binaries["ours"];
        let proxy_binary = proxy::build(ours.parent().ok_or("no target directory")?)?;
        let results = proxy::measure(ours, &proxy_binary, plan).await?;
        proxy::print_table(&results, plan);
    }
    // The soak comes with the stdio run (CI's smoke round soaks 20,000).
    if !stdio || flag("--no-soak") {
        return Ok(());
    }
    let total = if smoke { 20_000 } else { 1_000_000 };
    let report = soak::soak(&binaries["ours"], total).await?;
    report.print();
    let http = soak::soak_http(&binaries["ours"], total).await?;
    http.print();
    report.check()?;
    http.check()
}

/// Every stdio measurement of every peer, `plan.rounds` times, interleaved:
/// `results[peer][metric]` holds one value per round.
async fn measure_stdio(
    binaries: &HashMap<&'static str, PathBuf>,
    plan: Plan,
) -> Result<HashMap<&'static str, Vec<Vec<f64>>>, Error> {
    let mut results: HashMap<&str, Vec<Vec<f64>>> = HashMap::new();
    for round in 0..plan.rounds {
        // Interleaved, and in a different order each round, so drift on a
        // shared machine spreads over every peer.
        for i in 0..PEERS.len() {
            let (name, _) = PEERS[(i + round) % PEERS.len()];
            eprintln!("stdio round {}/{}: {name}", round + 1, plan.rounds);
            let values = measure(&binaries[name], plan).await.map_err(|e| format!("{name}: {e}"))?;
            let slots = results.entry(name).or_insert_with(|| vec![Vec::new(); METRICS.len()]);
            for (slot, value) in slots.iter_mut().zip(values) {
                slot.push(value);
            }
        }
    }
    Ok(results)
}

/// HTTP figures per peer and era: for each client count, calls/s, p50 and
/// p99; then the peak RSS. One value per round in each.
type HttpResults = HashMap<(&'static str, http::Mode), Vec<Vec<f64>>>;

/// Every HTTP measurement of every peer, interleaved like the stdio ones.
async fn measure_http(binaries: &HashMap<&'static str, PathBuf>, plan: http::HttpPlan) -> Result<HttpResults, Error> {
    let peers = &http::HTTP_PEERS;
    let mut results = HttpResults::new();
    for round in 0..plan.rounds {
        for i in 0..peers.len() {
            let peer = &peers[(i + round) % peers.len()];
            for mode in http::Mode::ALL {
                eprintln!("HTTP round {}/{}: {} ({})", round + 1, plan.rounds, peer.name, mode.name());
                let run = http::measure(peer, &binaries[peer.name], mode, plan)
                    .await
                    .map_err(|e| format!("{} over HTTP ({}): {e}", peer.name, mode.name()))?;
                let Some(run) = run else { continue };
                let mut values: Vec<f64> = run.figures.iter().flat_map(|f| [f.rate, f.p50_us, f.p99_us]).collect();
                values.push(run.peak_rss_mib);
                let slots = results.entry((peer.name, mode)).or_insert_with(|| vec![Vec::new(); values.len()]);
                for (slot, value) in slots.iter_mut().zip(values) {
                    slot.push(value);
                }
            }
        }
    }
    Ok(results)
}

/// Every wrk measurement of every peer and era, interleaved like the
/// others: per connection count, calls/s, p50 and p99, one value per round;
/// and a line for each run that had socket errors.
async fn measure_wrk(
    wrk: &Path,
    binaries: &HashMap<&'static str, PathBuf>,
    plan: wrk::WrkPlan,
) -> Result<(HttpResults, Vec<String>), Error> {
    let peers = &http::HTTP_PEERS;
    let mut results = HttpResults::new();
    let mut notes = Vec::new();
    for round in 0..plan.rounds {
        for i in 0..peers.len() {
            let peer = &peers[(i + round) % peers.len()];
            for mode in http::Mode::ALL {
                eprintln!("wrk round {}/{}: {} ({})", round + 1, plan.rounds, peer.name, mode.name());
                let runs = wrk::measure(wrk, peer, &binaries[peer.name], mode, plan)
                    .await
                    .map_err(|e| format!("{} under wrk ({}): {e}", peer.name, mode.name()))?;
                let Some(runs) = runs else { continue };
                for (run, connections) in runs.iter().zip(wrk::CONNECTIONS) {
                    if run.socket_errors > 0 {
                        let (peer, mode, errors) = (peer.name, mode.name(), run.socket_errors);
                        notes
                            .push(format!("{peer} ({mode}), {connections} connections, round {}: {errors}", round + 1));
                    }
                }
                let values = runs.iter().flat_map(|r| [r.figures.rate, r.figures.p50_us, r.figures.p99_us]);
                let slots = results.entry((peer.name, mode)).or_insert_with(|| vec![Vec::new(); 3 * runs.len()]);
                for (slot, value) in slots.iter_mut().zip(values) {
                    slot.push(value);
                }
            }
        }
    }
    Ok((results, notes))
}

/// Build the peers in release mode and return their paths.
fn build() -> Result<HashMap<&'static str, PathBuf>, Error> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    // The driver itself too, so that features unify as in one
    // `cargo build --release -p mcp-bench -p <peers>` and the shared
    // dependencies (hyper, tokio) are built once, not in two configurations.
    command.args(["build", "--quiet", "--release", "-p", "mcp-bench"]);
    for (_, package) in PEERS {
        command.args(["-p", package]);
    }
    if !command.status()?.success() {
        return Err("building the peer servers failed".into());
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().ok_or("no target directory")?;
    let release = if dir.ends_with("release") { dir.to_path_buf() } else { release_dir(dir)? };
    let http_peers = http::HTTP_PEERS.iter().map(|p| (p.name, p.package));
    Ok(PEERS
        .into_iter()
        .chain(http_peers)
        .map(|(name, package)| (name, release.join(format!("{package}{}", std::env::consts::EXE_SUFFIX))))
        .collect())
}

/// `<target>/release` from a debug driver's `<target>/debug`.
fn release_dir(dir: &Path) -> Result<PathBuf, Error> {
    Ok(dir.parent().ok_or("no target directory")?.join("release"))
}

/// Every measurement of one peer, in `METRICS` order.
async fn measure(binary: &Path, plan: Plan) -> Result<Vec<f64>, Error> {
    let mut startups = Vec::new();
    for _ in 0..plan.spawns {
        let started = Instant::now();
        let server = Peer::spawn(binary).await?;
        startups.push(started.elapsed().as_secs_f64() * 1e3);
        server.finish().await?;
    }

    let mut server = Peer::spawn(binary).await?;
    let (latencies, sequential_rate) = server.sequential(plan.sequential).await?;
    let pipelined_rate = server.pipelined(plan.pipelined, plan.in_flight).await?;
    let sleep_ms = server.concurrent_sleeps(plan.sleepers, 100).await?;
    let busy_rss = server.peak_rss_mib()?;
    let mb_per_s = server.big_argument(plan.big_calls).await?;

    let mut lists = Vec::with_capacity(plan.lists);
    for _ in 0..plan.lists {
        let t = Instant::now();
        let result = server.request(methods::TOOLS_LIST, json!({})).await?;
        lists.push(t.elapsed().as_secs_f64() * 1e6);
        if result["tools"].as_array().map(Vec::len) != Some(3) {
            return Err(format!("tools/list did not list the three tools: {result}").into());
        }
    }
    lists.sort_by(f64::total_cmp);
    let rss = server.peak_rss_mib()?;
    server.finish().await?;

    Ok(vec![
        median(&mut startups),
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        sequential_rate,
        pipelined_rate,
        sleep_ms,
        mb_per_s,
        percentile(&lists, 0.50),
        busy_rss,
        rss,
    ])
}

/// A server process driven over its stdin and stdout.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl Peer {
    /// Spawn and complete the handshake.
    async fn spawn(binary: &Path) -> Result<Peer, Error> {
        Peer::spawn_with(binary, &[], ProtocolVersion::V2025_06_18, json!({})).await
    }

    /// Spawn with `args`, and complete the handshake in `version` with the
    /// client `capabilities`.
    async fn spawn_with(
        binary: &Path,
        args: &[&str],
        version: ProtocolVersion,
        capabilities: Value,
    ) -> Result<Peer, Error> {
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::with_capacity(1 << 16, child.stdout.take().ok_or("no stdout")?).lines();
        let mut peer = Peer { child, stdin, stdout, next_id: 1 };
        let init = json!({"protocolVersion": version.as_str(), "capabilities": capabilities,
            "clientInfo": {"name": "mcp-bench", "version": "1"}});
        peer.request(methods::INITIALIZE, init).await?;
        peer.send(&json!({"jsonrpc": "2.0", "method": methods::INITIALIZED})).await?;
        Ok(peer)
    }

    async fn send(&mut self, message: &Value) -> Result<(), Error> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.stdin.write_all(&line).await?;
        Ok(())
    }

    async fn recv(&mut self) -> Result<Value, Error> {
        let line = tokio::time::timeout(Duration::from_secs(60), self.stdout.next_line())
            .await
            .map_err(|_| "no answer within 60 s")??
            .ok_or("the server closed its output")?;
        Ok(serde_json::from_str(&line)?)
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// One request, its result checked for errors.
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.id();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await?;
        self.stdin.flush().await?;
        loop {
            let message = self.recv().await?;
            if message.get("id") == Some(&json!(id)) {
                return checked(message);
            }
        }
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Result<String, Error> {
        let result = self.request(methods::TOOLS_CALL, json!({"name": name, "arguments": arguments})).await?;
        text(&result)
    }

    async fn call_add(&mut self, i: i64) -> Result<(), Error> {
        let text = self.call("calculator", json!({"operation": "add", "a": i, "b": 1})).await?;
        expect(&text, &format!("result: {}", i + 1))
    }

    /// `calls` sequential `calculator` calls: their latencies in µs,
    /// sorted, and calls/s.
    async fn sequential(&mut self, calls: usize) -> Result<(Vec<f64>, f64), Error> {
        let mut latencies = Vec::with_capacity(calls);
        let started = Instant::now();
        for i in 0..calls {
            let t = Instant::now();
            self.call_add(i as i64).await?;
            latencies.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let rate = calls as f64 / started.elapsed().as_secs_f64();
        latencies.sort_by(f64::total_cmp);
        Ok((latencies, rate))
    }

    /// `total` calls with up to `in_flight` unanswered at a time; calls/s.
    async fn pipelined(&mut self, total: usize, in_flight: usize) -> Result<f64, Error> {
        let first = self.next_id + 1;
        let started = Instant::now();
        let (mut sent, mut answered) = (0, 0);
        while answered < total {
            while sent < total && sent - answered < in_flight {
                let id = self.id();
                let params = json!({"name": "calculator", "arguments": {"operation": "add", "a": id, "b": 1}});
                self.send(&json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params}))
                    .await?;
                sent += 1;
            }
            self.stdin.flush().await?;
            let message = self.recv().await?;
            let id = message["id"].as_i64().ok_or("a message without an id")?;
            if id < first {
                continue;
            }
            expect(&text(&checked(message)?)?, &format!("result: {}", id + 1))?;
            answered += 1;
        }
        Ok(total as f64 / started.elapsed().as_secs_f64())
    }

    /// `count` calls of `sleep(ms)` sent at once; milliseconds until all
    /// have answered.
    async fn concurrent_sleeps(&mut self, count: usize, ms: u64) -> Result<f64, Error> {
        let started = Instant::now();
        let mut waiting = Vec::new();
        for _ in 0..count {
            let id = self.id();
            let params = json!({"name": "sleep", "arguments": {"ms": ms}});
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params})).await?;
            waiting.push(id);
        }
        self.stdin.flush().await?;
        while !waiting.is_empty() {
            let message = self.recv().await?;
            let id = message["id"].as_i64().ok_or("a message without an id")?;
            if let Some(at) = waiting.iter().position(|w| *w == id) {
                expect(&text(&checked(message)?)?, &format!("slept {ms} ms"))?;
                waiting.swap_remove(at);
            }
        }
        Ok(started.elapsed().as_secs_f64() * 1e3)
    }

    /// `calls` calls of `text_analyzer` with a 1 MiB text; MB/s of argument.
    async fn big_argument(&mut self, calls: usize) -> Result<f64, Error> {
        let text_value: String = "word ".repeat(1 << 18).chars().take(1 << 20).collect();
        let expected = format!("characters: {}\nwords: {}", 1 << 20, text_value.split_whitespace().count());
        let started = Instant::now();
        for _ in 0..calls {
            let answer = self.call("text_analyzer", json!({"text": text_value})).await?;
            expect(&answer, &expected)?;
        }
        Ok((calls * (1 << 20)) as f64 / 1e6 / started.elapsed().as_secs_f64())
    }

    /// The peak resident set (Linux `VmHWM`), in MiB.
    fn peak_rss_mib(&self) -> Result<f64, Error> {
        self.memory_mib("VmHWM")
    }

    /// A memory figure of the server process (`VmHWM`, `VmRSS`, …), in MiB.
    fn memory_mib(&self, key: &str) -> Result<f64, Error> {
        memory_mib(self.child.id().ok_or("the server already exited")?, key)
    }

    /// Close stdin and wait for the server to exit.
    async fn finish(mut self) -> Result<(), Error> {
        drop(self.stdin);
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await??;
        if !status.success() {
            return Err(format!("the server exited with {status}").into());
        }
        Ok(())
    }
}

fn checked(message: Value) -> Result<Value, Error> {
    if let Some(error) = message.get("error") {
        return Err(format!("error response: {error}").into());
    }
    let result = message.get("result").cloned().ok_or("a response without a result")?;
    if result.get("isError") == Some(&json!(true)) {
        return Err(format!("tool error: {result}").into());
    }
    Ok(result)
}

fn text(result: &Value) -> Result<String, Error> {
    result["content"][0]["text"].as_str().map(str::to_owned).ok_or_else(|| format!("no text in {result}").into())
}

fn expect(got: &str, want: &str) -> Result<(), Error> {
    if got == want { Ok(()) } else { Err(format!("expected {want:?}, got {got:?}").into()) }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    percentile(values, 0.5)
}

/// The value at quantile `q` of sorted `values` (nearest rank).
fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// The median of one figure's rounds, and its text: the median, with the
/// min–max over rounds when there are several.
fn summary(values: &[f64]) -> (f64, String) {
    let mut values = values.to_vec();
    let mid = median(&mut values);
    let (lo, hi) = (values[0], values[values.len() - 1]);
    (mid, if values.len() > 1 { format!("{} ({}–{})", fmt(mid), fmt(lo), fmt(hi)) } else { fmt(mid) })
}

fn print_table(results: &HashMap<&str, Vec<Vec<f64>>>, plan: Plan) {
    println!("## stdio\n");
    println!(
        "| measurement | unit | ours | rmcp | flymcprust | raw loop | ours ÷ rmcp | ours ÷ flymcprust | ours ÷ raw |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (i, (name, unit, _)) in METRICS.iter().enumerate() {
        let (ours, ours_text) = summary(&results["ours"][i]);
        let (rmcp, rmcp_text) = summary(&results["rmcp"][i]);
        let (fly, fly_text) = summary(&results["flymcprust"][i]);
        let (raw, raw_text) = summary(&results["raw loop"][i]);
        println!(
            "| {name} | {unit} | {ours_text} | {rmcp_text} | {fly_text} | {raw_text} | {:.2} | {:.2} | {:.2} |",
            ours / rmcp,
            ours / fly,
            ours / raw
        );
    }
    println!(
        "\n{} round(s); medians, with min–max over rounds when there are several. Every answer was checked.\n",
        plan.rounds
    );
}

fn print_http_table(results: &HttpResults, plan: http::HttpPlan) {
    let peers = ["floor", "ours", "rmcp", "flymcprust"];
    println!("## Streamable HTTP (calculator calls; each client its own keep-alive connection, one call at a time)\n");
    println!(
        "| era | clients | measurement | unit | floor | ours | rmcp | flymcprust | ours ÷ rmcp | ours ÷ flymcprust | \
         ours ÷ floor |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut warnings = Vec::new();
    for mode in http::Mode::ALL {
        let rows = http::CLIENTS.iter().enumerate().flat_map(|(at, clients)| {
            [("calls/s", "calls/s", 3 * at), ("p50", "µs", 3 * at + 1), ("p99", "µs", 3 * at + 2)]
                .map(|(what, unit, slot)| (clients.to_string(), what, unit, slot))
        });
        let rss = std::iter::once(("all".to_owned(), "peak RSS (VmHWM)", "MiB", 3 * http::CLIENTS.len()));
        for (clients, what, unit, slot) in rows.chain(rss) {
            let cells: Vec<Option<(f64, String)>> =
                peers.iter().map(|p| results.get(&(*p, mode)).map(|r| summary(&r[slot]))).collect();
            let texts: Vec<String> =
                cells.iter().map(|c| c.as_ref().map_or_else(|| "—".to_owned(), |(_, t)| t.clone())).collect();
            let value = |i: usize| cells[i].as_ref().map(|(v, _)| *v);
            let ratio = |other: usize| match (value(1), value(other)) {
                (Some(ours), Some(theirs)) => format!("{:.2}", ours / theirs),
                _ => "—".to_owned(),
            };
            println!(
                "| {} | {clients} | {what} | {unit} | {} | {} | {} | {} | {} | {} | {} |",
                mode.name(),
                texts[0],
                texts[1],
                texts[2],
                texts[3],
                ratio(2),
                ratio(3),
                ratio(0)
            );
            if clients == "1" && what == "p50" {
                let p50s = peers.iter().zip(&cells).filter_map(|(peer, cell)| Some((*peer, cell.as_ref()?.0)));
                warnings.extend(p50s.filter_map(|(peer, p50)| http::nagle_warning(peer, mode, p50)));
            }
        }
    }
    println!(
        "\n{} round(s); medians, with min–max over rounds when there are several. Every answer was checked.",
        plan.rounds
    );
    if warnings.is_empty() {
        println!(
            "No peer has a p50 above {} ms at 1 client (no Nagle/delayed-ACK signature).",
            http::NAGLE_SIGNATURE_MS
        );
    }
    for warning in warnings {
        println!("{warning}");
    }
    println!();
}

fn print_wrk_table(results: &HttpResults, notes: &[String], plan: wrk::WrkPlan) {
    let peers = ["floor", "ours", "rmcp", "flymcprust"];
    println!("## Streamable HTTP under wrk (calculator calls; `wrk -t1`, {} s per run)\n", plan.seconds);
    println!(
        "| era | connections | measurement | unit | floor | ours | rmcp | flymcprust | ours ÷ rmcp | ours ÷ flymcprust |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for mode in http::Mode::ALL {
        for (at, connections) in wrk::CONNECTIONS.iter().enumerate() {
            for (what, unit, slot) in
                [("calls/s", "calls/s", 3 * at), ("p50", "µs", 3 * at + 1), ("p99", "µs", 3 * at + 2)]
            {
                let cells: Vec<Option<(f64, String)>> =
                    peers.iter().map(|p| results.get(&(*p, mode)).map(|r| summary(&r[slot]))).collect();
                let text = |i: usize| cells[i].as_ref().map_or_else(|| "—".to_owned(), |(_, t)| t.clone());
                let ratio = |other: usize| match (&cells[1], &cells[other]) {
                    (Some((ours, _)), Some((theirs, _))) => format!("{:.2}", ours / theirs),
                    _ => "—".to_owned(),
                };
                println!(
                    "| {} | {connections} | {what} | {unit} | {} | {} | {} | {} | {} | {} |",
                    mode.name(),
                    text(0),
                    text(1),
                    text(2),
                    text(3),
                    ratio(2),
                    ratio(3)
                );
            }
        }
    }
    println!(
        "\n{} round(s); medians, with min–max over rounds when there are several. Every answer was checked by the \
         wrk script; in the session era a run's connections share one session.",
        plan.rounds
    );
    if notes.is_empty() {
        println!("No wrk run had socket errors.");
    } else {
        println!("Socket errors (connect, read, write, timeout; wrk reconnects, and no checked answer was wrong):");
    }
    for note in notes {
        println!("- {note}");
    }
    println!();
}

fn fmt(value: f64) -> String {
    if value >= 100.0 { format!("{value:.0}") } else { format!("{value:.2}") }
}
