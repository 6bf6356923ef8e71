use mcp_runtime::prelude::*;

struct Report;

/// The report.
#[resource("reports://latest")]
fn latest() -> Report {
    Report
}

fn main() {}
