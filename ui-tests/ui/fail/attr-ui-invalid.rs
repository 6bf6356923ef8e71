use mcp_runtime::tool;

const EDITOR: &str = "ui://notes/editor";

/// A web address where a view's URI goes.
#[tool(ui = "https://example.com/editor.html")]
fn web(a: String) -> String {
    a
}

/// The scheme and nothing after it.
#[tool(ui = "ui://")]
fn empty(a: String) -> String {
    a
}

/// A constant where a literal goes.
#[tool(ui = EDITOR)]
fn constant(a: String) -> String {
    a
}

/// A flag written with a value that is not one.
#[tool(app_only = "yes")]
fn worded(a: String) -> String {
    a
}

/// Said twice.
#[tool(ui = "ui://notes/editor", ui = "ui://notes/viewer")]
fn twice(a: String) -> String {
    a
}

fn main() {}
