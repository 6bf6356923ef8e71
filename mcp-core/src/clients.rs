//! What each real MCP client rejects in a server's definitions, as rules
//! over the definitions exactly as a client receives them (a `Tool`, a
//! `Prompt`, …): the one place `cargo mcp inspect` and
//! `mcp_runtime::testing::check_clients` both read.
//!
//! Each rule cites the client behaviour it encodes (the issues and pull
//! requests collected in the project's client survey); a problem names the
//! client, the definition, the field path and the fix. The portable schema
//! profile (the default) avoids every problem these rules find in schemas
//! made from ordinary Rust types; what remains under the strict profile,
//! in hand-written schemas or in names is reported here.
//!
//! Two rules are judgement calls, documented where they are made:
//! integer bounds beyond 2^53 − 1 are reported for the clients written in
//! JavaScript (the TypeScript SDK and Electron apps), which read every JSON
//! number as a double; and an `outputSchema` is reported for Claude
//! Desktop, which has greyed out or failed tools that declare one.

use serde::Serialize;
use serde_json::Value;

use crate::jsonrpc::JsonObject;
use crate::schema::{SCHEMA_ARRAY_KEYS, SCHEMA_KEYS, SCHEMA_MAP_KEYS};
use crate::tool::Tool;

mod rules;

use rules::{SCHEMA_RULES, output_schema_declared, tool_name};

/// A client (or the model API behind it) with rules of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KnownClient {
    /// Claude Desktop.
    ClaudeDesktop,
    /// Claude Code.
    ClaudeCode,
    /// Cursor.
    Cursor,
    /// GitHub Copilot in VS Code.
    VsCode,
    /// GitHub Copilot in Visual Studio.
    VisualStudio,
    /// Gemini CLI (and Gemini behind other clients).
    GeminiCli,
    /// OpenAI Codex and OpenAI's function calling.
    Codex,
}

impl KnownClient {
    /// Every client, in the order verdicts are shown.
    pub const ALL: [KnownClient; 7] = [
        KnownClient::ClaudeDesktop,
        KnownClient::ClaudeCode,
        KnownClient::Cursor,
        KnownClient::VsCode,
        KnownClient::VisualStudio,
        KnownClient::GeminiCli,
        KnownClient::Codex,
    ];

    /// Its short id, as command lines take it (`claude-desktop`, `codex`, …).
    pub fn id(self) -> &'static str {
        match self {
            KnownClient::ClaudeDesktop => "claude-desktop",
            KnownClient::ClaudeCode => "claude-code",
            KnownClient::Cursor => "cursor",
            KnownClient::VsCode => "vscode",
            KnownClient::VisualStudio => "visual-studio",
            KnownClient::GeminiCli => "gemini-cli",
            KnownClient::Codex => "codex",
        }
    }

    /// Its name, as people write it.
    pub fn name(self) -> &'static str {
        match self {
            KnownClient::ClaudeDesktop => "Claude Desktop",
            KnownClient::ClaudeCode => "Claude Code",
            KnownClient::Cursor => "Cursor",
            KnownClient::VsCode => "VS Code Copilot",
            KnownClient::VisualStudio => "Visual Studio Copilot",
            KnownClient::GeminiCli => "Gemini CLI",
            KnownClient::Codex => "OpenAI Codex",
        }
    }

    /// The client with this [`id`](Self::id).
    pub fn from_id(id: &str) -> Option<KnownClient> {
        KnownClient::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// How badly a client takes a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The client rejects the definition, drops the tool, or fails the
    /// request or the session: a user of that client cannot use it.
    Error,
    /// The client mishandles it but the tool still works in part (a field
    /// read as a string, a bound rounded), or it has been seen to fail in
    /// some releases and not others.
    Warning,
}

