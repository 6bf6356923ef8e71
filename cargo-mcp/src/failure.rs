//! What went wrong, said so that the user knows what to do next.

use crate::output::Style;

/// A failure of a command: a message, an optional hint with the next step,
/// and the exit status.
#[derive(Debug)]
pub struct Failure {
    message: String,
    hint: Option<String>,
    detail: Option<String>,
    code: u8,
    silent: bool,
}

impl Failure {
    /// A failure with exit status 1.
    pub fn new(message: impl Into<String>) -> Self {
        Failure { message: message.into(), hint: None, detail: None, code: 1, silent: false }
    }

    /// A mistake in the command line: exit status 2, as clap's own.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure { code: 2, ..Failure::new(message) }
    }

    /// A failure whose story has already been told on the terminal (a
    /// tool error, a denied client): only the exit status is left.
    pub fn silent(code: u8) -> Self {
        Failure { silent: true, code, ..Failure::new("") }
    }

    /// Say what to do about it.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Forget the hint (when a better story replaces it).
    pub fn without_hint(mut self) -> Self {
        self.hint = None;
        self
    }

    /// Add text the user may need to see (a server's stderr, a response
    /// body), shown indented below the message, after any given before.
    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        let detail = detail.into();
        if detail.trim().is_empty() {
            return self;
        }
        self.detail = Some(match self.detail.take() {
            Some(before) => format!("{}\n{detail}", before.trim_end()),
            None => detail,
        });
        self
    }

    /// The message alone (for failures wrapped into another).
    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn is_silent(&self) -> bool {
        self.silent
    }

    pub fn exit_code(&self) -> u8 {
        self.code
    }

    /// The failure as printed on stderr.
    pub fn render(&self, style: &Style) -> String {
        let mut out = format!("{} {}", style.red_bold("error:"), self.message);
        if let Some(detail) = &self.detail {
            for line in detail.trim_end().lines() {
                out.push_str("\n  ");
                out.push_str(&style.dim(line));
            }
        }
        if let Some(hint) = &self.hint {
            out.push_str(&format!("\n{} {hint}", style.yellow("hint:")));
        }
        out
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::new(e.to_string())
    }
}
