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

/// No source at all.
#[tool(icon)]
fn bare() {}

/// Sizes as one string.
#[tool(icon(src = "https://example.com/i.png", sizes = "48x48"))]
fn sized() {}

/// A misspelled icon key.
#[tool(icon(source = "https://example.com/i.png"))]
fn misspelled() {}

fn main() {}
