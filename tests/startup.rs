//! What a server says on stderr as it starts.

use std::process::{Command, Stdio};

/// The stderr of `empty-server` run with `arg`, its stdin closed at once.
fn stderr_of(arg: Option<&str>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_empty-server"));
    command.args(arg).stdin(Stdio::null()).env_remove("MCP_LOG").env_remove("RUST_LOG").env_remove("MCP_TRANSPORT");
    let output = command.output().expect("empty-server runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert!(output.stdout.is_empty(), "{:?}", String::from_utf8_lossy(&output.stdout));
    stderr
}

#[test]
fn a_collecting_server_that_found_nothing_says_why_and_how_to_fix_it() {
    let stderr = stderr_of(None);
    assert!(stderr.contains("WARN"), "{stderr}");
    assert!(stderr.contains("offers no tools, resources or prompts"), "{stderr}");
    assert!(stderr.contains("the linker left it out"), "{stderr}");
    assert!(stderr.contains("add `use empty_server as _;` to src/main.rs"), "{stderr}");
}

#[test]
fn an_explicitly_empty_or_dynamic_server_is_not_warned_about() {
    for arg in ["empty", "handle"] {
        let stderr = stderr_of(Some(arg));
        assert!(stderr.contains("serving MCP over stdio"), "{arg}: {stderr}");
        assert!(!stderr.contains("use empty_server as _"), "{arg}: {stderr}");
    }
}

/// `program args…` run with its stdin closed: (exit success, stdout, stderr).
fn run(program: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null()).env_remove("MCP_TRANSPORT").env_remove("MCP_HTTP_ADDR");
    let output = command.output().expect("the server runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

#[test]
fn a_server_answers_help_and_version_on_stdout_and_exits() {
    let calculator = crate::common::example("calculator");
    for flag in ["--help", "-h"] {
        let (ok, stdout, stderr) = run(&calculator, &[flag]);
        assert!(ok, "{flag}: {stderr}");
        assert!(stdout.starts_with("calculator "), "{flag}: {stdout}");
        for part in ["Usage: calculator [--http ADDR]", "MCP_TRANSPORT", "MCP_HTTP_ADDR", "MCP_LOG", "--version"] {
            assert!(stdout.contains(part), "{flag}: {part} missing from:\n{stdout}");
        }
        // It did not start serving.
        assert!(!stderr.contains("serving MCP"), "{flag}: {stderr}");
    }
    let (ok, stdout, _) = run(&calculator, &["--version"]);
    assert!(ok);
    assert_eq!(stdout, format!("calculator {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn an_unknown_flag_exits_non_zero_with_the_usage() {
    let calculator = crate::common::example("calculator");
    let (ok, stdout, stderr) = run(&calculator, &["--verbose"]);
    assert!(!ok, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("unknown flag `--verbose`"), "{stderr}");
    assert!(stderr.contains("Usage: calculator [--http ADDR]"), "{stderr}");
    let (ok, _, stderr) = run(&calculator, &["--hlep"]);
    assert!(!ok && stderr.contains("did you mean `--help`?"), "{stderr}");
}

#[test]
fn a_stdio_only_server_offers_no_http_in_its_usage_and_refuses_it() {
    let server = std::path::Path::new(env!("CARGO_BIN_EXE_empty-server"));
    let (ok, stdout, stderr) = run(server, &["empty", "--help"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Usage: empty-server\n") && !stdout.contains("--http"), "{stdout}");
    let (ok, _, stderr) = run(server, &["empty", "--http", "127.0.0.1:0"]);
    assert!(!ok && stderr.contains("serves stdio only"), "{stderr}");
}

#[tokio::test]
async fn an_address_that_cannot_be_served_is_named_in_the_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let busy = mcp_runtime::Server::empty("busy", "1").serve_http(addr.as_str()).await.unwrap_err().to_string();
    assert!(busy.contains(&format!("cannot listen on {addr}:")), "{busy}");
    assert!(busy.contains("another program listens there"), "{busy}");
    let invalid = mcp_runtime::Server::empty("bad", "1").serve_http("127.0.0.1:99999").await.unwrap_err().to_string();
    assert!(invalid.contains("cannot listen on 127.0.0.1:99999:"), "{invalid}");
}