/// One thing one client rejects or mishandles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The client.
    pub client: KnownClient,
    /// Whether the client fails on it or only mishandles it.
    pub severity: Severity,
    /// What it is in: `tool add`, `prompt review`, …
    pub item: String,
    /// Where in it, as a path of keys: `inputSchema.properties.shape.oneOf`
    /// (empty for the item itself, such as its name).
    pub path: String,
    /// What the client does with it.
    pub message: String,
    /// How to fix it in the server's code.
    pub fix: String,
}

/// How many errors and warnings: `1 error`, `2 errors, 1 warning`,
/// `1 warning` (empty for none).
pub fn tally<'p>(problems: impl IntoIterator<Item = &'p Problem>) -> String {
    let (mut errors, mut warnings) = (0, 0);
    for problem in problems {
        match problem.severity {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
        }
    }
    let counted = |n: usize, noun: &str| match n {
        0 => None,
        1 => Some(format!("1 {noun}")),
        n => Some(format!("{n} {noun}s")),
    };
    [counted(errors, "error"), counted(warnings, "warning")].into_iter().flatten().collect::<Vec<_>>().join(", ")
}

/// The problems every client has with one tool, as `tools/list` sends it.
pub fn check_tool(tool: &Tool) -> Vec<Problem> {
    let mut found = Found { item: format!("tool {}", tool.name), problems: Vec::new() };
    tool_name(tool, &mut found);
    walk(&tool.input_schema, "inputSchema".into(), Place::Input, true, &mut found);
    if let Some(output) = &tool.output_schema {
        output_schema_declared(&mut found);
        walk(output, "outputSchema".into(), Place::Output, true, &mut found);
    }
    found.problems
}

/// The problems every client has with these tools, one tool after another.
pub fn check_tools<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Vec<Problem> {
    tools.into_iter().flat_map(check_tool).collect()
}

/// Which of a tool's schemas a subschema is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Input,
    Output,
}

/// One subschema, where a client meets it.
struct At<'a> {
    schema: &'a JsonObject,
    path: &'a str,
    place: Place,
    /// The schema's root (`inputSchema` itself).
    root: bool,
}

impl At<'_> {
    fn key(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }
}

/// The problems found so far in one item.
struct Found {
    item: String,
    problems: Vec<Problem>,
}

impl Found {
    /// An error of each of `clients`.
    fn add(&mut self, clients: &[KnownClient], path: &str, message: &str, fix: &str) {
        self.push(Severity::Error, clients, path, message, fix);
    }

    /// A warning of each of `clients`.
    fn warn(&mut self, clients: &[KnownClient], path: &str, message: &str, fix: &str) {
        self.push(Severity::Warning, clients, path, message, fix);
    }

    fn push(&mut self, severity: Severity, clients: &[KnownClient], path: &str, message: &str, fix: &str) {
        for &client in clients {
            self.problems.push(Problem {
                client,
                severity,
                item: self.item.clone(),
                path: path.to_owned(),
                message: message.to_owned(),
                fix: fix.to_owned(),
            });
        }
    }
}

/// Check `schema` and every subschema in it (never data such as `enum` or
/// `default` values).
fn walk(schema: &JsonObject, path: String, place: Place, root: bool, found: &mut Found) {
    let at = At { schema, path: &path, place, root };
    for rule in SCHEMA_RULES {
        rule(&at, found);
    }
    for (key, child) in schema {
        let key = key.as_str();
        if SCHEMA_MAP_KEYS.contains(&key) {
            for (name, child) in child.as_object().into_iter().flatten() {
                if let Value::Object(child) = child {
                    walk(child, format!("{path}.{key}.{name}"), place, false, found);
                }
            }
        } else if SCHEMA_ARRAY_KEYS.contains(&key) && child.is_array() {
            for (i, child) in child.as_array().into_iter().flatten().enumerate() {
                if let Value::Object(child) = child {
                    walk(child, format!("{path}.{key}[{i}]"), place, false, found);
                }
            }
        } else if SCHEMA_KEYS.contains(&key)
            && let Value::Object(child) = child
        {
            walk(child, format!("{path}.{key}"), place, false, found);
        }
    }
}

#[cfg(test)]
mod tests;
