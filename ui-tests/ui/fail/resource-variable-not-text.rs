use mcp_runtime::prelude::*;

struct Point {
    x: f64,
}

/// A point.
#[resource("points://{p}")]
fn point(p: Point) -> String {
    p.x.to_string()
}

fn main() {}
