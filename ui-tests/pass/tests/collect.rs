//! Function shapes: async and sync, every visibility, in modules, in a
//! second file, several per file, no parameters; each is called end to end.
//! A binary of its own, as link-time collection gathers every tool linked
//! into one: this one has only the tools below.

// The cases' shared client: this binary uses part of it.
#[allow(dead_code)]
#[path = "../src/support/client.rs"]
mod client;
#[path = "collect/other_tools.rs"]
mod other_tools;

use client::{call, connect, list, text};
use mcp_runtime::prelude::*;
use serde_json::json;

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Subtract two numbers.
#[tool]
pub fn subtract(a: f64, b: f64) -> f64 {
    a - b
}

/// The server's motto.
#[tool]
pub(crate) fn motto() -> &'static str {
    "tools, typed"
}

mod nested {
    pub mod deeper {
        use mcp_runtime::tool;

        /// Shout a word.
        #[tool]
        pub async fn shout(word: String) -> String {
            word.to_uppercase()
        }

        /// Whisper a word.
        #[tool]
        pub(in crate::nested) fn whisper(word: String) -> String {
            word.to_lowercase()
        }

        pub(crate) fn whisper_tool() -> whisper::Tool {
            whisper::Tool
        }
    }
}

#[tokio::test]
async fn every_shape_is_collected_and_called_and_a_subset_can_be_picked() {
    // The plain functions are still plain functions.
    assert_eq!(add(1.0, 2.0).await, 3.0);
    assert_eq!(subtract(1.0, 2.0), -1.0);

    // Link-time collection finds every tool, in every module and file.
    let mut all = connect(Server::new("shapes", "1")).await;
    let names: Vec<_> = list(&mut all).await.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["add", "motto", "multiply", "negate", "shout", "subtract", "whisper"]);

    assert_eq!(text(&call(&mut all, "add", json!({"a": 2, "b": 3.5})).await), "5.5");
    assert_eq!(text(&call(&mut all, "subtract", json!({"a": 2, "b": 3})).await), "-1");
    assert_eq!(text(&call(&mut all, "motto", json!({})).await), "tools, typed");
    assert_eq!(text(&call(&mut all, "shout", json!({"word": "hey"})).await), "HEY");
    assert_eq!(text(&call(&mut all, "whisper", json!({"word": "HEY"})).await), "hey");
    assert_eq!(text(&call(&mut all, "multiply", json!({"a": 6, "b": -7})).await), "-42");
    assert_eq!(text(&call(&mut all, "negate", json!({"x": 1.5})).await), "-1.5");

    // Explicit registration picks a subset, by path.
    let subset = Server::empty("subset", "1")
        .tool(add::Tool)
        .tool(other_tools::multiply::Tool)
        .tool(nested::deeper::shout::Tool)
        .tool(nested::deeper::whisper_tool());
    let mut some = connect(subset).await;
    let names: Vec<_> = list(&mut some).await.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["add", "multiply", "shout", "whisper"]);
}
