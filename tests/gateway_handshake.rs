//! A mount whose command starts but never speaks MCP (a script waiting on
//! its stdin, a wrong program) is reported in the log within seconds,
//! with what to check, while the connection goes on waiting up to its
//! connect timeout.

use std::time::{Duration, Instant};

use mcp_runtime::prelude::*;
use mcp_runtime::proxy::{Mount, Upstream};
use mcp_runtime::testing::TestClient;

// One thread: the gateway's tasks log through this test's subscriber.
#[tokio::test]
async fn a_command_silent_on_its_handshake_is_reported_long_before_its_connect_timeout() {
    let (captured, _guard) = crate::common::log::Captured::install();
    let mount = Mount::new("wiki", Upstream::command("sleep", ["60"])).connect_timeout(Duration::from_secs(30));
    let gateway = Server::empty("gateway", "1").mount_with(mount);
    let started = Instant::now();
    // Serving waits for the mount; the log must not.
    let connecting = tokio::spawn(TestClient::connect(gateway));
    let warning = loop {
        let log = captured.text();
        if let Some(line) = log.lines().find(|l| l.contains("has not answered the handshake")) {
            break line.to_owned();
        }
        assert!(started.elapsed() < Duration::from_secs(6), "no warning within 6 s: {log}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(started.elapsed() >= Duration::from_secs(3), "warned before 3 s: {warning}");
    assert!(warning.contains("WARN"), "{warning}");
    assert!(warning.contains("`wiki` has not answered the handshake in 3 s"), "{warning}");
    assert!(warning.contains("check its command (`sleep`) and arguments: does it speak MCP over stdio?"), "{warning}");
    assert!(warning.contains("waiting up to 30 s"), "{warning}");
    assert!(!connecting.is_finished(), "the connect goes on waiting");
    connecting.abort();
}
