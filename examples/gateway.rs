//! A gateway: every server of an `mcpServers` configuration (the JSON that
//! MCP clients keep their servers in) mounted under its name and served as
//! one server. A tool `add` of the entry `calc` is `calc_add` here; a
//! resource `notes://index` of `notes` is `notes://notes/index`. Local
//! commands and remote URLs mix; a server that is down costs its own calls
//! an error and is started again, and the others go on answering.
//!
//! ```sh
//! cargo run --example gateway -- --config examples/gateway.json
//! cargo run --example gateway -- --config examples/gateway.json --http 127.0.0.1:3000
//! ```
//!
//! Every call is logged to stderr (the `Logging` middleware): one place
//! to see what a model does with many servers. Over HTTP, put OAuth or a
//! bearer token in front (`HttpOptions`) to give unauthenticated servers
//! an authenticated front.

use mcp_runtime::middleware::Logging;
use mcp_runtime::proxy::Config;
use mcp_runtime::{Error, Server};

fn main() -> Result<(), Error> {
    let path = config_path().map_err(Error::Launch)?;
    let config = Config::from_file(&path)?;
    let names: Vec<&str> = config.names().collect();
    eprintln!("gateway: mounting {} from {path}", names.join(", "));
    Server::empty("gateway", env!("CARGO_PKG_VERSION"))
        .instructions(format!(
            "Tools, resources and prompts of {} servers, each name prefixed with its server's: {}.",
            names.len(),
            names.join(", ")
        ))
        .layer(Logging::default())
        .mount_config(&config)
        .run_blocking()
}

/// `--config FILE` (or `--config=FILE`); `--http ADDR` is `run_blocking`'s.
fn config_path() -> Result<String, String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--config" {
            return args.next().ok_or_else(|| "`--config` needs a file: `--config gateway.json`".to_owned());
        }
        if let Some(path) = arg.strip_prefix("--config=") {
            return Ok(path.to_owned());
        }
    }
    Err("say which servers to serve: `--config FILE`, a JSON file with `mcpServers` (see examples/gateway.json)".into())
}
