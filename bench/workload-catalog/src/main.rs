//! `bench-workload-catalog`: the published MCP workload's catalog service, and its
//! Redis seed.
//!
//! ```sh
//! bench-workload-catalog serve 127.0.0.1:8100          # the catalog service (api-service)
//! bench-workload-catalog seed redis://127.0.0.1:6379/ [--flush]   # seed.py's keys
//! bench-workload-catalog seed-commands                 # the seed's commands, one JSON array a line
//! ```

use std::io::Write;
use std::sync::Arc;

use bench_workload_catalog::{catalog::Catalog, seed, service};

const USAGE: &str = "usage: bench-workload-catalog serve ADDR | seed REDIS_URL [--flush] | seed-commands";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["serve", addr] => {
            let catalog = Arc::new(Catalog::build());
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!("bench-workload-catalog: serving the catalog at http://{}", listener.local_addr()?);
            service::serve(listener, catalog).await?;
        }
        ["seed", url] => seed::seed(url, false).await?,
        ["seed", url, "--flush"] => seed::seed(url, true).await?,
        ["seed-commands"] => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for command in seed::commands() {
                writeln!(out, "{}", serde_json::to_string(&command)?)?;
            }
        }
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
