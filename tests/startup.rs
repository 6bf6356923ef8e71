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
