//! Logs go to stderr, never stdout (stdout belongs to the protocol).

use std::io::IsTerminal;

/// A log level, or `OFF`, for [`Server::log_level`](crate::Server::log_level)
/// (tracing's own: `LevelFilter::WARN`).
pub use tracing::level_filters::LevelFilter;

/// Install a stderr logger for `tracing`, unless the program installed its
/// own, at `info` unless the environment says otherwise (see
/// [`init_stderr_at`]).
pub fn init_stderr() {
    init_stderr_at(LevelFilter::INFO);
}

/// Install a stderr logger for `tracing`, unless the program installed its
/// own. The level comes from `MCP_LOG` (e.g. `MCP_LOG=debug`), else from a
/// plain level in `RUST_LOG`, else `default`: the environment wins, so
/// whoever runs a server can turn its logs up or down without a rebuild.
/// Called by `serve_stdio` and the HTTP servers with
/// [`Server::log_level`](crate::Server::log_level).
pub fn init_stderr_at(default: LevelFilter) {
    let level = ["MCP_LOG", "RUST_LOG"]
        .iter()
        .find_map(|var| std::env::var(var).ok()?.parse::<LevelFilter>().ok())
        .unwrap_or(default);
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_max_level(level)
        .try_init();
}
