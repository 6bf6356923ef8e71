//! What a resource function returns: [`IntoResourceContents`] turns it into
//! the contents of a `resources/read` result, and [`ResourceError`] is the
//! failure the client is told about.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_core::ResourceContents;

use crate::request::Rejection;
use crate::tools::{Json, StructuredOutput};

/// A value a `#[resource]` function can return. `uri` is the URI being
/// read; `mime_type` the one the resource declares, if any.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "not resource contents",
    note = "a resource returns text (`String`, `&str`), bytes (`Vec<u8>`, `Blob`), `Json<T>`, `ResourceContents`, a `Vec` of those, or a `Result<T, E>` of those whose error converts into `ResourceError`"
)]
pub trait IntoResourceContents {
    /// The contents sent to the client.
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError>;
}

fn text(uri: &str, mime_type: Option<&str>, default_mime: &str, text: String) -> ResourceContents {
    let mime_type = Some(mime_type.unwrap_or(default_mime).to_owned());
    ResourceContents::Text { uri: uri.to_owned(), mime_type, text, meta: None }
}

/// Text: `text/plain` unless the resource declares another type.
impl IntoResourceContents for String {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![text(uri, mime_type, "text/plain", self)])
    }
}

impl IntoResourceContents for &str {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        self.to_owned().into_contents(uri, mime_type)
    }
}

/// JSON text: `application/json` unless the resource declares another type.
/// A `None` field is left out, as in a tool's `Json<T>` output: one rule
/// for all structured output, read back by serde as the same `None`.
impl<T: StructuredOutput> IntoResourceContents for Json<T> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        let mut value = serde_json::to_value(&self.0).map_err(ResourceError::internal)?;
        // The schema is made only for a value that holds a `null` (most do
        // not), and says which of them are `None` fields and which mean
        // something (a list's element, a map's value, a `Value`).
        if mcp_core::schema::contains_null(&value) {
            let raw = schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
            let shaped = mcp_core::schema::output_schema(mcp_core::schema::SchemaProfile::Portable, raw.into());
            if let Ok(serde_json::Value::Object(schema)) = shaped {
                mcp_core::schema::omit_optional_nulls(&mut value, &schema);
            }
        }
        Ok(vec![text(uri, mime_type, "application/json", value.to_string())])
    }
}

/// Bytes, sent base64-encoded: `application/octet-stream` unless the
/// resource declares another type.
impl IntoResourceContents for Vec<u8> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        Blob::new(self).into_contents(uri, mime_type)
    }
}

/// Bytes with a MIME type of their own (which wins over the resource's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob {
    bytes: Vec<u8>,
    mime_type: Option<String>,
}

impl Blob {
    /// Bytes of the resource's declared type.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Blob { bytes: bytes.into(), mime_type: None }
    }

    /// Say what the bytes are (`image/png`).
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

impl IntoResourceContents for Blob {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        let mime_type = self.mime_type.or_else(|| mime_type.map(str::to_owned));
        let mime_type = Some(mime_type.unwrap_or_else(|| "application/octet-stream".to_owned()));
        Ok(vec![ResourceContents::Blob {
            uri: uri.to_owned(),
            mime_type,
            blob: STANDARD.encode(self.bytes),
            meta: None,
        }])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self])
    }
}

/// Several contents at once (a directory's files, a page of records).
impl<T: IntoResourceContents> IntoResourceContents for Vec<T> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        let mut all = Vec::with_capacity(self.len());
        for item in self {
            all.extend(item.into_contents(uri, mime_type)?);
        }
        Ok(all)
    }
}

impl<T: IntoResourceContents, E: Into<ResourceError>> IntoResourceContents for Result<T, E> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        self.map_err(Into::into)?.into_contents(uri, mime_type)
    }
}

/// Why a resource could not be read. [`ResourceError::new`]'s message is
/// shown to the client; [`ResourceError::not_found`] is the protocol's
/// resource-not-found error; any other error converts with `?` into an
/// internal one, logged in full and shown only as "internal error" with an
/// incident id.
pub struct ResourceError {
    pub(crate) kind: Failure,
    pub(crate) message: String,
    pub(crate) internal: Option<Box<dyn std::error::Error + Send + Sync>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    NotFound,
    Shown,
    Internal,
}

impl ResourceError {
    /// An error whose message is shown to the client.
    pub fn new(message: impl Into<String>) -> Self {
        ResourceError { kind: Failure::Shown, message: message.into(), internal: None }
    }

    /// There is no resource at this URI (for a template whose variables
    /// name nothing that exists); `message` says why.
    pub fn not_found(message: impl Into<String>) -> Self {
        ResourceError { kind: Failure::NotFound, message: message.into(), internal: None }
    }

    /// An error whose details are logged but never shown to the client.
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        ResourceError { kind: Failure::Internal, message: "internal error".into(), internal: Some(error.into()) }
    }

    /// What the client sees.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Any error converts with `?`, as an internal error.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for ResourceError {
    fn from(error: E) -> Self {
        ResourceError::internal(error)
    }
}

/// An extractor's rejection ends the read with the same error.
impl From<Rejection> for ResourceError {
    fn from(rejection: Rejection) -> Self {
        match rejection.internal {
            Some(error) => ResourceError::internal(error),
            None => ResourceError::new(rejection.message),
        }
    }
}

impl fmt::Debug for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceError").field("message", &self.message).field("internal", &self.internal).finish()
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.internal {
            Some(e) => write!(f, "internal error: {e}"),
            None => f.write_str(&self.message),
        }
    }
}
