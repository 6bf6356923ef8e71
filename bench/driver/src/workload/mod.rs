//! The published MCP workload ("MCP Server Performance Benchmark v2"):
//! its catalog service (`bench-workload-catalog`, a port of its Go service) and a
//! private Redis, seeded as its `seed.py` seeds; then each entry (ours,
//! `bench-workload`; the benchmark's rmcp entry; optionally its FastMCP
//! entry) driven by virtual users equal to its k6 script (`vu.rs`), in
//! alternating order for several rounds, Redis flushed and seeded again
//! before each run, as its runner does.
//!
//! ```sh
//! bash bench/workload.sh --seconds 60 --rounds 3   # builds what is missing, then runs this
//! mcp-bench --workload --rmcp PATH [--fastmcp DIR] [--seconds N] [--warmup N] [--rounds R] [--vus N] [--no-pin]
//! mcp-bench --workload --ours-only ...             # without the rmcp entry, to check ours
//! ```
//!
//! Requests/s counts what the script's `mcp_requests` counts (`initialize`,
//! `tools/call`, `tools/list`), answered after the warm-up; latencies are
//! the script's per-tool trends; server CPU and peak RSS come from
//! `/proc` (summed over the entry's processes).

mod procs;
mod vu;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use procs::{Cpu, Process, Usage};
use vu::{TIMED, Tally, Vu, Window};

type Error = Box<dyn std::error::Error>;

/// What the command line asked for.
struct Options {
    seconds: f64,
    warmup: f64,
    rounds: usize,
    vus: usize,
    rmcp: Option<PathBuf>,
    fastmcp: Option<PathBuf>,
    pin: bool,
    /// Without the rmcp entry (to check ours, or the FastMCP entry).
    ours_only: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, Error> {
        let value = |name: &str| args.iter().position(|a| a == name).and_then(|at| args.get(at + 1));
        let number = |name: &str, default: f64| -> Result<f64, Error> {
            value(name)
                .map_or(Ok(default), |v| v.parse().map_err(|_| format!("{name} takes a number, not {v:?}").into()))
        };
        Ok(Options {
            seconds: number("--seconds", 60.0)?,
            warmup: number("--warmup", 10.0)?,
            rounds: number("--rounds", 3.0)? as usize,
            vus: number("--vus", 50.0)? as usize,
            rmcp: value("--rmcp").map(PathBuf::from),
            fastmcp: value("--fastmcp").map(PathBuf::from),
            pin: !args.iter().any(|a| a == "--no-pin"),
            ours_only: args.iter().any(|a| a == "--ours-only"),
        })
    }
}

/// An entry: how to start it, serving `/mcp` and `/health` at `port`.
struct Entry {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    dir: Option<PathBuf>,
    port: u16,
}

/// One run of one entry.
struct Run {
    tally: Tally,
    seconds: f64,
    server: Usage,
    catalog: Cpu,
    redis: Cpu,
    driver: Cpu,
}

