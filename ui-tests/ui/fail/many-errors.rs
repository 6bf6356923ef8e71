use mcp_runtime::tool;

/// Everything wrong at once: each is reported in one compile.
#[tool(name = "no spaces", read_only = 1, colour)]
const fn broken<T>((a, b): (u8, u8), #[arg(rename = "x")] c: u8, #[arg(rename = "x")] d: u8) -> u8 {
    a + b + c + d
}

fn main() {}
