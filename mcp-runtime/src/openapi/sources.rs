//! Where a document comes from, and the documents it refers to: a file or
//! a URL ([`OpenApi::load`]), and the other files or URLs its `$ref`s name,
//! each fetched once and placed inside it with its references rewritten
//! to point there, so the rest of the loader follows local references
//! only. Files beside a file are read; URLs on the document's own origin
//! are fetched as it was; any other URL only when allowed, and then only
//! on the public internet unless private addresses are allowed too (a
//! document from elsewhere could otherwise send this server to its own
//! network).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_client::ssrf;
use reqwest::Url;
use serde_json::{Map, Value};

use super::document::parse_text;
use super::{OpenApi, OpenApiError};

/// Where the documents a document refers to are put in it.
pub(crate) const BUNDLED: &str = "x-mcp-runtime-bundled";

/// How a document and the documents it refers to are read
/// ([`OpenApi::load`]).
#[derive(Clone, Debug)]
pub struct Sources {
    client: Option<reqwest::Client>,
    remote_refs: bool,
    private_addresses: bool,
    max_documents: usize,
    max_bytes: usize,
    timeout: Duration,
}

impl Default for Sources {
    fn default() -> Self {
        Sources::new()
    }
}

impl Sources {
    /// Files beside a file, and URLs on the document's own origin, are
    /// followed; other URLs are refused. At most 64 documents of 16 MiB
    /// each, each fetched within 30 seconds.
    pub fn new() -> Sources {
        Sources {
            client: None,
            remote_refs: false,
            private_addresses: false,
            max_documents: 64,
            max_bytes: 16 << 20,
            timeout: Duration::from_secs(30),
        }
    }

    /// Follow `$ref`s to URLs on other origins than the document's (only
    /// public addresses, unless [`allow_private_addresses`](Self::allow_private_addresses)).
    pub fn allow_remote_refs(mut self, allow: bool) -> Self {
        self.remote_refs = allow;
        self
    }

    /// Let those URLs reach private, loopback and link-local addresses.
    pub fn allow_private_addresses(mut self, allow: bool) -> Self {
        self.private_addresses = allow;
        self
    }

    /// The client the document itself and its own origin's documents are
    /// fetched with (TLS, proxies): a plain one otherwise. Other origins'
    /// documents get a client of their own that checks where it goes.
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// How many documents, the first included, may be read at most.
    pub fn max_documents(mut self, max: usize) -> Self {
        self.max_documents = max.max(1);
        self
    }

    /// How large one document may be, in bytes.
    pub fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = max.max(1);
        self
    }

    /// How long one document's fetch may take, its body included (30
    /// seconds unless set); it holds for a client given by
    /// [`client`](Self::client) too.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl OpenApi {
    /// Read a document from a file or an `http(s)://` URL, JSON or YAML,
    /// with the documents its `$ref`s name (files beside it, URLs on its
    /// origin, other URLs as `sources` allows).
    pub async fn load(location: &str, sources: &Sources) -> Result<OpenApi, OpenApiError> {
        let mut reader = Reader::new(sources)?;
        let (root, base) = match Url::parse(location) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {
                let text = reader.fetch(&url, true).await?;
                (parse_text(&text)?, Base::Url(url))
            }
            _ => {
                let path = PathBuf::from(location);
                let text = reader.read(&path).map_err(|e| e.in_file(&path))?;
                (parse_text(&text).map_err(|e| e.in_file(&path))?, Base::File(path))
            }
        };
        let root = reader.bundle(root, base).await?;
        OpenApi::from_value(root)
    }
}

/// Where a document was read from, which its relative references are
/// relative to.
#[derive(Clone)]
enum Base {
    File(PathBuf),
    Url(Url),
}

