//! `ui = "ui://…"` and `app_only` reach the tool's `_meta.ui` (and the
//! flat key early hosts read), and the builder takes the same for tools
//! made at run time.

use mcp_runtime::prelude::*;
use mcp_runtime::tools::{Tool, ToolBuilder};
use serde_json::json;

/// Open the editor.
#[tool(ui = "ui://notes/editor")]
fn edit(title: String) -> String {
    title
}

/// Refresh the editor's list; for views alone.
#[tool(app_only, ui = "ui://notes/editor", read_only)]
fn refresh() -> &'static str {
    "fresh"
}

/// Not for views alone, said explicitly.
#[tool(app_only = false)]
fn plain() -> &'static str {
    "plain"
}

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    let meta = edit::Tool.definition().tool().meta.clone().unwrap();
    assert_eq!(meta["ui"], json!({ "resourceUri": "ui://notes/editor" }));
    assert_eq!(meta["ui/resourceUri"], "ui://notes/editor");
    let meta = refresh::Tool.definition().tool().meta.clone().unwrap();
    assert_eq!(meta["ui"], json!({ "resourceUri": "ui://notes/editor", "visibility": ["app"] }));
    assert_eq!(refresh::Tool.definition().tool().annotations.as_ref().unwrap().read_only_hint, Some(true));
    assert!(plain::Tool.definition().tool().meta.is_none());
    let mut builder = ToolBuilder::new("dynamic", module_path!(), "dynamic");
    builder.app_only().ui("ui://charts/bars");
    let meta = builder.build().tool().meta.clone().unwrap();
    assert_eq!(meta["ui"], json!({ "visibility": ["app"], "resourceUri": "ui://charts/bars" }));
}
