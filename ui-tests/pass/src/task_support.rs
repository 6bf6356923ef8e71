//! `task = "…"` reaches the definition, and the builder takes the same for
//! tools made at run time; the handler is the same function.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::tasks::TaskSupport;
use mcp_runtime::tools::{Tool, ToolBuilder};

/// Build the report.
#[tool(task = "optional")]
async fn report(ctx: Context) -> String {
    tokio::time::sleep(Duration::from_millis(1)).await;
    ctx.info("built");
    "report".to_owned()
}

/// Crawl the site; only as a task.
#[tool(task = "required", read_only)]
async fn crawl(site: String) -> String {
    site
}

/// Answer directly.
#[tool(task = "never")]
fn direct() -> &'static str {
    "now"
}

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    assert_eq!(report::Tool.definition().task_support(), TaskSupport::Optional);
    assert_eq!(crawl::Tool.definition().task_support(), TaskSupport::Required);
    assert_eq!(direct::Tool.definition().task_support(), TaskSupport::Never);
    let mut builder = ToolBuilder::new("dynamic", module_path!(), "dynamic");
    builder.task(TaskSupport::Required);
    assert_eq!(builder.build().task_support(), TaskSupport::Required);
}
