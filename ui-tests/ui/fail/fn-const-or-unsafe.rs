use mcp_runtime::tool;

#[tool]
const fn one() -> i32 {
    1
}

#[tool]
unsafe fn two() -> i32 {
    2
}

fn main() {}
