//! A tool that works for several seconds: it reports progress, logs what it
//! does, and stops promptly when the client cancels it.
//!
//! ```sh
//! cargo run --example long_task
//! ```

use std::time::Duration;

use mcp_runtime::prelude::*;

/// Process `items` items, one every 200 ms, reporting progress as it goes.
#[tool]
async fn process(
    /// How many items to process
    #[arg(default = 20)]
    items: u32,
    ctx: Context,
) -> String {
    ctx.info(format!("processing {items} items"));
    for done in 1..=items {
        // Cancellation drops this future here, at its next `.await`.
        tokio::time::sleep(Duration::from_millis(200)).await;
        ctx.progress_with_message(f64::from(done), f64::from(items), format!("item {done} of {items}"));
        if done % 5 == 0 {
            ctx.debug(format!("{done} items done"));
        }
    }
    ctx.info("all items processed");
    format!("processed {items} items")
}

fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("long-task", env!("CARGO_PKG_VERSION")).run_blocking()
}
