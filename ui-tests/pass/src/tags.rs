//! `tags = [...]` on each attribute reaches the definition (as its
//! `_meta.tags`), and the builder takes the same for tools made at run
//! time.

use mcp_runtime::prelude::*;
use mcp_runtime::prompts::Prompt;
use mcp_runtime::resources::Resource;
use mcp_runtime::tools::{Tool, ToolBuilder};

/// Refund an order.
#[tool(tags = ["billing", "admin"], meta("com.example/owner" = "payments"))]
fn refund(order: String) -> String {
    order
}

/// The price list.
#[resource("billing://prices", tags = ["billing"])]
fn prices() -> String {
    String::new()
}

/// Explain an invoice.
#[prompt(tags = ["billing"])]
fn explain() -> String {
    "Explain this invoice.".to_owned()
}

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    let definition = refund::Tool.definition();
    assert_eq!(definition.tags(), ["billing", "admin"]);
    let meta = definition.tool().meta.as_ref().expect("tags are in `_meta`");
    assert_eq!(meta["tags"], serde_json::json!(["billing", "admin"]));
    assert_eq!(meta["com.example/owner"], "payments", "the other `_meta` entries stay");
    assert_eq!(prices::Resource.definition().tags(), ["billing"]);
    assert_eq!(explain::Prompt.definition().tags(), ["billing"]);
    let mut builder = ToolBuilder::new("dynamic", module_path!(), "dynamic");
    builder.tags(["ops"]).tags(["ops", "beta"]);
    assert_eq!(builder.build().tags(), ["ops", "beta"]);
}
