//! The scale-out run: three replicas of `examples/replicated.rs` sharing
//! one Redis, behind HAProxy, all on loopback; clients of both eras drive
//! mixed calls through the load balancer while one replica is killed
//! (SIGKILL) half-way and started again. Reports the answers lost per era,
//! the sessions that had to start over, calls/s against one replica alone
//! and through the balancer, and how the calls spread over the replicas.
//!
//! ```sh
//! deploy/scale-out/run            # 10,000 calls
//! deploy/scale-out/run --calls 1000
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

use crate::http::{SendError, answer_messages};
use mcp_core::http as mcp_http;
use mcp_core::{ProtocolVersion, envelope, methods};

/// What the run is asked to do.
pub(crate) struct Plan {
    pub(crate) calls: usize,
    pub(crate) clients: usize,
    /// How long the failover run is spread over, so the kill and the
    /// restart both fall inside it.
    pub(crate) seconds: f64,
}

/// The era of a client's calls.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Era {
    Session,
    Stateless,
}

impl Era {
    fn name(self) -> &'static str {
        match self {
            Era::Session => "session (2025-11-25)",
            Era::Stateless => "stateless (2026-07-28)",
        }
    }
}

/// Every process of the run; killed when dropped.
struct Cluster {
    dir: PathBuf,
    binary: PathBuf,
    redis: Child,
    redis_url: String,
    replicas: Vec<(u16, Child)>,
    balancer: Option<Child>,
    key: String,
}

fn free_port() -> Result<u16, SendError> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Start replica `name` of the example on `port`, sharing Redis and the
/// request-state key with the others, once it listens.
async fn spawn_replica(binary: &Path, redis_url: &str, key: &str, name: &str, port: u16) -> Result<Child, SendError> {
    let child = Command::new(binary)
        .args(["--http", &format!("127.0.0.1:{port}")])
        .env("REDIS_URL", redis_url)
        .env("MCP_REQUEST_STATE_KEY", key)
        .env("REPLICA", name)
        .env("MCP_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    wait_for_port(port, &format!("replica {name}")).await?;
    Ok(child)
}

async fn wait_for_port(port: u16, what: &str) -> Result<(), SendError> {
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(format!("{what} did not open port {port} within 6 s").into())
}

/// A program from the machine's packages, which may live in `sbin`.
fn program(name: &str) -> Result<PathBuf, SendError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/local/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| format!("{name} is not installed (.ci/install-services installs it)").into())
}

