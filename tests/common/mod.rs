//! Helpers shared by the test files: real server processes here, in-memory
//! clients in `memory`. Each test file uses only some of them.

#![allow(dead_code)]

pub mod http;
pub mod log;
pub mod memory;
pub mod raw_http;

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// The path of the example `name`, built up to date in the same profile as
/// this test (once per test process; cheap when nothing changed). Building
/// here rather than trusting what is on disk means `cargo test -p
/// mcp-tests` never runs a stale example. Built with the whole workspace
/// selected, so the runtime's features are those `cargo test --workspace`
/// (the README's command) already built it with: `-p mcp-examples` alone
/// would build the runtime again, with that package's features only.
pub fn example(name: &str) -> PathBuf {
    static BUILT: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    // This test binary lives in `<target>/<profile>/deps/`; examples are
    // built into `<target>/<profile>/examples/`.
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("a target directory");
    let profile = profile_dir.file_name().and_then(|p| p.to_str()).expect("a profile directory");
    let path = profile_dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));

    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if built.get_or_insert_with(HashSet::new).insert(name.to_owned()) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let profile = if profile == "debug" { "dev" } else { profile };
        let status = Command::new(cargo)
            .args(["build", "--quiet", "--workspace", "--profile", profile, "--example", name])
            .status()
            .expect("running cargo to build the example");
        assert!(status.success(), "building example {name} failed");
    }
    assert!(path.exists(), "example binary not found at {}", path.display());
    path
}

/// The path of the workspace binary `name` (a `[[bin]]` of a workspace
/// member, such as `bench-workload`), built up to date as [`example`]
/// builds examples: same profile, whole workspace selected, and an example
/// with it, because a build of binaries alone leaves dev-dependencies out
/// of the features and would build the runtime again without this suite's.
pub fn workspace_binary(name: &str) -> PathBuf {
    static BUILT: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("a target directory");
    let profile = profile_dir.file_name().and_then(|p| p.to_str()).expect("a profile directory");
    let path = profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if built.get_or_insert_with(HashSet::new).insert(name.to_owned()) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let profile = if profile == "debug" { "dev" } else { profile };
        let status = Command::new(cargo)
            .args(["build", "--quiet", "--workspace", "--profile", profile, "--bin", name, "--example", "calculator"])
            .status()
            .expect("running cargo to build the binary");
        assert!(status.success(), "building binary {name} failed");
    }
    assert!(path.exists(), "binary not found at {}", path.display());
    path
}

/// Start the example `name` with `args` (which serve it over HTTP on a free
/// port) and return it with its endpoint's URL; see [`served_over_http`].
pub async fn example_over_http(name: &str, args: &[&std::ffi::OsStr]) -> (tokio::process::Child, String) {
    let mut command = tokio::process::Command::new(example(name));
    command.args(args);
    served_over_http(command).await
}

/// Start `command`, a server that serves Streamable HTTP, and return it
/// with its endpoint's URL, read from the line it prints on stderr; the
/// rest of stderr is drained so the server never blocks on a full pipe.
/// The process is killed when dropped.
pub async fn served_over_http(mut command: tokio::process::Command) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some((_, url)) = line.split_once("serving MCP over Streamable HTTP at ") {
                return url.trim().to_owned();
            }
        }
        panic!("the server exited without saying where it listens")
    })
    .await
    .expect("the server says where it listens");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// `server` served over an in-memory byte pipe (as over stdio) to the
/// client `client` builds.
pub async fn pipe_to(
    server: mcp_runtime::Server,
    client: mcp_runtime_client::ClientBuilder,
) -> mcp_runtime_client::Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(server.serve(server_read, server_write));
    let (read, write) = tokio::io::split(client_end);
    client.io(read, write).await.expect("the client connects")
}