/// The whole scenario; an error if any check failed.
pub(crate) async fn run(args: &[String]) -> Result<(), Error> {
    let options = Options::parse(args)?;
    let exe = std::env::current_exe()?;
    let release = exe.parent().ok_or("no target directory")?;
    let work = release.parent().ok_or("no target directory")?.join("workload-run");
    std::fs::create_dir_all(work.join("redis"))?;
    let (server_cpus, other_cpus) = procs::cpu_sets(options.pin);
    let entries = entries(&options, release)?;

    let redis_port = procs::free_port()?;
    let redis_args = ["--port", &redis_port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    let mut redis_args: Vec<String> = redis_args.map(str::to_owned).to_vec();
    redis_args.extend(["--dir".to_owned(), work.join("redis").display().to_string()]);
    let redis =
        Process::start("redis-server".as_ref(), &redis_args, None, &[], other_cpus.as_deref(), &work.join("redis.log"))
            .map_err(|e| format!("redis-server could not be started ({e}); .ci/install-services installs it"))?;
    procs::wait_for_port(redis_port).await?;
    let redis_url = format!("redis://127.0.0.1:{redis_port}/");
    let catalog_port = procs::free_port()?;
    let catalog_binary = release.join("bench-workload-catalog");
    let mut catalog = Process::start(
        &catalog_binary,
        &["serve".to_owned(), format!("127.0.0.1:{catalog_port}")],
        None,
        &[],
        other_cpus.as_deref(),
        &work.join("catalog.log"),
    )?;
    procs::wait_for_health(catalog_port, &mut catalog).await?;
    let api = format!("http://127.0.0.1:{catalog_port}");
    if let Some(cpus) = &other_cpus {
        procs::pin_self(cpus)?;
    }
    println!(
        "workload: {} virtual users, {} s warm-up, {} s measured, {} round(s); entries on CPUs {}, catalog service, \
         Redis and load generator on CPUs {}\n",
        options.vus,
        options.warmup,
        options.seconds,
        options.rounds,
        server_cpus.as_deref().unwrap_or("any"),
        other_cpus.as_deref().unwrap_or("any"),
    );

    let mut results: Vec<Vec<Run>> = entries.iter().map(|_| Vec::new()).collect();
    for round in 0..options.rounds {
        // Alternating order: each round starts with the next entry.
        for turn in 0..entries.len() {
            let at = (round + turn) % entries.len();
            let entry = &entries[at];
            seed(&catalog_binary, &redis_url, other_cpus.as_deref()).await?;
            let env = [("API_SERVICE_URL", api.as_str()), ("REDIS_URL", redis_url.as_str())];
            let file: String = entry.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
            let log = work.join(format!("{file}-round{}.log", round + 1));
            let run =
                measure(entry, &env, server_cpus.as_deref(), &log, &options, [catalog.pid(), redis.pid()]).await?;
            eprintln!(
                "round {}: {}: {:.0} MCP requests/s, {} failed check(s)",
                round + 1,
                entry.name,
                run.tally.mcp_requests as f64 / run.seconds,
                run.tally.failures
            );
            results[at].push(run);
        }
    }
    drop((catalog, redis));
    print_table(&entries, &results, &options);
    let failures: u64 = results.iter().flatten().map(|r| r.tally.failures).sum();
    if failures > 0 {
        for (entry, runs) in entries.iter().zip(&results) {
            for failure in runs.iter().flat_map(|r| &r.tally.first_failures) {
                eprintln!("{}: {failure}", entry.name);
            }
        }
        return Err(format!("{failures} request(s) failed or answered wrongly; the figures are not valid").into());
    }
    Ok(())
}

/// Ours, the rmcp entry, and the FastMCP entry if asked for.
fn entries(options: &Options, release: &Path) -> Result<Vec<Entry>, Error> {
    let port = procs::free_port()?;
    let mut entries = vec![Entry {
        name: "ours",
        program: release.join("bench-workload"),
        args: vec!["--http".into(), format!("127.0.0.1:{port}")],
        dir: None,
        port,
    }];
    // The same entry answering without session ids, as the rmcp entry
    // does: the handshake's cost with and without a session to keep.
    let port = procs::free_port()?;
    entries.push(Entry {
        name: "ours (no session ids)",
        program: release.join("bench-workload"),
        args: vec!["--no-session-ids".into(), "--http".into(), format!("127.0.0.1:{port}")],
        dir: None,
        port,
    });
    if !options.ours_only {
        let rmcp = options.rmcp.clone().ok_or("--rmcp PATH: the rmcp entry's binary (bench/workload.sh builds it)")?;
        // As published, it listens on 0.0.0.0:8095.
        if std::net::TcpStream::connect(("127.0.0.1", 8095)).is_ok() {
            return Err("port 8095, where the rmcp entry listens, is taken".into());
        }
        entries.push(Entry { name: "rmcp", program: rmcp, args: Vec::new(), dir: None, port: 8095 });
    }
    if let Some(dir) = &options.fastmcp {
        // As its Dockerfile runs it: uvicorn, 4 workers, uvloop.
        let port = procs::free_port()?;
        let args =
            ["main:app", "--host", "127.0.0.1", "--port", &port.to_string(), "--workers", "4", "--loop", "uvloop"];
        entries.push(Entry {
            name: "fastmcp",
            program: dir.join("venv/bin/uvicorn"),
            args: args.map(str::to_owned).to_vec(),
            dir: Some(dir.clone()),
            port,
        });
    }
    for entry in &entries {
        if !entry.program.is_file() {
            return Err(format!("{} is missing (bench/workload.sh builds it)", entry.program.display()).into());
        }
    }
    Ok(entries)
}

/// Flush Redis and seed it again, as the benchmark does before each server.
async fn seed(catalog: &Path, redis_url: &str, cpus: Option<&str>) -> Result<(), Error> {
    let (program, mut args) = procs::pinned(catalog, cpus);
    args.extend(["seed".to_owned(), redis_url.to_owned(), "--flush".to_owned()]);
    let status = tokio::process::Command::new(program).args(args).status().await?;
    if !status.success() {
        return Err(format!("seeding Redis failed: {status}").into());
    }
    Ok(())
}

/// Start `entry`, drive it through the warm-up and the measured window,
/// read its CPU and memory, and stop it.
async fn measure(
    entry: &Entry,
    env: &[(&str, &str)],
    cpus: Option<&str>,
    log: &Path,
    options: &Options,
    [catalog, redis]: [u32; 2],
) -> Result<Run, Error> {
    let mut server = Process::start(&entry.program, &entry.args, entry.dir.as_deref(), env, cpus, log)?;
    procs::wait_for_health(entry.port, &mut server).await?;
    let url = format!("http://127.0.0.1:{}/mcp", entry.port);
    let start = Instant::now();
    let window = Window {
        from: start + Duration::from_secs_f64(options.warmup),
        until: start + Duration::from_secs_f64(options.warmup + options.seconds),
    };
    let mut users = Vec::with_capacity(options.vus);
    for number in 1..=options.vus {
        users.push(tokio::spawn(Vu::new(number, &url).map_err(|e| e.to_string())?.run(window)));
    }
    tokio::time::sleep_until(window.from.into()).await;
    let before = (server.usage()?, Cpu::of(catalog)?, Cpu::of(redis)?, Cpu::own()?);
    tokio::time::sleep_until(window.until.into()).await;
    let after = (server.usage()?, Cpu::of(catalog)?, Cpu::of(redis)?, Cpu::own()?);
    let seconds = window.until.duration_since(window.from).as_secs_f64();
    let mut tally = Tally::default();
    for user in users {
        tally.merge(user.await?);
    }
    let peak = server.usage()?.peak_rss_mib;
    server.stop().await;
    Ok(Run {
        tally,
        seconds,
        server: Usage { cpu: after.0.cpu - before.0.cpu, peak_rss_mib: peak },
        catalog: after.1 - before.1,
        redis: after.2 - before.2,
        driver: after.3 - before.3,
    })
}

/// One row's figure of one run.
type Figure = fn(&Run) -> f64;

/// A row of the table: its name, its unit, and its figure of a run.
type Row = (String, &'static str, Box<dyn Fn(&Run) -> f64>);

fn print_table(entries: &[Entry], results: &[Vec<Run>], options: &Options) {
    let latency = |slot: usize, q: f64| {
        move |run: &Run| {
            let mut values = run.tally.latencies[slot].clone();
            values.sort_by(f64::total_cmp);
            crate::percentile(&values, q) / 1e3
        }
    };
    let mut rows: Vec<Row> = vec![(
        "MCP requests/s (initialize + tools/call + tools/list)".into(),
        "req/s",
        Box::new((|r: &Run| r.tally.mcp_requests as f64 / r.seconds) as Figure),
    )];
    for (slot, name) in TIMED.iter().enumerate() {
        let quantiles: &[(&str, f64)] =
            if slot < 3 { &[("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] } else { &[("p50", 0.5)] };
        for &(label, q) in quantiles {
            rows.push((format!("{name} {label}"), "ms", Box::new(latency(slot, q))));
        }
    }
    let more: [(&str, &str, Figure); 7] = [
        ("HTTP requests per MCP request", "", |r| r.tally.http_requests as f64 / r.tally.mcp_requests as f64),
        ("server CPU per 1k MCP requests", "s", |r| r.server.cpu.seconds() / r.tally.mcp_requests as f64 * 1e3),
        ("server CPU", "% of a core", |r| r.server.cpu.seconds() / r.seconds * 100.0),
        ("peak RSS (VmHWM, summed over its processes)", "MiB", |r| r.server.peak_rss_mib),
        ("catalog service CPU", "% of a core", |r| r.catalog.seconds() / r.seconds * 100.0),
        ("Redis CPU", "% of a core", |r| r.redis.seconds() / r.seconds * 100.0),
        ("load generator CPU", "% of a core", |r| r.driver.seconds() / r.seconds * 100.0),
    ];
    rows.extend(
        more.into_iter().map(|(name, unit, f)| (name.to_owned(), unit, Box::new(f) as Box<dyn Fn(&Run) -> f64>)),
    );
    rows.push((
        "failed checks and requests (all, warm-up included)".into(),
        "",
        Box::new(|r: &Run| r.tally.failures as f64),
    ));

    println!("## The published MCP workload (MCP Server Performance Benchmark v2)\n");
    let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
    // Each of our entries against each peer's.
    let ours: Vec<usize> = (0..names.len()).filter(|&i| names[i].starts_with("ours")).collect();
    let peers: Vec<usize> = (0..names.len()).filter(|&i| !names[i].starts_with("ours")).collect();
    let pairs: Vec<(usize, usize)> = ours.iter().flat_map(|&o| peers.iter().map(move |&p| (o, p))).collect();
    let header: Vec<String> = names
        .iter()
        .map(|n| n.to_string())
        .chain(pairs.iter().map(|&(o, p)| format!("{} ÷ {}", names[o], names[p])))
        .collect();
    println!("| measurement | unit | {} |", header.join(" | "));
    println!("|---|---|{}", "---|".repeat(header.len()));
    for (name, unit, figure) in &rows {
        let cells: Vec<(f64, String)> =
            results.iter().map(|runs| crate::summary(&runs.iter().map(figure).collect::<Vec<_>>())).collect();
        let mut texts: Vec<String> = cells.iter().map(|(_, t)| t.clone()).collect();
        // A ratio of two zeros (no failed checks) is no ratio.
        let ratio = |(o, p): (usize, usize)| {
            if cells[p].0 == 0.0 { "—".to_owned() } else { format!("{:.2}", cells[o].0 / cells[p].0) }
        };
        texts.extend(pairs.iter().map(|&pair| ratio(pair)));
        println!("| {name} | {unit} | {} |", texts.join(" | "));
    }
    println!(
        "\n{} virtual users, each iteration a session per tool call and one for tools/list, then 50 ms; {} s warm-up \
         excluded, {} s measured, {} round(s) in alternating order; medians, with min–max over rounds when there are \
         several. Every answer was checked as the benchmark's script checks it.\n",
        options.vus, options.warmup, options.seconds, options.rounds
    );
}
