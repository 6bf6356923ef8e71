//! Where a token the client presents comes from: a workload's platform
//! token (a file the platform rotates, an environment variable), or the
//! user's ID token the application holds. Read afresh each time it is
//! needed, since platforms rotate them.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::Error;

/// The largest token file read: far above any JWT a platform issues.
const MAX_TOKEN_BYTES: u64 = 64 * 1024;

/// Where a token comes from.
#[derive(Clone)]
pub struct TokenSource(Source);

#[derive(Clone)]
enum Source {
    File(PathBuf),
    Env(String),
    Fixed(String),
    Callback(Arc<dyn Fn() -> BoxFuture<'static, Result<String, Error>> + Send + Sync>),
}

impl TokenSource {
    /// A file holding the token, read each time (Kubernetes' projected
    /// service account tokens, `AZURE_FEDERATED_TOKEN_FILE`, a file a
    /// sidecar refreshes).
    pub fn file(path: impl Into<PathBuf>) -> TokenSource {
        TokenSource(Source::File(path.into()))
    }

    /// An environment variable holding the token, read each time.
    pub fn env(name: impl Into<String>) -> TokenSource {
        TokenSource(Source::Env(name.into()))
    }

    /// A token the application already has (an ID token from its own
    /// sign-in): used as it is until it is refused.
    pub fn fixed(token: impl Into<String>) -> TokenSource {
        TokenSource(Source::Fixed(token.into()))
    }

    /// A token the application gets on demand (from a platform's metadata
    /// service, or a fresh ID token from its own sign-in).
    pub fn callback<F>(get: F) -> TokenSource
    where
        F: Fn() -> BoxFuture<'static, Result<String, Error>> + Send + Sync + 'static,
    {
        TokenSource(Source::Callback(Arc::new(get)))
    }

    /// The token, now; `what` names it in errors.
    pub(crate) async fn read(&self, what: &str) -> Result<String, Error> {
        let failed = |why: String| Error::transport(format!("authorization: {what}: {why}"));
        let token = match &self.0 {
            Source::File(path) => {
                let shown = path.display();
                let length = tokio::fs::metadata(path).await.map_err(|e| failed(format!("`{shown}`: {e}")))?.len();
                if length > MAX_TOKEN_BYTES {
                    return Err(failed(format!("`{shown}` is larger than {MAX_TOKEN_BYTES} bytes")));
                }
                let bytes = tokio::fs::read(path).await.map_err(|e| failed(format!("`{shown}`: {e}")))?;
                String::from_utf8(bytes).map_err(|_| failed(format!("`{shown}` is not text")))?
            }
            Source::Env(name) => std::env::var(name).map_err(|e| failed(format!("`{name}`: {e}")))?,
            Source::Fixed(token) => token.clone(),
            Source::Callback(get) => get().await?,
        };
        let token = token.trim();
        if token.is_empty() || token.len() as u64 > MAX_TOKEN_BYTES || token.chars().any(char::is_whitespace) {
            return Err(failed("the token is empty or not a single token".to_owned()));
        }
        Ok(token.to_owned())
    }
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::File(path) => f.debug_tuple("TokenSource::File").field(path).finish(),
            Source::Env(name) => f.debug_tuple("TokenSource::Env").field(name).finish(),
            Source::Fixed(_) => f.write_str("TokenSource::Fixed(<redacted>)"),
            Source::Callback(_) => f.write_str("TokenSource::Callback"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_are_read_trimmed_and_bounded() {
        let dir = std::env::temp_dir().join(format!("mcp-token-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "eyJ.a.b\n").unwrap();
        assert_eq!(TokenSource::file(&path).read("the platform token").await.unwrap(), "eyJ.a.b");
        std::fs::write(&path, " \n").unwrap();
        assert!(TokenSource::file(&path).read("t").await.is_err());
        std::fs::write(&path, vec![b'a'; MAX_TOKEN_BYTES as usize + 1]).unwrap();
        assert!(TokenSource::file(&path).read("t").await.is_err());
        let missing = TokenSource::file(dir.join("missing")).read("the platform token").await.unwrap_err();
        assert!(missing.to_string().contains("the platform token"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn other_sources() {
        assert!(TokenSource::env("MCP_TOKEN_SOURCE_TEST_UNSET_VARIABLE").read("t").await.is_err());
        assert_eq!(TokenSource::fixed("abc").read("t").await.unwrap(), "abc");
        assert!(TokenSource::fixed("a b").read("t").await.is_err());
        let source = TokenSource::callback(|| Box::pin(async { Ok("xyz".to_owned()) }));
        assert_eq!(source.read("t").await.unwrap(), "xyz");
        assert!(!format!("{:?}", TokenSource::fixed("secret")).contains("secret"));
    }
}
