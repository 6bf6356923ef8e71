use std::rc::Rc;

use mcp_runtime::tool;

async fn lookup(key: &str) -> usize {
    key.len()
}

/// Count a key, holding an `Rc` across an `.await`.
#[tool]
async fn count(key: String) -> usize {
    let shared = Rc::new(key);
    let n = lookup(&shared).await;
    n + Rc::strong_count(&shared)
}

fn main() {}
