//! A server's internal errors: the client gets only `internal error
//! (incident ID)`, and the server logs the details under the same id on
//! its stderr (mcp-runtime: `ERROR … incident=ID error=… details=…`).
//! When cargo mcp started the server, those lines are shown after the
//! error; otherwise a hint says where the details are.

use crate::connect::ServerLog;
use crate::failure::Failure;
use crate::output::Style;

/// What cargo mcp can add to an error naming an incident.
#[derive(Debug, PartialEq, Eq)]
pub struct Explained {
    /// The server's log lines of the incident, with a heading.
    pub detail: Option<String>,
    /// Where else to look, when no line was found.
    pub hint: Option<String>,
}

/// The first incident id `text` names: `internal error (incident ID)`
/// or `internal error (incident ID): summary`.
pub fn id(text: &str) -> Option<&str> {
    text.match_indices("internal error (incident ").find_map(|(at, marker)| {
        let rest = &text[at + marker.len()..];
        let end = rest.find(|c: char| !is_id_char(c)).unwrap_or(rest.len());
        let id = &rest[..end];
        (!id.is_empty() && rest[end..].starts_with(')')).then_some(id)
    })
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The lines of `log` that name `id` as a whole word (`incident=ID`, or
/// `"incident":"ID"` from a JSON logger), colours taken out.
pub fn lines_of(log: &[String], id: &str) -> Vec<String> {
    log.iter().map(|line| plain(line)).filter(|line| names(line, id)).collect()
}

fn names(line: &str, id: &str) -> bool {
    line.match_indices(id).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + id.len()..].chars().next();
        !before.is_some_and(is_id_char) && !after.is_some_and(is_id_char)
    })
}

/// A line without its ANSI colour sequences.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters, ended by a letter.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// What to add to an error whose text is `text`: nothing when it names no
/// incident; the server's lines of it when `log` (the stderr of a server
/// cargo mcp started) has them; else a hint.
pub fn explain(text: &str, log: Option<&ServerLog>) -> Option<Explained> {
    let id = id(text)?;
    let found = log.map(|log| lines_of(&log.lines(), id)).unwrap_or_default();
    if !found.is_empty() {
        let detail = format!("the server's log of incident {id}:\n{}", found.join("\n"));
        return Some(Explained { detail: Some(detail), hint: None });
    }
    let show = "a development server sends the details to the client with `Server::show_internal_errors(true)`";
    let hint = match log {
        Some(_) => format!(
            "the server logged nothing under incident {id} here: run again with -v to see its whole log, or {show}"
        ),
        None => format!(
            "the details are in the server's own log under incident {id} (-v shows the log only of a server \
             cargo mcp starts itself); {show}"
        ),
    };
    Some(Explained { detail: None, hint: Some(hint) })
}

/// `failure` with what [`explain`] adds for the incident its message names.
pub fn annotate(failure: Failure, log: Option<&ServerLog>) -> Failure {
    let Some(explained) = explain(failure.message(), log) else { return failure };
    let failure = match explained.detail {
        Some(detail) => failure.detail(detail),
        None => failure,
    };
    match explained.hint {
        Some(hint) => failure.hint(hint),
        None => failure.without_hint(),
    }
}

/// The explanation as printed on stderr after an error: the log lines
/// indented, then the hint (as [`Failure::render`] prints them).
pub fn render(explained: &Explained, style: &Style) -> String {
    let mut out = Vec::new();
    if let Some(detail) = &explained.detail {
        out.extend(detail.lines().map(|line| format!("  {}", style.dim(line))));
    }
    if let Some(hint) = &explained.hint {
        out.push(format!("{} {hint}", style.yellow("hint:")));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_either_form_of_the_message() {
        assert_eq!(id("internal error (incident 1a2b-3)"), Some("1a2b-3"));
        assert_eq!(id("`tools/call` failed: internal error (incident 1a2b-3): boom (JSON-RPC error)"), Some("1a2b-3"));
        assert_eq!(id("internal error"), None);
        assert_eq!(id("see (incident 12) later"), None);
    }

    #[test]
    fn only_the_lines_naming_the_whole_id_are_taken() {
        let log: Vec<String> = [
            "2026-01-01T00:00:00Z  INFO mcp_runtime: serving",
            "2026-01-01T00:00:01Z ERROR mcp_runtime::incident: tool panicked incident=1a2b-1 error=boom details=\"boom\"",
            "2026-01-01T00:00:02Z ERROR mcp_runtime::incident: tool panicked incident=1a2b-10 error=other",
            "\x1b[31mERROR\x1b[0m \x1b[3mincident\x1b[0m\x1b[2m=\x1b[0m1a2b-1 coloured",
            r#"{"level":"ERROR","fields":{"incident":"1a2b-1"}}"#,
        ]
        .map(String::from)
        .to_vec();
        let found = lines_of(&log, "1a2b-1");
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].ends_with("details=\"boom\""));
        assert_eq!(found[1], "ERROR incident=1a2b-1 coloured");
    }

    #[test]
    fn without_the_lines_the_hint_names_verbose_and_show_internal_errors() {
        let remote = explain("internal error (incident 9-1)", None).unwrap();
        assert_eq!(remote.detail, None);
        let hint = remote.hint.unwrap();
        assert!(hint.contains("-v") && hint.contains("Server::show_internal_errors(true)") && hint.contains("9-1"));
        let started = explain("internal error (incident 9-1)", Some(&ServerLog::default())).unwrap();
        assert!(started.hint.unwrap().contains("run again with -v"));
        assert_eq!(explain("the fixture fails on purpose", None), None);
    }
}
