use mcp_runtime::tool;

struct Report;

#[tool]
async fn report() -> Report {
    Report
}

fn main() {}
