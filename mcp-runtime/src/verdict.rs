//! [`check_clients`]: what each real client would reject in a server's
//! definitions, for a unit test.

use std::fmt;

use mcp_core::clients::{self, KnownClient, Problem, Severity};
use mcp_core::{ProtocolVersion, Tool};

use crate::server::Server;

/// Check every tool of `server`, as the newest protocol version lists it,
/// against the rules of each client in [`KnownClient::ALL`]: which client
/// rejects or mishandles which schema keyword or name, and how to fix it.
/// The rules and their sources are in [`clients`](crate::clients).
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// mcp_runtime::clients::check_clients(&Server::empty("calc", "1").tool(add::Tool)).assert_clear();
/// ```
///
/// # Panics
///
/// If the server fails its start-up check (a duplicate tool name, a schema
/// the profile cannot shape): the error is the panic's message. Use
/// [`ClientReport::for_tools`] with [`Server::tool_definitions`] to handle
/// that error yourself.
pub fn check_clients(server: &Server) -> ClientReport {
    match server.tool_definitions() {
        Ok(tools) => ClientReport::for_tools(&tools),
        Err(error) => panic!("the server fails its start-up check: {error}"),
    }
}

/// What each client has against a server's tools: made by
/// [`check_clients`]. Its `Display` lists the problems per client, each with
/// its severity and fix.
///
/// A problem is an [error](Severity::Error) (the client rejects the tool or
/// fails the request) or a [warning](Severity::Warning) (it mishandles it
/// but the tool works, or fails only in some releases, such as Claude
/// Desktop and output schemas). Only errors count against
/// [`is_clear`](Self::is_clear) and the asserts, unless
/// [`deny_warnings`](Self::deny_warnings) says otherwise: structured output
/// (`Json<T>`) is the advice, and one client's intermittent trouble with it
/// must not fail every test.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientReport {
    problems: Vec<Problem>,
    deny_warnings: bool,
}

impl ClientReport {
    /// The report for these tool definitions (from
    /// [`Server::tool_definitions`]), as the newest protocol version lists
    /// them.
    pub fn for_tools(tools: &[Tool]) -> ClientReport {
        let listed: Vec<Tool> = tools.iter().map(|t| t.for_version(ProtocolVersion::LATEST)).collect();
        ClientReport { problems: clients::check_tools(&listed), deny_warnings: false }
    }

    /// Count warnings as errors too: `check_clients(&server).deny_warnings().assert_clear()`.
    pub fn deny_warnings(mut self) -> Self {
        self.deny_warnings = true;
        self
    }

    /// Whether `problem` counts against the clear verdicts.
    fn counts(&self, problem: &Problem) -> bool {
        problem.severity == Severity::Error || self.deny_warnings
    }

    /// Whether no client has a problem that counts (an error, or any
    /// problem after [`deny_warnings`](Self::deny_warnings)).
    pub fn is_clear(&self) -> bool {
        !self.problems.iter().any(|p| self.counts(p))
    }

    /// Whether `client` has no problem that counts.
    pub fn is_clear_for(&self, client: KnownClient) -> bool {
        !self.problems.iter().any(|p| p.client == client && self.counts(p))
    }

    /// Every problem, warnings included, client by client in the order
    /// tools are listed.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The problems of one client, warnings included.
    pub fn problems_for(&self, client: KnownClient) -> Vec<&Problem> {
        self.problems.iter().filter(|p| p.client == client).collect()
    }

    /// The clients with at least one problem that counts, in
    /// [`KnownClient::ALL`] order.
    pub fn clients_with_problems(&self) -> Vec<KnownClient> {
        KnownClient::ALL.into_iter().filter(|c| !self.is_clear_for(*c)).collect()
    }

    /// Panic with the list of problems unless every client is clear.
    #[track_caller]
    pub fn assert_clear(&self) {
        self.assert_clear_for(&KnownClient::ALL);
    }

    /// Panic with the list of problems unless each of `clients` is clear
    /// (for a server that serves only some clients, or that keeps a strict
    /// schema some of them cannot take).
    #[track_caller]
    pub fn assert_clear_for(&self, clients: &[KnownClient]) {
        if clients.iter().all(|c| self.is_clear_for(*c)) {
            return;
        }
        let problems =
            self.problems.iter().filter(|p| clients.contains(&p.client) && self.counts(p)).cloned().collect();
        let concerned = ClientReport { problems, deny_warnings: self.deny_warnings };
        panic!("some clients would reject or mishandle these tools:\n{concerned}");
    }
}

impl fmt::Display for ClientReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.problems.is_empty() {
            return f.write_str("no client has a problem with these tools");
        }
        for client in KnownClient::ALL {
            let problems = self.problems_for(client);
            if problems.is_empty() {
                continue;
            }
            writeln!(f, "{} ({}): {}", client.name(), client.id(), clients::tally(problems.iter().copied()))?;
            for p in problems {
                let place = if p.path.is_empty() { p.item.clone() } else { format!("{}, {}", p.item, p.path) };
                let severity = match p.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                writeln!(f, "  - {severity}: {place}: {}", p.message)?;
                writeln!(f, "    fix: {}", p.fix)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, input: serde_json::Value) -> Tool {
        Tool::new(name, input.as_object().unwrap().clone())
    }

    #[test]
    fn a_report_lists_problems_per_client_with_their_fixes() {
        let report = ClientReport::for_tools(&[
            tool("fine", json!({"type": "object", "properties": {}})),
            tool("notes.find", json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}})),
        ]);
        assert!(!report.is_clear());
        assert!(report.is_clear_for(KnownClient::ClaudeCode));
        assert_eq!(
            report.clients_with_problems(),
            [KnownClient::Cursor, KnownClient::VisualStudio, KnownClient::GeminiCli]
        );
        let text = report.to_string();
        assert!(
            text.starts_with(
                "Cursor (cursor): 1 error\n  - error: tool notes.find, inputSchema.properties.n.type: a list of types"
            ),
            "{text}"
        );
        assert!(
            text.contains("Visual Studio Copilot (visual-studio): 1 error\n  - error: tool notes.find, name:"),
            "{text}"
        );
        assert!(text.contains("    fix: use the portable schema profile"), "{text}");
        report.assert_clear_for(&[KnownClient::ClaudeCode, KnownClient::Codex]);
        let refused = std::panic::catch_unwind(|| report.assert_clear_for(&[KnownClient::Cursor])).unwrap_err();
        let message = refused.downcast_ref::<String>().unwrap();
        assert!(message.contains("Cursor (cursor)") && !message.contains("Gemini"), "{message}");
    }

    #[test]
    fn warnings_are_shown_but_count_only_when_denied() {
        // An output schema: Claude Desktop has greyed such tools out in some
        // releases, a warning.
        let mut structured = tool("stats", json!({"type": "object", "properties": {}}));
        structured.output_schema =
            Some(json!({"type": "object", "properties": {"n": {"type": "integer"}}}).as_object().unwrap().clone());
        let report = ClientReport::for_tools(&[structured]);
        assert!(report.is_clear() && report.clients_with_problems().is_empty());
        report.assert_clear();
        let text = report.to_string();
        assert!(
            text.starts_with("Claude Desktop (claude-desktop): 1 warning\n  - warning: tool stats, outputSchema:"),
            "{text}"
        );
        let strict = report.deny_warnings();
        assert!(!strict.is_clear() && !strict.is_clear_for(KnownClient::ClaudeDesktop));
        assert_eq!(strict.clients_with_problems(), [KnownClient::ClaudeDesktop]);
        assert!(std::panic::catch_unwind(|| strict.assert_clear()).is_err());
    }
}
