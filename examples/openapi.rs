//! An HTTP API served as MCP tools from its OpenAPI document: the small
//! petstore of `examples/openapi/petstore.yaml`, over stdio, calling the
//! API at the base URL given on the command line (the document's own
//! `servers` URL without one). DELETE operations are left out by a route
//! map; `PETSTORE_TOKEN`, when set, is sent as a bearer token.
//!
//! ```sh
//! cargo run --example openapi -- http://127.0.0.1:8080/v1
//! cargo run --example openapi -- --list
//! ```

use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::openapi::{Auth, OpenApi, RouteMap};

const PETSTORE: &str = include_str!("openapi/petstore.yaml");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut api =
        OpenApi::from_str(PETSTORE)?.route(RouteMap::exclude().methods(["DELETE"])).timeout(Duration::from_secs(10));
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(base) = args.iter().find(|a| !a.starts_with("--")) {
        api = api.base_url(base);
    }
    if let Ok(token) = std::env::var("PETSTORE_TOKEN") {
        api = api.auth(Auth::bearer(token));
    }
    if args.iter().any(|a| a == "--list") {
        // What each operation became, and why.
        for mapped in api.mapping()? {
            let became = mapped.tool.as_deref().unwrap_or("(left out)");
            println!("{:<7} {:<16} {became:<14} {}", mapped.method, mapped.path, mapped.reason);
        }
        return Ok(());
    }
    Server::from_openapi(&api)?.run_stdio()?;
    Ok(())
}
