use mcp_runtime::tool;
use serde::Deserialize;

/// Deserializes, but has no schema: one error, at the type (the expansion
/// names the parameter trait in one place, so rustc counts it once).
#[derive(Deserialize)]
struct Point {
    x: f64,
}

/// The length of a point's projection.
#[tool]
fn norm(point: Point) -> f64 {
    point.x.abs()
}

fn main() {}
