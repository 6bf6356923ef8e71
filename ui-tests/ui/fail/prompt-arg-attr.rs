use mcp_runtime::prelude::*;

async fn cities(_: mcp_runtime::completion::Completing) -> Vec<String> {
    Vec::new()
}

/// Plan a trip.
#[prompt]
fn trip(
    #[arg(completes = cities)] city: String,
    #[arg(complete = 42)] days: u8,
    #[arg(rename = "city")] town: String,
) -> String {
    format!("{city} {days} {town}")
}

fn main() {}
