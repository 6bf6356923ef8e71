use mcp_runtime::prelude::*;

async fn names(_: mcp_runtime::completion::Completing) -> Vec<String> {
    Vec::new()
}

/// A user's page.
#[resource("people://{name}")]
fn person(#[arg(rename = "who")] name: String, #[arg(complete = names)] ctx: Context) -> String {
    let _ = ctx;
    name
}

fn main() {}
