//! Printing for people: colours when the stream is a terminal (and
//! `NO_COLOR` is unset), and the content blocks of results.

use std::io::IsTerminal;

use base64::Engine as _;
use mcp_core::{Content, ResourceContents};
use serde_json::Value;

/// Whether and how to colour one output stream.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    colour: bool,
}

impl Style {
    pub fn stdout() -> Self {
        Style { colour: std::io::stdout().is_terminal() && wants_colour() }
    }

    pub fn stderr() -> Self {
        Style { colour: std::io::stderr().is_terminal() && wants_colour() }
    }

    /// No colour, whatever the terminal: for tests.
    #[cfg(test)]
    pub fn plain() -> Self {
        Style { colour: false }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }

    pub fn yellow(&self, text: &str) -> String {
        self.paint("33", text)
    }

    pub fn red(&self, text: &str) -> String {
        self.paint("31", text)
    }

    pub fn red_bold(&self, text: &str) -> String {
        self.paint("1;31", text)
    }

    pub fn cyan(&self, text: &str) -> String {
        self.paint("36", text)
    }
}

fn wants_colour() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// A progress line on stderr ("Building …"), in cargo's manner.
pub fn progress(verb: &str, what: &str) {
    let style = Style::stderr();
    eprintln!("{} {what}", style.green(&format!("{verb:>12}")));
}

/// Pretty JSON, indented by `indent` spaces after the first line.
pub fn pretty(value: &Value, indent: usize) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    let pad = " ".repeat(indent);
    text.lines().collect::<Vec<_>>().join(&format!("\n{pad}"))
}

/// One content block as text a person reads: text as it is, media and
/// links as a one-line summary.
pub fn content(block: &Content, style: &Style) -> String {
    match block {
        Content::Text(text) => text.text.clone(),
        Content::Image(media) => style.cyan(&format!("[image: {}, {}]", media.mime_type, size_of_base64(&media.data))),
        Content::Audio(media) => style.cyan(&format!("[audio: {}, {}]", media.mime_type, size_of_base64(&media.data))),
        Content::ResourceLink(link) => {
            let mut line = format!("[resource link: {} ({})", link.uri, link.name);
            if let Some(mime) = &link.mime_type {
                line.push_str(&format!(", {mime}"));
            }
            line.push(']');
            if let Some(description) = &link.description {
                line.push_str(&format!(" {description}"));
            }
            style.cyan(&line)
        }
        Content::Resource(embedded) => {
            let contents = resource_contents(&embedded.resource, style);
            format!("{}\n{contents}", style.cyan(&format!("[embedded resource: {}]", uri_of(&embedded.resource))))
        }
    }
}

/// The contents of a resource: text as it is, a blob as a summary.
pub fn resource_contents(contents: &ResourceContents, style: &Style) -> String {
    match contents {
        ResourceContents::Text { text, .. } => text.clone(),
        ResourceContents::Blob { blob, mime_type, .. } => {
            let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
            style.cyan(&format!("[blob: {mime}, {}]", size_of_base64(blob)))
        }
    }
}

pub fn uri_of(contents: &ResourceContents) -> &str {
    match contents {
        ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
    }
}

fn size_of_base64(data: &str) -> String {
    match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(bytes) => format!("{} bytes", bytes.len()),
        Err(_) => format!("{} characters of invalid base64", data.len()),
    }
}
