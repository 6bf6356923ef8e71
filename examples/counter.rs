//! `State<T>`: one counter shared by every call of two tools.
//!
//! ```sh
//! cargo run --example counter
//! ```

use std::sync::atomic::{AtomicI64, Ordering};

use mcp_runtime::prelude::*;

/// Add `by` to the counter and return its new value.
#[tool]
fn increment(
    /// How much to add (may be negative)
    #[arg(default = 1)]
    by: i64,
    counter: State<AtomicI64>,
) -> Result<i64, ToolError> {
    // Checked and applied in one step: an overflow changes nothing.
    let before = counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |value| value.checked_add(by))
        .map_err(|value| ToolError::new(format!("adding {by} to {value} would overflow; the counter is unchanged")))?;
    Ok(before + by)
}

/// The counter's current value.
#[tool(read_only)]
fn current(counter: State<AtomicI64>) -> i64 {
    counter.load(Ordering::SeqCst)
}

fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("counter", env!("CARGO_PKG_VERSION")).with_state(AtomicI64::new(0)).run_blocking()
}
