use mcp_runtime::prelude::*;

/// Cities, but not in the shape a completion function has.
fn cities(prefix: String) -> Vec<String> {
    vec![prefix]
}

/// Plan a trip.
#[prompt]
fn trip(#[arg(complete = cities)] city: String) -> String {
    city
}

fn main() {}
