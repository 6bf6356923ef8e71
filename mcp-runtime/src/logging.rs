//! Logs go to stderr, never stdout (stdout belongs to the protocol).

use std::io::IsTerminal;

use tracing::level_filters::LevelFilter;

/// Install a stderr logger for `tracing`, unless the program installed its
/// own. The level comes from `MCP_LOG` (e.g. `MCP_LOG=debug`), else from a
/// plain level in `RUST_LOG`, else `info`. Called by `serve_stdio`.
pub fn init_stderr() {
    let level = ["MCP_LOG", "RUST_LOG"]
        .iter()
        .find_map(|var| std::env::var(var).ok()?.parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::INFO);
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_max_level(level)
        .try_init();
}
