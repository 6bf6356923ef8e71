//! A server whose tool writes to stdout the ways real code does: `println!`,
//! `print!` without a newline, and a child process. The stdio tests check
//! that none of it reaches the protocol stream.

use mcp_runtime::prelude::*;

/// Print to stdout, then answer.
#[tool]
fn noisy(
    /// What to say
    word: String,
) -> String {
    println!("stray println from a tool: {word}");
    print!("a partial line without newline ");
    let child = std::process::Command::new("sh").arg("-c").arg("echo stray output of a child process").status();
    format!("said {word} (child ran: {})", child.map(|s| s.success()).unwrap_or(false))
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("noisy", "0.0.0").serve_stdio().await
}
