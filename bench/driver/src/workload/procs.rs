//! The processes of the workload run: started in process groups of their
//! own (an entry may be several processes, as uvicorn's workers are),
//! pinned with `taskset`, watched through `/proc`, and stopped as a group.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

type Error = Box<dyn std::error::Error>;

/// CPU time, in clock ticks (`/proc/<pid>/stat`'s `utime + stime`).
#[derive(Clone, Copy, Default)]
pub(crate) struct Cpu(u64);

impl Cpu {
    /// A process's CPU time.
    pub(crate) fn of(pid: u32) -> Result<Cpu, Error> {
        let fields = stat(pid).ok_or_else(|| format!("process {pid} is gone"))?;
        Ok(Cpu(fields.utime + fields.stime))
    }

    /// This process's own.
    pub(crate) fn own() -> Result<Cpu, Error> {
        Cpu::of(std::process::id())
    }

    pub(crate) fn seconds(self) -> f64 {
        self.0 as f64 / ticks_per_second()
    }
}

impl std::ops::Sub for Cpu {
    type Output = Cpu;
    fn sub(self, earlier: Cpu) -> Cpu {
        Cpu(self.0.saturating_sub(earlier.0))
    }
}

/// A process group's CPU time and the sum of its processes' peak RSS.
pub(crate) struct Usage {
    pub(crate) cpu: Cpu,
    pub(crate) peak_rss_mib: f64,
}

/// The fields of `/proc/<pid>/stat` used here.
struct Stat {
    group: u32,
    utime: u64,
    stime: u64,
}

fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command's closing parenthesis: state, ppid, pgrp, ….
    let fields: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    Some(Stat {
        group: fields.get(2)?.parse().ok()?,
        utime: fields.get(11)?.parse().ok()?,
        stime: fields.get(12)?.parse().ok()?,
    })
}

fn ticks_per_second() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        let output = std::process::Command::new("getconf").arg("CLK_TCK").output().ok();
        output.and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok()).unwrap_or(100.0)
    })
}

/// A started process, leader of its own group; the group is killed when
/// this is dropped.
pub(crate) struct Process {
    child: tokio::process::Child,
    pid: u32,
    log: PathBuf,
}

impl Process {
    /// Start `program` (pinned to `cpus` if given), its stdout and stderr
    /// into `log`.
    pub(crate) fn start(
        program: &Path,
        args: &[String],
        dir: Option<&Path>,
        env: &[(&str, &str)],
        cpus: Option<&str>,
        log: &Path,
    ) -> Result<Process, Error> {
        let (program, mut pinned_args) = pinned(program, cpus);
        pinned_args.extend(args.iter().cloned());
        let out = std::fs::File::create(log)?;
        let mut command = tokio::process::Command::new(program);
        command.args(pinned_args).stdin(Stdio::null()).stdout(out.try_clone()?).stderr(out).process_group(0);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        command.envs(env.iter().copied());
        let child = command.spawn()?;
        let pid = child.id().ok_or("the process exited at once")?;
        Ok(Process { child, pid, log: log.to_owned() })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// CPU time and peak RSS summed over the process's group.
    pub(crate) fn usage(&self) -> Result<Usage, Error> {
        let mut usage = Usage { cpu: Cpu::default(), peak_rss_mib: 0.0 };
        for entry in std::fs::read_dir("/proc")? {
            let Some(pid) = entry?.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            let Some(stat) = stat(pid) else { continue };
            if stat.group == self.pid {
                usage.cpu.0 += stat.utime + stat.stime;
                usage.peak_rss_mib += crate::memory_mib(pid, "VmHWM").unwrap_or(0.0);
            }
        }
        Ok(usage)
    }

    /// An error if the process has exited, naming its log.
    fn check_alive(&mut self) -> Result<(), Error> {
        match self.child.try_wait()? {
            Some(status) => Err(format!("it exited ({status}); see {}", self.log.display()).into()),
            None => Ok(()),
        }
    }

    /// SIGTERM to the group, then SIGKILL after 3 s.
    pub(crate) async fn stop(mut self) {
        signal_group(self.pid, "-TERM");
        if tokio::time::timeout(Duration::from_secs(3), self.child.wait()).await.is_err() {
            signal_group(self.pid, "-KILL");
            let _ = self.child.wait().await;
        }
        // Workers that outlived their parent.
        signal_group(self.pid, "-KILL");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        signal_group(self.pid, "-KILL");
        let _ = self.child.try_wait();
    }
}

fn signal_group(pid: u32, signal: &str) {
    let _ = std::process::Command::new("kill").args([signal, "--", &format!("-{pid}")]).stderr(Stdio::null()).status();
}

/// `program` run under `taskset -c cpus` when `cpus` is given.
pub(crate) fn pinned(program: &Path, cpus: Option<&str>) -> (PathBuf, Vec<String>) {
    match cpus {
        Some(cpus) => ("taskset".into(), vec!["-c".into(), cpus.into(), program.display().to_string()]),
        None => (program.to_owned(), Vec::new()),
    }
}

/// The CPUs for the entries and for everything else: the entry on one of
/// two or three CPUs (on two of four or more, the benchmark's two-CPU
/// limit), the catalog service, Redis and the load generator on the rest.
/// `None`s: no pinning (asked, `taskset` missing, or one CPU).
pub(crate) fn cpu_sets(pin: bool) -> (Option<String>, Option<String>) {
    let taskset = std::process::Command::new("taskset").arg("-V").stdout(Stdio::null()).status();
    if !pin || !taskset.is_ok_and(|s| s.success()) {
        if pin {
            eprintln!("workload: taskset is missing; nothing is pinned");
        }
        return (None, None);
    }
    let cpus = allowed_cpus();
    let server = match cpus.len() {
        0 | 1 => return (None, None),
        2 | 3 => 1,
        _ => 2,
    };
    let (others, servers) = cpus.split_at(cpus.len() - server);
    let list = |cpus: &[usize]| cpus.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    (Some(list(servers)), Some(list(others)))
}

/// The CPUs this process may run on (`Cpus_allowed_list`, e.g. `0-3,6`).
fn allowed_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap_or_default();
    let mut cpus = Vec::new();
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(lo), Ok(hi)) = (lo.parse::<usize>(), hi.parse::<usize>()) {
            cpus.extend(lo..=hi);
        }
    }
    cpus
}

/// Pin this process's threads to `cpus`.
pub(crate) fn pin_self(cpus: &str) -> Result<(), Error> {
    let status = std::process::Command::new("taskset")
        .args(["-a", "-cp", cpus, &std::process::id().to_string()])
        .stdout(Stdio::null())
        .status()?;
    if !status.success() {
        return Err(format!("taskset could not pin the load generator to CPUs {cpus}").into());
    }
    Ok(())
}

/// A loopback port nothing listens on now.
pub(crate) fn free_port() -> Result<u16, Error> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Wait until something listens on `port` (30 s at most).
pub(crate) async fn wait_for_port(port: u16) -> Result<(), Error> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        if Instant::now() > deadline {
            return Err(format!("nothing listened on port {port} within 30 s").into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Wait until `GET /health` on `port` answers 200 (60 s at most; an error
/// at once if the process exits).
pub(crate) async fn wait_for_health(port: u16, process: &mut Process) -> Result<(), Error> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if health(port).await.unwrap_or(false) {
            return Ok(());
        }
        process.check_alive()?;
        if Instant::now() > deadline {
            return Err(format!("GET /health on port {port} did not answer 200 within 60 s").into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn health(port: u16) -> Result<bool, Error> {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let request = format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await??;
    Ok(answer.starts_with(b"HTTP/1.1 200"))
}
