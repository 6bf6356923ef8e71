use mcp_runtime::tool;

/// A word that is not a task support.
#[tool(task = "sometimes")]
fn sometimes(a: String) -> String {
    a
}

/// The word, unquoted.
#[tool(task = required)]
fn unquoted(a: String) -> String {
    a
}

/// A flag where a word goes.
#[tool(task = true)]
fn flagged(a: String) -> String {
    a
}

/// No value at all.
#[tool(task)]
fn bare(a: String) -> String {
    a
}

/// Said twice.
#[tool(task = "optional", task = "never")]
fn twice(a: String) -> String {
    a
}

fn main() {}