impl Cluster {
    async fn start(binary: PathBuf, replicas: usize) -> Result<Cluster, SendError> {
        let dir = std::env::temp_dir().join(format!("mcp-scale-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let port = free_port()?;
        let redis = Command::new(program("redis-server")?)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        wait_for_port(port, "redis-server").await?;
        let key: String = (0..4).map(|_| format!("{:016x}", rand_u64())).collect();
        let mut cluster = Cluster {
            dir,
            binary,
            redis,
            redis_url: format!("redis://127.0.0.1:{port}/"),
            replicas: Vec::new(),
            balancer: None,
            key,
        };
        for n in 0..replicas {
            let port = free_port()?;
            let child = cluster.spawn_replica(n, port).await?;
            cluster.replicas.push((port, child));
        }
        Ok(cluster)
    }

    async fn spawn_replica(&self, n: usize, port: u16) -> Result<Child, SendError> {
        spawn_replica(&self.binary, &self.redis_url, &self.key, &format!("r{}", n + 1), port).await
    }

    /// HAProxy in front of the replicas: round robin for requests without
    /// a session, each session stuck to the replica that answered its
    /// `initialize` (and moved when that one is down: any replica can take
    /// it up from Redis); a request that fails to connect, or whose
    /// replica dies before answering, is sent to another replica.
    async fn start_balancer(&mut self) -> Result<u16, SendError> {
        let port = free_port()?;
        let servers: String = self
            .replicas
            .iter()
            .enumerate()
            .map(|(n, (p, _))| format!("    server r{} 127.0.0.1:{p} check inter 200ms fall 1 rise 2\n", n + 1))
            .collect();
        let config = format!(
            "global\n    maxconn 4096\n\n\
             defaults\n    mode http\n    timeout connect 1s\n    timeout client 60s\n    timeout server 60s\n    \
             option http-buffer-request\n    retries 3\n    option redispatch 1\n    \
             retry-on conn-failure empty-response response-timeout 502 503 504\n\n\
             frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\n\
             backend replicas\n    balance roundrobin\n    \
             stick-table type string len 64 size 100k expire 30m\n    \
             stick on req.hdr(mcp-session-id)\n    stick store-response res.hdr(mcp-session-id)\n{servers}"
        );
        let path = self.dir.join("haproxy.cfg");
        std::fs::write(&path, config)?;
        let balancer = Command::new(program("haproxy")?)
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        self.balancer = Some(balancer);
        wait_for_port(port, "haproxy").await?;
        Ok(port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.redis.start_kill();
        for (_, child) in &mut self.replicas {
            let _ = child.start_kill();
        }
        if let Some(balancer) = &mut self.balancer {
            let _ = balancer.start_kill();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Random enough for a test key and for spreading ids.
fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    hasher.finish()
}

/// What happened to one call.
enum Outcome {
    /// Answered right, by this replica.
    Answered(String),
    /// Not answered right: why.
    Lost(String),
    /// The session was not found: it must start over.
    SessionGone,
}

/// One client on one keep-alive connection, one call at a time.
struct Client {
    port: u16,
    era: Era,
    sender: Option<SendRequest<Full<Bytes>>>,
    session: Option<String>,
    next_id: i64,
    base: i64,
}

impl Client {
    fn new(port: u16, era: Era, n: usize) -> Client {
        Client { port, era, sender: None, session: None, next_id: 0, base: n as i64 * 1_000_000_000 }
    }

    async fn connection(&mut self) -> Result<&mut SendRequest<Full<Bytes>>, SendError> {
        if self.sender.as_ref().is_none_or(|s| s.is_closed()) {
            let stream = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await?;
            stream.set_nodelay(true)?;
            let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
            tokio::spawn(connection);
            self.sender = Some(sender);
        }
        Ok(self.sender.as_mut().expect("just connected"))
    }

    async fn post(
        &mut self,
        message: &Value,
        extra: &[(&str, &str)],
    ) -> Result<(hyper::StatusCode, hyper::HeaderMap, Vec<Value>), SendError> {
        let mut request = hyper::Request::post("/mcp")
            .header("host", format!("127.0.0.1:{}", self.port))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(id) = &self.session {
            request = request
                .header(mcp_http::SESSION_ID, id)
                .header(mcp_http::PROTOCOL_VERSION, ProtocolVersion::LATEST_HANDSHAKE.as_str());
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(Bytes::from(serde_json::to_vec(message)?)))?;
        let outcome = tokio::time::timeout(Duration::from_secs(30), async {
            let sender = self.connection().await?;
            sender.ready().await?;
            let response = sender.send_request(request).await?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await?.to_bytes();
            Ok::<_, SendError>((parts, body))
        })
        .await
        .map_err(|_| SendError::from("no answer within 30 s"))
        .and_then(|r| r);
        let (parts, body) = match outcome {
            Ok(answer) => answer,
            Err(error) => {
                self.sender = None;
                return Err(error);
            }
        };
        let messages = answer_messages(&parts.headers, &body)?;
        Ok((parts.status, parts.headers, messages))
    }

    async fn open_session(&mut self) -> Result<(), SendError> {
        self.session = None;
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": methods::INITIALIZE, "params": {
            "protocolVersion": ProtocolVersion::LATEST_HANDSHAKE.as_str(), "capabilities": {},
            "clientInfo": {"name": "scale-out", "version": "1"}}});
        let (status, headers, _) = self.post(&init, &[]).await?;
        let id = headers.get(mcp_http::SESSION_ID).and_then(|v| v.to_str().ok());
        let id = id.ok_or_else(|| format!("initialize: HTTP {status}, no session id"))?;
        self.session = Some(id.to_owned());
        let initialized = json!({"jsonrpc": "2.0", "method": methods::INITIALIZED});
        self.post(&initialized, &[]).await?;
        Ok(())
    }

    /// One checked `add` call.
    async fn call(&mut self) -> Outcome {
        if self.era == Era::Session
            && self.session.is_none()
            && let Err(error) = self.open_session().await
        {
            return Outcome::Lost(format!("initialize failed: {error}"));
        }
        self.next_id += 1;
        let id = self.next_id;
        let a = self.base + id;
        let mut params = json!({"name": "add", "arguments": {"a": a, "b": 1}});
        let mirrored: &[(&str, &str)] = match self.era {
            Era::Session => &[],
            Era::Stateless => {
                params["_meta"] = json!({envelope::PROTOCOL_VERSION: ProtocolVersion::LATEST.as_str(),
                    envelope::CLIENT_CAPABILITIES: {}});
                &[
                    (mcp_http::PROTOCOL_VERSION, ProtocolVersion::LATEST.as_str()),
                    (mcp_http::MCP_METHOD, methods::TOOLS_CALL),
                    (mcp_http::MCP_NAME, "add"),
                ]
            }
        };
        let request = json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params});
        let (status, _, messages) = match self.post(&request, mirrored).await {
            Ok(answer) => answer,
            Err(error) => return Outcome::Lost(format!("transport: {error}")),
        };
        if status == 404 && self.era == Era::Session {
            self.session = None;
            return Outcome::SessionGone;
        }
        if status != 200 {
            return Outcome::Lost(format!("HTTP {status}"));
        }
        let Some(answer) = messages.into_iter().find(|m| m["id"] == json!(id)) else {
            return Outcome::Lost("no answer in the body".into());
        };
        let result = &answer["result"]["structuredContent"];
        if result["sum"] != json!(a + 1) {
            return Outcome::Lost(format!("wrong answer: {answer}"));
        }
        Outcome::Answered(result["replica"].as_str().unwrap_or("?").to_owned())
    }
}

