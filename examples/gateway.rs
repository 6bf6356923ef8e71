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
//! to see what a model does with many servers. Over HTTP, with
//! `GATEWAY_TOKEN` set, every request must carry it as a bearer token: an
//! authenticated front for servers that have none (`HttpOptions::oauth`
//! takes OAuth access tokens instead).

use mcp_runtime::middleware::Logging;
use mcp_runtime::proxy::Config;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime::{Error, Server};

fn main() -> Result<(), Error> {
    let path = flag("--config").ok_or_else(|| {
        Error::Launch(
            "say which servers to serve: `--config FILE`, a JSON file with `mcpServers` (see examples/gateway.json)"
                .into(),
        )
    })?;
    let config = Config::from_file(&path)?;
    let names: Vec<&str> = config.names().collect();
    eprintln!("gateway: mounting {} from {path}", names.join(", "));
    let server = Server::empty("gateway", env!("CARGO_PKG_VERSION"))
        .instructions(format!(
            "Tools, resources and prompts of {} servers, each name prefixed with its server's: {}.",
            names.len(),
            names.join(", ")
        ))
        .layer(Logging::default())
        .mount_config(&config);
    // Its flags (`--config`, `--http`) are its own: none is left for `run_stdio`.
    let Some(addr) = flag("--http") else { return server.args(Vec::<String>::new()).run_stdio() };
    let mut options = HttpOptions::new();
    if let Ok(token) = std::env::var("GATEWAY_TOKEN") {
        options = options.bearer_token(token);
    }
    let runtime = tokio::runtime::Runtime::new().map_err(Error::Runtime)?;
    runtime.block_on(server.serve_http_with(addr, options))
}

/// The value of `--name VALUE` (or `--name=VALUE`) on the command line.
fn flag(name: &str) -> Option<String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == name {
            return args.next();
        }
        if let Some(value) = arg.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')) {
            return Some(value.to_owned());
        }
    }
    None
}
