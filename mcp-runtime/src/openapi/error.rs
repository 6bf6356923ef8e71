//! [`OpenApiError`]: what is wrong with a document or its settings, and
//! where in the document (a JSON pointer).

use std::fmt;
use std::path::{Path, PathBuf};

/// A document that cannot be served as it is, or settings that do not
/// fit it. It names where in the document the problem is, as a JSON
/// pointer (`/paths/~1pets/get/parameters/0`), and the file when it was
/// read from one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenApiError {
    kind: Kind,
    pointer: Option<String>,
    message: String,
    file: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The document is malformed.
    Invalid,
    /// The operation is well formed but cannot be a tool.
    Unsupported,
    /// The settings are wrong (a route map, the base URL, the file).
    Config,
}

impl OpenApiError {
    pub(crate) fn at(pointer: &str, message: impl Into<String>) -> OpenApiError {
        OpenApiError { kind: Kind::Invalid, pointer: Some(pointer.to_owned()), message: message.into(), file: None }
    }

    pub(crate) fn unsupported(pointer: &str, message: impl Into<String>) -> OpenApiError {
        OpenApiError { kind: Kind::Unsupported, ..OpenApiError::at(pointer, message) }
    }

    pub(crate) fn config(message: impl Into<String>) -> OpenApiError {
        OpenApiError { kind: Kind::Config, pointer: None, message: message.into(), file: None }
    }

    pub(crate) fn in_file(mut self, file: &Path) -> OpenApiError {
        self.file = Some(file.to_owned());
        self
    }

    pub(crate) fn is_unsupported(&self) -> bool {
        self.kind == Kind::Unsupported
    }

    /// Where in the document the problem is, as a JSON pointer (`""` is
    /// the whole document); `None` for a problem of the settings.
    pub fn pointer(&self) -> Option<&str> {
        self.pointer.as_deref()
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The method and path of the operation the pointer is in (empty
    /// when it is in none).
    pub(crate) fn operation(&self) -> (String, String) {
        let mut segments = self.pointer.as_deref().unwrap_or("").split('/').skip(1);
        match (segments.next(), segments.next(), segments.next()) {
            (Some("paths"), Some(path), Some(method)) => {
                (method.to_ascii_uppercase(), path.replace("~1", "/").replace("~0", "~"))
            }
            _ => (String::new(), String::new()),
        }
    }
}

impl fmt::Display for OpenApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        match self.pointer.as_deref() {
            Some("") => write!(f, "OpenAPI document: {}", self.message),
            Some(pointer) => write!(f, "OpenAPI document at {pointer}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for OpenApiError {}
