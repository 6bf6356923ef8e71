//! [`Directory`]: read-only files under one root, for a
//! `file:///{+path}` template, refusing every way out of the root.

use std::path::{Component, Path, PathBuf};

use mcp_core::ResourceContents;

use super::{Blob, IntoResourceContents, ResourceError};

/// A directory whose files a resource template serves read-only.
///
/// `{+path}` may span `/`, which is what makes `file:///{+path}` the
/// classic traversal hole. [`Directory::read`] refuses, as "not found"
/// (saying nothing of what exists outside): `..` and `.` segments, absolute
/// paths, backslashes, NUL bytes and empty segments (whether sent plainly
/// or percent-encoded, since template variables arrive decoded), symlinks
/// that lead out of the root, anything that is not a regular file, and
/// files over the size limit.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::resources::{Directory, DirectoryFile};
///
/// /// A file of the workspace, read-only.
/// #[resource("file:///{+path}")]
/// async fn workspace_file(path: String, files: State<Directory>) -> Result<DirectoryFile, ResourceError> {
///     files.read(&path).await
/// }
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::empty("files", "1")
///     .resource(workspace_file::Resource)
///     .with_state(Directory::new(std::env::temp_dir())?);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Directory {
    root: PathBuf,
    max_size: u64,
}

/// One file read from a [`Directory`]: text for text types, a blob
/// otherwise, with its MIME type from its extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectoryFile {
    bytes: Vec<u8>,
    mime_type: &'static str,
}

impl Directory {
    /// Serve the files under `root` (which must exist: it is resolved now,
    /// symlinks included, and every read must stay inside what it resolved
    /// to).
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Directory> {
        Ok(Directory { root: root.as_ref().canonicalize()?, max_size: 10 * 1024 * 1024 })
    }

    /// Refuse files larger than `bytes` (10 MiB by default).
    pub fn max_size(mut self, bytes: u64) -> Directory {
        self.max_size = bytes;
        self
    }

    /// The file at `relative` (a path under the root, `/`-separated), or
    /// "not found" for anything that is not a regular file inside the root.
    pub async fn read(&self, relative: &str) -> Result<DirectoryFile, ResourceError> {
        let path = self.resolve(relative)?;
        let refused = || ResourceError::not_found(format!("no file `{relative}` in this directory"));
        let metadata = tokio::fs::metadata(&path).await.map_err(|_| refused())?;
        if !metadata.is_file() {
            return Err(refused());
        }
        if metadata.len() > self.max_size {
            return Err(ResourceError::new(format!(
                "`{relative}` is {} bytes, over this directory's limit of {} bytes",
                metadata.len(),
                self.max_size
            )));
        }
        let bytes = tokio::fs::read(&path).await.map_err(|_| refused())?;
        Ok(DirectoryFile { bytes, mime_type: mime_type(&path) })
    }

    /// The root, as it was resolved.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The real path of `relative`, checked to be inside the root.
    pub fn resolve(&self, relative: &str) -> Result<PathBuf, ResourceError> {
        let refused = || ResourceError::not_found(format!("no file `{relative}` in this directory"));
        let plain = !relative.is_empty()
            && !relative.contains(['\\', '\0'])
            && relative.split('/').all(|segment| !matches!(segment, "" | "." | ".."));
        if !plain {
            return Err(refused());
        }
        // Only normal components may remain (no prefix or root: nothing absolute).
        if !Path::new(relative).components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(refused());
        }
        let joined = self.root.join(relative);
        // Symlinks are followed, then the result must still be inside.
        let real = joined.canonicalize().map_err(|_| refused())?;
        if !real.starts_with(&self.root) {
            tracing::warn!(requested = relative, "refused a path that leads out of the served directory");
            return Err(refused());
        }
        Ok(real)
    }
}

impl DirectoryFile {
    /// A file's bytes held in memory, with the MIME type its name calls for.
    pub(crate) fn in_memory(bytes: Vec<u8>, name: &str) -> DirectoryFile {
        DirectoryFile { bytes, mime_type: mime_type(Path::new(name)) }
    }
}

/// The MIME type of a file, by its extension.
pub(crate) fn mime_type(path: &Path) -> &'static str {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("txt" | "log") => "text/plain",
        Some("md" | "markdown") => "text/markdown",
        Some("json") => "application/json",
        Some("toml") => "application/toml",
        Some("yaml" | "yml") => "application/yaml",
        Some("csv") => "text/csv",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        Some("rs") => "text/x-rust",
        Some("py") => "text/x-python",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}

fn is_text(mime_type: &str) -> bool {
    mime_type.starts_with("text/")
        || matches!(
            mime_type,
            "application/json" | "application/toml" | "application/yaml" | "application/xml" | "image/svg+xml"
        )
}

impl IntoResourceContents for DirectoryFile {
    fn into_contents(self, uri: &str, _: Option<&str>) -> Result<Vec<ResourceContents>, ResourceError> {
        if is_text(self.mime_type)
            && let Ok(text) = String::from_utf8(self.bytes.clone())
        {
            let mime_type = Some(self.mime_type.to_owned());
            return Ok(vec![ResourceContents::Text { uri: uri.to_owned(), mime_type, text, meta: None }]);
        }
        Blob::new(self.bytes).with_mime_type(self.mime_type).into_contents(uri, None)
    }
}
