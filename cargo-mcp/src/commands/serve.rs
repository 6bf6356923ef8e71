//! `cargo mcp serve --config FILE`: a gateway, every server of an
//! `mcpServers` configuration mounted under its name and served as one,
//! over stdio or Streamable HTTP.

use std::process::ExitCode;

use mcp_runtime::Server;
use mcp_runtime::middleware::Logging;
use mcp_runtime::proxy::Config;

use crate::cli::ServeArgs;
use crate::failure::Failure;

pub async fn run(args: ServeArgs) -> Result<ExitCode, Failure> {
    let config = Config::from_file(&args.config).map_err(|e| Failure::usage(e.to_string()))?;
    let names: Vec<&str> = config.names().collect();
    let server = Server::empty("gateway", env!("CARGO_PKG_VERSION"))
        .instructions(format!("The tools, resources and prompts of {}, each prefixed with its name.", names.join(", ")))
        .layer(Logging::default())
        .mount_config(&config);
    let served = match &args.http {
        None => server.serve_stdio().await,
        Some(addr) => server.serve_http(addr.as_str()).await,
    };
    served.map(|()| ExitCode::SUCCESS).map_err(|e| Failure::new(e.to_string()))
}
