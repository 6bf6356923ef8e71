//! A server started as a child process, spoken to over its stdin and
//! stdout; its stderr passed through, captured or dropped. The child ends
//! with the client.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::lines::Lines;
use super::{Inbox, Outbound, Wire};
use crate::Error;

/// What becomes of a child server's stderr (its log).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stderr {
    /// Written to this process's stderr.
    #[default]
    Inherit,
    /// Kept (the last 64 KiB) for [`Client::server_log`](crate::Client::server_log),
    /// and each line given to [`ClientBuilder::on_stderr_line`](crate::ClientBuilder::on_stderr_line).
    Capture,
    /// Dropped.
    Null,
}

/// What hears each line of a child's stderr ([`ClientBuilder::on_stderr_line`](crate::ClientBuilder::on_stderr_line)).
pub(crate) type StderrLine = Arc<dyn Fn(&str) + Send + Sync>;

/// How much of a child's stderr is kept.
const KEPT_LOG: usize = 64 * 1024;

/// The longest line of a child's stderr kept (and heard): the rest of a
/// longer one is dropped.
const LOG_LINE: usize = 16 * 1024;

/// How long a child is given to exit once its input is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

pub(crate) struct ChildWire {
    lines: Lines,
    child: tokio::sync::Mutex<Option<Child>>,
    log: Option<Arc<Mutex<VecDeque<u8>>>>,
}

/// How a child server is started, beyond its command line.
#[derive(Clone, Default)]
pub(crate) struct ChildOptions {
    pub(crate) stderr: Stderr,
    pub(crate) on_line: Option<StderrLine>,
    /// Variables set in its environment (on top of this process's).
    pub(crate) env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
}

impl ChildWire {
    /// Start `program` and speak to it over its stdio, reading lines of up
    /// to `max_line` bytes.
    pub(crate) fn spawn(
        program: &OsStr,
        args: &[std::ffi::OsString],
        options: &ChildOptions,
        max_line: usize,
        inbox: Inbox,
    ) -> Result<ChildWire, Error> {
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).kill_on_drop(true);
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
        let on_line = options.on_line.clone();
        command.stderr(match options.stderr {
            Stderr::Inherit => Stdio::inherit(),
            Stderr::Capture => Stdio::piped(),
            Stderr::Null => Stdio::null(),
        });
        let mut child = command
            .spawn()
            .map_err(|e| Error::transport(format!("cannot start `{}`: {e}", program.to_string_lossy())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::transport("the child's stdin and stdout were not piped"));
        };
        let log = child.stderr.take().map(|stderr| {
            let log = Arc::new(Mutex::new(VecDeque::new()));
            tokio::spawn(keep_log(stderr, log.clone(), on_line));
            log
        });
        Ok(ChildWire {
            lines: Lines::start(stdout, stdin, inbox, max_line),
            child: tokio::sync::Mutex::new(Some(child)),
            log,
        })
    }
}

async fn keep_log(stderr: tokio::process::ChildStderr, log: Arc<Mutex<VecDeque<u8>>>, on_line: Option<StderrLine>) {
    let keep = |line: &[u8], cut: bool| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut line = String::from_utf8_lossy(line).into_owned();
        if cut {
            line.push('…');
        }
        if let Some(on_line) = &on_line {
            on_line(&line);
        }
        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
        log.extend(line.bytes().chain([b'\n']));
        let excess = log.len().saturating_sub(KEPT_LOG);
        log.drain(..excess);
    };
    // Read to the end whatever comes (a line without end, bytes that are
    // not UTF-8): a child whose stderr is not read blocks on it.
    let mut reader = BufReader::new(stderr);
    let (mut line, mut cut) = (Vec::new(), false);
    loop {
        let available = match reader.fill_buf().await {
            Ok(available) if !available.is_empty() => available,
            _ => break,
        };
        let (part, found) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        let room = LOG_LINE.saturating_sub(line.len());
        line.extend_from_slice(&part[..part.len().min(room)]);
        cut |= part.len() > room;
        let used = found.unwrap_or(available.len());
        reader.consume(used);
        if found.is_some() {
            keep(&line, cut);
            (cut, line) = (false, Vec::new());
        }
    }
    if !line.is_empty() {
        keep(&line, cut);
    }
}

impl Wire for ChildWire {
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), Error>> {
        self.lines.send(message)
    }

    fn try_send(&self, message: Outbound) -> Result<Result<(), Error>, Outbound> {
        self.lines.try_send(message)
    }

    fn server_log(&self) -> Option<String> {
        let log = self.log.as_ref()?.lock().unwrap_or_else(|e| e.into_inner());
        Some(String::from_utf8_lossy(&log.iter().copied().collect::<Vec<u8>>()).into_owned())
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.lines.close().await;
            let Some(mut child) = self.child.lock().await.take() else { return };
            // A server on stdio exits at the end of its input; one that
            // does not is ended.
            if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err() {
                tracing::debug!("the server did not exit when its input closed; killing it");
                let _ = child.kill().await;
            }
        })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_captured_stderr_is_kept_and_each_line_heard() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let hear = heard.clone();
        let on_line: StderrLine = Arc::new(move |line: &str| hear.lock().unwrap().push(line.to_owned()));
        let args = ["-c", "echo one >&2; echo two >&2"].map(std::ffi::OsString::from);
        let options = ChildOptions { stderr: Stderr::Capture, on_line: Some(on_line), ..ChildOptions::default() };
        let wire = ChildWire::spawn(OsStr::new("sh"), &args, &options, 1 << 20, Inbox::default()).unwrap();
        wire.close().await;
        for _ in 0..100 {
            if heard.lock().unwrap().len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(*heard.lock().unwrap(), ["one", "two"]);
        assert_eq!(wire.server_log().as_deref(), Some("one\ntwo\n"));
    }

    #[tokio::test]
    async fn a_stderr_line_without_end_or_utf_8_is_cut_and_the_log_read_on() {
        // 1 MB without a newline, bytes that are not UTF-8, then a line.
        let script = "head -c 1000000 /dev/zero | tr '\\0' x >&2; printf '\\n\\377\\n' >&2; echo after >&2";
        let args = ["-c", script].map(std::ffi::OsString::from);
        let options = ChildOptions { stderr: Stderr::Capture, ..ChildOptions::default() };
        let wire = ChildWire::spawn(OsStr::new("sh"), &args, &options, 1 << 20, Inbox::default()).unwrap();
        wire.close().await;
        let mut log = String::new();
        for _ in 0..200 {
            log = wire.server_log().unwrap();
            if log.ends_with("after\n") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 3, "{log:.100}");
        assert_eq!(lines[0], format!("{}…", "x".repeat(LOG_LINE)));
        assert_eq!(lines[1..], ["\u{fffd}", "after"]);
    }
}
