use mcp_runtime::tool;

#[tool]
struct Calculator;

#[tool]
enum Operation {
    Add,
}

#[tool]
mod tools {}

#[tool]
macro_rules! m {
    () => {};
}

fn main() {
    m!();
}
