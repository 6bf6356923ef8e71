use mcp_runtime::tool;

/// Sum numbers.
#[tool]
unsafe extern "C" fn sum(count: usize, mut rest: ...) -> usize {
    count
}

fn main() {}