impl Base {
    /// The document `location` (a reference without its fragment) names,
    /// seen from this one.
    fn join(&self, location: &str) -> Result<Base, String> {
        match self {
            Base::Url(url) => url.join(location).map(Base::Url).map_err(|e| format!("not a URL: {e}")),
            Base::File(path) => match Url::parse(location) {
                Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(Base::Url(url)),
                Ok(url) if url.scheme().len() > 1 => Err(format!("`{}` URLs are not read", url.scheme())),
                _ => Ok(Base::File(path.parent().unwrap_or(Path::new(".")).join(location))),
            },
        }
    }

    /// The same document's key, whatever the reference's spelling.
    fn key(&self) -> String {
        match self {
            Base::Url(url) => {
                let mut url = url.clone();
                url.set_fragment(None);
                url.to_string()
            }
            Base::File(path) => std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()).display().to_string(),
        }
    }
}

struct Reader<'a> {
    sources: &'a Sources,
    trusted: reqwest::Client,
    /// For other origins: refuses addresses that are not public.
    guarded: reqwest::Client,
    /// The first document's origin, when it came from a URL.
    origin: Option<String>,
    read: usize,
}

impl<'a> Reader<'a> {
    fn new(sources: &'a Sources) -> Result<Reader<'a>, OpenApiError> {
        let setup = |e: reqwest::Error| OpenApiError::config(format!("HTTP setup: {e}"));
        // The deadline is set on each request (`fetch`), so that it holds
        // for a client given by `Sources::client` too.
        let plain = reqwest::Client::builder;
        let trusted = match &sources.client {
            Some(client) => client.clone(),
            None => plain().build().map_err(setup)?,
        };
        let mut guarded = plain().redirect(reqwest::redirect::Policy::none());
        if !sources.private_addresses {
            let hint = "Sources::allow_private_addresses allows it";
            guarded = guarded.dns_resolver(Arc::new(ssrf::PublicOnly::new(hint)));
        }
        Ok(Reader { sources, trusted, guarded: guarded.build().map_err(setup)?, origin: None, read: 0 })
    }

    fn count(&mut self) -> Result<(), OpenApiError> {
        self.read += 1;
        if self.read > self.sources.max_documents {
            let max = self.sources.max_documents;
            return Err(OpenApiError::config(format!(
                "more than {max} documents are referred to (Sources::max_documents)"
            )));
        }
        Ok(())
    }

    fn read(&mut self, path: &Path) -> Result<String, OpenApiError> {
        self.count()?;
        let cannot = |e: std::io::Error| OpenApiError::config(format!("cannot read {}: {e}", path.display()));
        let size = std::fs::metadata(path).map_err(cannot)?.len();
        if size > self.sources.max_bytes as u64 {
            let max = self.sources.max_bytes;
            return Err(OpenApiError::config(format!("{} is over {max} bytes (Sources::max_bytes)", path.display())));
        }
        std::fs::read_to_string(path).map_err(cannot)
    }

    /// Fetch `url`: the first document (`first`) and its origin's with the
    /// trusted client, any other only if remote references are allowed.
    async fn fetch(&mut self, url: &Url, first: bool) -> Result<String, OpenApiError> {
        self.count()?;
        let shown = mcp_runtime_client::redact_url(url.as_str());
        if !matches!(url.scheme(), "http" | "https") {
            return Err(OpenApiError::config(format!("`{shown}`: only files and http(s) URLs are read")));
        }
        let origin = url.origin().ascii_serialization();
        if first {
            self.origin = Some(origin.clone());
        }
        let own = self.origin.as_deref() == Some(origin.as_str());
        let client = match own {
            true => &self.trusted,
            false if !self.sources.remote_refs => {
                return Err(OpenApiError::config(format!(
                    "`{shown}` is on another origin than the document; Sources::allow_remote_refs follows it"
                )));
            }
            false => {
                let private = |ip: &std::net::IpAddr| !ssrf::is_public(*ip);
                if let Some(ip) = ssrf::literal_ip(url).filter(|ip| !self.sources.private_addresses && private(ip)) {
                    return Err(OpenApiError::config(format!(
                        "`{shown}`: {ip} is a private, loopback or link-local address; \
                         Sources::allow_private_addresses allows it"
                    )));
                }
                &self.guarded
            }
        };
        let failed = |e: reqwest::Error| {
            // The innermost cause says what the resolver refused.
            let mut why = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                why = cause.to_string();
                source = cause.source();
            }
            OpenApiError::config(format!("cannot fetch `{shown}`: {why}"))
        };
        let request = client.get(url.clone()).timeout(self.sources.timeout);
        let mut response = request.send().await.map_err(failed)?;
        if !response.status().is_success() {
            return Err(OpenApiError::config(format!("`{shown}` answered {}", response.status())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            body.extend_from_slice(&chunk);
            if body.len() > self.sources.max_bytes {
                let max = self.sources.max_bytes;
                return Err(OpenApiError::config(format!("`{shown}` is over {max} bytes (Sources::max_bytes)")));
            }
        }
        String::from_utf8(body).map_err(|_| OpenApiError::config(format!("`{shown}` is not UTF-8 text")))
    }

    /// `root` with every document its references name (and theirs) inside
    /// it under [`BUNDLED`], each reference rewritten to point there.
    async fn bundle(&mut self, mut root: Value, base: Base) -> Result<Value, OpenApiError> {
        let mut known: HashMap<String, usize> = HashMap::new();
        let mut documents: Vec<Value> = Vec::new();
        let mut pending: Vec<(usize, Base, String)> = Vec::new();
        rewrite(&mut root, "", &base, None, &mut known, &mut pending);
        while let Some((index, base, at)) = pending.pop() {
            let text = match &base {
                Base::Url(url) => self.fetch(url, false).await,
                Base::File(path) => self.read(path),
            }
            .map_err(|e| OpenApiError::at(&at, e.to_string()))?;
            let mut document = parse_text(&text).map_err(|e| OpenApiError::at(&at, e.to_string()))?;
            rewrite(&mut document, &format!("/{BUNDLED}/{index}"), &base, Some(index), &mut known, &mut pending);
            if documents.len() <= index {
                documents.resize(index + 1, Value::Null);
            }
            documents[index] = document;
        }
        if !documents.is_empty() {
            let bundled: Map<String, Value> =
                documents.into_iter().enumerate().map(|(i, d)| (i.to_string(), d)).collect();
            if let Value::Object(map) = &mut root {
                map.insert(BUNDLED.to_owned(), Value::Object(bundled));
            }
        }
        Ok(root)
    }
}

/// Rewrite the references in `value` (a document read from `base`, at
/// `at` in the bundle; `index`: which bundled one, `None` for the first):
/// local ones to where that document now is, others to where the document
/// they name will be, which is queued in `pending` the first time.
fn rewrite(
    value: &mut Value,
    at: &str,
    base: &Base,
    index: Option<usize>,
    known: &mut HashMap<String, usize>,
    pending: &mut Vec<(usize, Base, String)>,
) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref") {
                let (location, fragment) = reference.split_once('#').unwrap_or((reference.as_str(), ""));
                let rewritten = if location.is_empty() {
                    index.map(|i| format!("#/{BUNDLED}/{i}{fragment}"))
                } else {
                    match base.join(location) {
                        Ok(target) => {
                            let next = known.len();
                            let i = *known.entry(target.key()).or_insert_with(|| {
                                pending.push((next, target, format!("{at}/$ref")));
                                next
                            });
                            Some(format!("#/{BUNDLED}/{i}{fragment}"))
                        }
                        // Left as it is: the loader says what is wrong.
                        Err(_) => None,
                    }
                };
                if let Some(rewritten) = rewritten {
                    *reference = rewritten;
                }
            }
            for (key, child) in map.iter_mut() {
                let key = key.replace('~', "~0").replace('/', "~1");
                rewrite(child, &format!("{at}/{key}"), base, index, known, pending);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                rewrite(child, &format!("{at}/{i}"), base, index, known, pending);
            }
        }
        _ => {}
    }
}
