//! A server showing what tools can return and enforce: structured output
//! (`Json<T>`), an image, bounded arguments, a timeout and a rate limit.
//!
//! ```sh
//! cargo run --example toolbox
//! ```

use std::time::Duration;

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Summary statistics of a list of numbers.
#[derive(Serialize, JsonSchema)]
struct Stats {
    /// How many numbers.
    count: usize,
    /// The smallest.
    min: f64,
    /// The largest.
    max: f64,
    /// The arithmetic mean.
    mean: f64,
}

/// Summarise a list of numbers: count, min, max and mean.
#[tool(read_only, idempotent)]
fn stats(
    /// The numbers (at least one)
    values: Vec<f64>,
) -> Result<Json<Stats>, ToolError> {
    if values.is_empty() {
        return Err(ToolError::new("give at least one number"));
    }
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    Ok(Json(Stats { count: values.len(), min, max, mean }))
}

/// How to draw a bar chart.
#[derive(Deserialize, JsonSchema)]
struct ChartRequest {
    /// The bar heights, 1 to 20 of them, each between 0 and 100.
    #[schemars(length(min = 1, max = 20))]
    bars: Vec<Bar>,
    /// The bar colour, as a CSS hex colour like "#3366cc".
    #[schemars(regex(pattern = r"^#[0-9a-fA-F]{6}$"))]
    color: Option<String>,
}

/// One bar.
#[derive(Deserialize, JsonSchema)]
struct Bar {
    /// Its height, between 0 and 100.
    #[schemars(range(min = 0.0, max = 100.0))]
    height: f64,
}

/// Draw a bar chart as an SVG image.
#[tool(read_only)]
fn chart(request: ChartRequest) -> Image {
    let color = request.color.unwrap_or_else(|| "#3366cc".into());
    let width = request.bars.len() * 12;
    let bars: String = request
        .bars
        .iter()
        .enumerate()
        .map(|(i, bar)| {
            let x = i * 12 + 1;
            let y = 100.0 - bar.height;
            format!(r#"<rect x="{x}" y="{y}" width="10" height="{}" fill="{color}"/>"#, bar.height)
        })
        .collect();
    let svg = format!(r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="100">{bars}</svg>"#);
    Image::new(svg.into_bytes(), "image/svg+xml")
}

/// Prepare a report; takes `seconds` seconds, and is stopped after 2.
#[tool(timeout = "2s")]
async fn report(
    /// How long the report takes to prepare
    #[arg(default = 1)]
    seconds: u64,
) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    format!("report ready after {seconds} s")
}

/// Look up a word in a (tiny) dictionary; at most 5 lookups a minute.
#[tool(read_only, rate_limit = "5/m")]
fn define(
    /// The word, in lowercase letters
    word: String,
) -> Result<String, ToolError> {
    match word.as_str() {
        "tool" => Ok("a device that helps do a task".into()),
        "schema" => Ok("a description of the shape of data".into()),
        _ => Err(ToolError::new(format!("no definition of `{word}`; try `tool` or `schema`"))),
    }
}

fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("toolbox", env!("CARGO_PKG_VERSION")).run_blocking()
}
