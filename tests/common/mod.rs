//! Helpers shared by the tests that run real server processes.

use std::path::PathBuf;
use std::process::Command;

/// The path of the built example `name`, building it if `cargo test` did not
/// (e.g. when only this package's tests were selected).
pub fn example(name: &str) -> PathBuf {
    // This test binary lives in `<target>/<profile>/deps/`; examples are
    // built into `<target>/<profile>/examples/`.
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("a target directory");
    let path = profile_dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-p", "mcp-examples", "--example", name])
            .status()
            .expect("running cargo to build the example");
        assert!(status.success(), "building example {name} failed");
    }
    assert!(path.exists(), "example binary not found at {}", path.display());
    path
}
