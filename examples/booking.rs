//! Asking the client: a booking that confirms the date with the user
//! (elicitation) and words its confirmation with the host's model
//! (sampling), plus a tool that reads the client's roots. The same code
//! serves every protocol era: requests to the client in the handshake
//! versions, multi-round results in 2026-07-28.
//!
//! ```sh
//! cargo run --example booking                          # stdio
//! cargo run --example booking -- --http 127.0.0.1:3002 # Streamable HTTP
//! ```

use mcp_runtime::prelude::*;

/// When to book, as the user fills it in.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct When {
    /// The day, as YYYY-MM-DD
    #[schemars(extend("format" = "date"))]
    day: String,
    /// The time, as HH:MM
    time: String,
    /// A table by the window
    #[serde(default)]
    window: bool,
}

/// Book a table: asks the user when, then has the host's model word a
/// one-sentence confirmation.
#[tool]
async fn book(
    ctx: Context,
    /// The restaurant
    restaurant: String,
    /// How many people
    #[arg(default = 2)]
    people: u32,
) -> Result<String, ToolError> {
    // Kept across the rounds of a 2026-07-28 call: the reference is made
    // once, however many questions follow.
    let reference = ctx.once("reference", async { format!("R-{:04}", people * 7 + 1000) }).await;
    let Elicited::Accept(when) = ctx.elicit::<When>(format!("When should I book {restaurant}?")).await? else {
        return Ok("Booking cancelled.".into());
    };
    let seat = if when.window { " by the window" } else { "" };
    let summary = ctx
        .sample(
            Sampling::user(format!(
                "One friendly sentence confirming a table for {people} at {restaurant} on {} at {}{seat}.",
                when.day, when.time
            ))
            .system("You confirm restaurant bookings. One sentence, no preamble.")
            .max_tokens(60),
        )
        .await?;
    Ok(format!("{} (reference {reference})", summary.text()))
}

/// The folders the client lets this server work in.
#[tool(read_only)]
async fn workspace_roots(ctx: Context) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    if roots.is_empty() {
        return Ok("the client offers no roots".into());
    }
    Ok(roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join("\n"))
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    // stdio, or Streamable HTTP with `--http ADDR` (or `MCP_TRANSPORT=http`).
    Server::new("booking", env!("CARGO_PKG_VERSION")).run().await
}
