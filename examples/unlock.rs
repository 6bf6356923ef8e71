//! A support desk whose refund tools are hidden until a caller signs in as
//! an admin: `sign_in_as_admin` unlocks them for that caller only (its
//! session, or its user over OAuth), and only that caller is told its tool
//! list changed. Everyone else keeps seeing the desk's public tools. Its
//! resources and prompts are offered as tools too (`read_resource`,
//! `list_prompts`...), for clients that only call tools, and follow each
//! caller's view the same way; 2026-07-28 clients may cache its lists for
//! a minute (a change to a caller's view tells that caller at once).
//! `lookup_order` has two versions: the newest is listed and called, and a
//! call whose `_meta.version` is "1" gets the first.
//!
//! ```sh
//! cargo run --example unlock                          # stdio
//! cargo run --example unlock -- --http 127.0.0.1:8080 # Streamable HTTP
//! ```

use mcp_runtime::catalog::View;
use mcp_runtime::prelude::*;

/// Look an order up by its number.
#[tool(read_only, version = "1")]
fn lookup_order(
    /// The order's number
    order: u32,
) -> String {
    format!("order {order}: shipped")
}

/// Look an order up by its number: its state and its carrier.
#[tool(read_only, name = "lookup_order", version = "2")]
fn lookup_order_v2(
    /// The order's number
    order: u32,
) -> String {
    format!("order {order}: shipped by post")
}

/// Sign in as an admin: the refund tools are listed for you from now on.
#[tool]
fn sign_in_as_admin(view: View) -> Result<&'static str, ToolError> {
    view.enable_tagged("admin")?;
    Ok("signed in: `refund` and the `audit` prompt are yours now")
}

/// Sign out: back to the public tools.
#[tool]
fn sign_out(view: View) -> Result<&'static str, ToolError> {
    view.reset()?;
    Ok("signed out")
}

/// Refund an order to the card it was paid with.
#[tool(tags = ["admin"], destructive)]
fn refund(
    /// The order's number
    order: u32,
) -> String {
    format!("refunded order {order}")
}

/// The desk's refund policy.
#[resource("desk://policy")]
fn policy() -> String {
    "Refunds within 30 days, to the card paid with.".to_owned()
}

/// Audit the day's refunds.
#[prompt(tags = ["admin"])]
fn audit() -> String {
    "List today's refunds and flag any above 100 EUR.".to_owned()
}

fn main() -> Result<(), mcp_runtime::Error> {
    Server::empty("desk", env!("CARGO_PKG_VERSION"))
        .tool(lookup_order::Tool)
        .tool(lookup_order_v2::Tool)
        .tool(sign_in_as_admin::Tool)
        .tool(sign_out::Tool)
        .tool(refund::Tool)
        .prompt(audit::Prompt)
        .resource(policy::Resource)
        .disable_tagged(["admin"])
        .resources_as_tools()
        .prompts_as_tools()
        .cache_ttl(std::time::Duration::from_secs(60))
        .run_blocking()
}
