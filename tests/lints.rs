//! Generated code is clean under clippy's strictest groups: CI runs clippy
//! on this file with `-D warnings`, and every `#[tool]` shape appears here.
//! (`ui-tests/pass/src/hygiene_lints.rs` checks rustc's own lints.)
//!
//! And the house keeps its shape: no library source file is over
//! [`MAX_LINES`] lines (`ARCHITECTURE.md` says where things live).

#![deny(
    missing_docs,
    unused_qualifications,
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    clippy::missing_docs_in_private_items
)]

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use mcp_runtime::prelude::*;
use mcp_runtime::request::{FromRequest, Rejection, RequestParts};

/// A value the runtime supplies.
struct Tag(String);

impl FromRequest for Tag {
    fn from_request(call: &mut RequestParts) -> Result<Self, Rejection> {
        Ok(Self(call.request_id().to_string()))
    }
}

/// Add two numbers.
#[tool(read_only, idempotent, timeout = "5s")]
async fn add(
    /// The left operand
    a: f64,
    /// The right operand
    #[arg(default = 1.0)]
    b: f64,
) -> f64 {
    tokio::task::yield_now().await;
    a + b
}

/// Greet someone.
#[tool(
    name = "greet.v2",
    title = "Greet",
    icon = "https://example.com/g.png",
    icon(src = "https://example.com/g.svg", mime_type = "image/svg+xml", sizes = ["any"], theme = "light"),
    meta("com.example/x" = 1)
)]
fn greet(
    #[arg(rename = "who", description = "Whom")] name: Option<String>,
    #[arg(default)] loud: bool,
    tag: Tag,
) -> String {
    let line = format!("hello {} ({})", name.unwrap_or_default(), tag.0);
    if loud { line.to_uppercase() } else { line }
}

/// No parameters, no output.
#[tool]
fn nothing() {}

/// Fails.
#[tool(description = "Always fails.")]
fn fails() -> Result<String, ToolError> {
    Err(ToolError::new("no"))
}

#[test]
fn every_shape_defines_a_tool() {
    let server = Server::empty("lints", "1").tool(add::Tool).tool(greet::Tool).tool(nothing::Tool).tool(fails::Tool);
    let names: Vec<String> = server.tool_definitions().unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["add", "fails", "greet.v2", "nothing"]);
}

/// The most lines a library source file may have. A longer one holds more
/// than one job: split it by responsibility, each file's job in its `//!`
/// doc, and put its tests in a sibling `tests.rs`.
const MAX_LINES: usize = 500;

/// The crates whose `src/` is held to [`MAX_LINES`].
const CRATES: [&str; 5] = ["mcp-core", "mcp-macros", "mcp-runtime", "mcp-client", "cargo-mcp"];

/// Every Rust file under `dir`, test files (`tests.rs`, or under a `tests/`
/// folder) left out.
fn library_sources(dir: &Path, found: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path();
        if path.is_dir() {
            if path.file_name() != Some(OsStr::new("tests")) {
                library_sources(&path, found);
            }
        } else if path.extension() == Some(OsStr::new("rs")) && path.file_name() != Some(OsStr::new("tests.rs")) {
            found.push(path);
        }
    }
}

#[test]
fn no_library_source_file_is_over_500_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the repository's root");
    let mut files = Vec::new();
    for krate in CRATES {
        library_sources(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > CRATES.len(), "no sources found under {}", root.display());
    files.sort();
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let lines = text.lines().count();
            let shown = path.strip_prefix(root).unwrap_or(path).display();
            (lines > MAX_LINES).then(|| format!("{shown}: {lines} lines"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "library source files over {MAX_LINES} lines; split each by responsibility (one job per file, said in its \
         `//!` doc) and move its tests to a sibling `tests.rs`:\n{}",
        long.join("\n")
    );
}
