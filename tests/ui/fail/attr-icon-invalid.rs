use mcp_runtime::tool;

/// Local file.
#[tool(icon = "/home/me/icon.png")]
fn local() {}

/// Odd theme and size.
#[tool(icon(src = "https://example.com/i.png", theme = "blue", sizes = ["big"]))]
fn odd() {}

/// No source.
#[tool(icon(mime_type = "image/png"))]
fn sourceless() {}

fn main() {}
