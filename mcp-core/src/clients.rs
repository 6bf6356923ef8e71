//! What each real MCP client rejects in a server's definitions, as rules
//! over the definitions exactly as a client receives them (a `Tool`, a
//! `Prompt`, …): the one place `cargo mcp inspect` and
//! `mcp_runtime::testing::check_clients` both read.
//!
//! Each rule cites the client behaviour it encodes; a problem names the
//! client, the definition, the field path and the fix.

use serde::Serialize;

use crate::tool::Tool;

/// A client (or the model API behind it) with rules of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
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

impl Client {
    /// Every client, in the order verdicts are shown.
    pub const ALL: [Client; 7] = [
        Client::ClaudeDesktop,
        Client::ClaudeCode,
        Client::Cursor,
        Client::VsCode,
        Client::VisualStudio,
        Client::GeminiCli,
        Client::Codex,
    ];

    /// Its short id, as command lines take it (`claude-desktop`, `codex`, …).
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::VsCode => "vscode",
            Client::VisualStudio => "visual-studio",
            Client::GeminiCli => "gemini-cli",
            Client::Codex => "codex",
        }
    }

    /// Its name, as people write it.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::VsCode => "VS Code Copilot",
            Client::VisualStudio => "Visual Studio Copilot",
            Client::GeminiCli => "Gemini CLI",
            Client::Codex => "OpenAI Codex",
        }
    }

    /// The client with this [`id`](Self::id).
    pub fn from_id(id: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// One thing one client rejects or mishandles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The client.
    pub client: Client,
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

/// The problems every client has with one tool, as `tools/list` sends it.
pub fn check_tool(tool: &Tool) -> Vec<Problem> {
    let mut problems = Vec::new();
    let item = format!("tool {}", tool.name);
    let simple = !tool.name.is_empty()
        && tool.name.len() <= 128
        && tool.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !simple {
        // microsoft/vscode#325618, sdl-mcp#34: Visual Studio drops the tool.
        problems.push(Problem {
            client: Client::VisualStudio,
            item,
            path: "name".into(),
            message: "tool names outside ^[a-zA-Z0-9_-]{1,128}$ are rejected".into(),
            fix: "name the tool with letters, digits, `_` and `-` only: #[tool(name = \"…\")]".into(),
        });
    }
    problems
}
