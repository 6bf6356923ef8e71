//! The errors `#[tool]`, `#[resource]` and `#[prompt]` give for mistakes
//! (`ui/fail`, each with a `.stderr` snapshot). Snapshots are
//! compiler-specific, so other compilers skip them. The shapes they accept
//! are an ordinary crate, `ui-tests/pass`: with no case that must run,
//! trybuild only checks, and builds nothing.

use std::process::Command;

#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
}

/// A crate compiled with `MCP_REQUIRE_DESCRIPTIONS` set rejects tools
/// without one. The variable must reach the compiler, so this test runs
/// itself again in a child process that has it.
#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn ui_require_descriptions() {
    const VAR: &str = "MCP_REQUIRE_DESCRIPTIONS";
    if std::env::var_os(VAR).is_none() {
        let status = Command::new(std::env::current_exe().expect("the test binary's path"))
            .args(["--exact", "ui_require_descriptions", "--nocapture", "--include-ignored"])
            .env(VAR, "1")
            .status()
            .expect("the test binary runs again");
        assert!(status.success(), "the ui/require-descriptions cases failed (output above)");
        return;
    }
    trybuild::TestCases::new().compile_fail("ui/require-descriptions/*.rs");
}