/// The tallies of one era.
#[derive(Default)]
struct Tally {
    answered: usize,
    lost: usize,
    sessions_gone: usize,
    /// Session clients whose calls more than one replica answered.
    moved: usize,
    clients: usize,
    by_replica: BTreeMap<String, usize>,
    latencies_us: Vec<f64>,
    reasons: BTreeMap<String, usize>,
}

/// Drive `calls` calls with `clients` clients against `port`, each client
/// waiting `pace` between calls (none: as fast as answers come); call
/// `midway` once half of them are done.
async fn drive(
    port: u16,
    calls: usize,
    clients: usize,
    pace: Option<Duration>,
    midway: impl FnOnce() -> tokio::task::JoinHandle<Result<(), SendError>>,
) -> Result<(BTreeMap<Era, Tally>, f64), SendError> {
    let done = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for n in 0..clients {
        let era = if n % 2 == 0 { Era::Session } else { Era::Stateless };
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            let mut client = Client::new(port, era, n);
            let mut tally = Tally { clients: 1, ..Tally::default() };
            let mut ticks = pace.map(tokio::time::interval);
            while done.fetch_add(1, Ordering::Relaxed) < calls {
                if let Some(ticks) = &mut ticks {
                    ticks.tick().await;
                }
                let t = Instant::now();
                match client.call().await {
                    Outcome::Answered(replica) => {
                        tally.answered += 1;
                        tally.latencies_us.push(t.elapsed().as_secs_f64() * 1e6);
                        *tally.by_replica.entry(replica).or_default() += 1;
                    }
                    Outcome::Lost(reason) => {
                        tally.lost += 1;
                        *tally.reasons.entry(reason).or_default() += 1;
                    }
                    Outcome::SessionGone => tally.sessions_gone += 1,
                }
            }
            if era == Era::Session && tally.by_replica.len() > 1 {
                tally.moved = 1;
            }
            (era, tally)
        }));
    }
    let half = calls / 2;
    while done.load(Ordering::Relaxed) < half && tasks.iter().any(|t| !t.is_finished()) {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let killer = midway();
    let mut tallies: BTreeMap<Era, Tally> = BTreeMap::new();
    for task in tasks {
        let (era, tally) = task.await?;
        let into = tallies.entry(era).or_default();
        into.answered += tally.answered;
        into.lost += tally.lost;
        into.sessions_gone += tally.sessions_gone;
        into.moved += tally.moved;
        into.clients += tally.clients;
        into.latencies_us.extend(tally.latencies_us);
        for (replica, count) in tally.by_replica {
            *into.by_replica.entry(replica).or_default() += count;
        }
        for (reason, count) in tally.reasons {
            *into.reasons.entry(reason).or_default() += count;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    killer.await??;
    Ok((tallies, elapsed))
}

/// Build the replica server and return its path.
fn build() -> Result<PathBuf, SendError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--quiet", "--release", "-p", "mcp-examples", "--example", "replicated", "--features", "redis"])
        .status()?;
    if !status.success() {
        return Err("building the replicated example failed".into());
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().ok_or("no target directory")?;
    Ok(dir.join("examples").join(format!("replicated{}", std::env::consts::EXE_SUFFIX)))
}

fn total(tallies: &BTreeMap<Era, Tally>) -> usize {
    tallies.values().map(|t| t.answered).sum()
}

/// The whole run; an error if any stateless answer was lost.
pub(crate) async fn run(plan: Plan) -> Result<(), SendError> {
    let binary = build()?;
    if !Path::new(&binary).is_file() {
        return Err(format!("{} was not built", binary.display()).into());
    }
    let mut cluster = Cluster::start(binary, 3).await?;
    let single_calls = (plan.calls / 2).max(100);
    let direct = cluster.replicas[0].0;
    let nothing = || tokio::spawn(async { Ok(()) });
    let (single, single_elapsed) = drive(direct, single_calls, plan.clients, None, nothing).await?;
    let single_rate = total(&single) as f64 / single_elapsed;
    let balancer = cluster.start_balancer().await?;
    let (through, through_elapsed) = drive(balancer, single_calls, plan.clients, None, nothing).await?;
    let through_rate = total(&through) as f64 / through_elapsed;
    // The replica to kill half-way: its port, and its child taken out so
    // the killer task owns it.
    let (victim_port, victim) = cluster.replicas.remove(1);
    let (binary, redis_url, key) = (cluster.binary.clone(), cluster.redis_url.clone(), cluster.key.clone());
    let restart = Arc::new(std::sync::Mutex::new(None::<Child>));
    let restarted = restart.clone();
    let events = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = events.clone();
    let started = Instant::now();
    let pace = Duration::from_secs_f64(plan.seconds * plan.clients as f64 / plan.calls as f64);
    let (mut tallies, _) = drive(balancer, plan.calls, plan.clients, Some(pace), move || {
        tokio::spawn(async move {
            let mut victim = victim;
            victim.start_kill()?;
            victim.wait().await?;
            log.lock().unwrap().push(format!("r2 killed (SIGKILL) at {:.2} s", started.elapsed().as_secs_f64()));
            tokio::time::sleep(Duration::from_millis(500)).await;
            let child = spawn_replica(&binary, &redis_url, &key, "r2", victim_port).await?;
            log.lock().unwrap().push(format!("r2 listening again at {:.2} s", started.elapsed().as_secs_f64()));
            *restarted.lock().unwrap() = Some(child);
            Ok(())
        })
    })
    .await?;

    println!("## Scale-out: 3 replicas behind HAProxy, sharing Redis, one killed half-way\n");
    println!(
        "{} calls over {:.0} s from {} clients (half of them in sessions, half stateless), through HAProxy round \
         robin with sessions stuck by `Mcp-Session-Id`; {}.\n",
        plan.calls,
        plan.seconds,
        plan.clients,
        events.lock().unwrap().join("; ")
    );
    println!(
        "| era | calls answered | answers lost | sessions started over | sessions moved to another replica | p50 | p99 | r1 | r2 | r3 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (era, tally) in &mut tallies {
        tally.latencies_us.sort_by(f64::total_cmp);
        let share = |r: &str| tally.by_replica.get(r).copied().unwrap_or(0);
        println!(
            "| {} | {} | {} | {} | {} | {:.2} ms | {:.2} ms | {} | {} | {} |",
            era.name(),
            tally.answered,
            tally.lost,
            tally.sessions_gone,
            if *era == Era::Session { format!("{} of {}", tally.moved, tally.clients) } else { "—".into() },
            crate::percentile(&tally.latencies_us, 0.5) / 1e3,
            crate::percentile(&tally.latencies_us, 0.99) / 1e3,
            share("r1"),
            share("r2"),
            share("r3"),
        );
    }
    println!(
        "\nUnpaced, {single_calls} calls each, same clients: {through_rate:.0} calls/s through the balancer (3 \
         replicas), {single_rate:.0} against one replica alone ({:.2}×); one 2-core machine runs every process.",
        through_rate / single_rate
    );
    let mut failed = false;
    for (era, tally) in &tallies {
        for (reason, count) in &tally.reasons {
            println!("lost ({}): {count} × {reason}", era.name());
        }
        if *era == Era::Stateless && tally.lost > 0 {
            failed = true;
        }
    }
    for (era, tally) in single.iter().chain(&through) {
        if tally.lost > 0 {
            println!("lost against one replica ({}): {}", era.name(), tally.lost);
            failed = true;
        }
    }
    drop(restart.lock().unwrap().take());
    drop(cluster);
    if failed {
        return Err("answers were lost".into());
    }
    Ok(())
}
