//! A gateway's configuration: the `mcpServers` JSON that MCP clients
//! use (Claude Desktop, Cursor, VS Code), each entry a server to mount
//! under its name.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "calc": { "command": "calculator", "args": ["--stdio"], "env": { "RUST_LOG": "info" } },
//!     "search": { "url": "http://127.0.0.1:8001/mcp", "headers": { "Authorization": "Bearer …" } },
//!     "pets": { "openapi": "petstore.yaml", "baseUrl": "http://127.0.0.1:8080/v1" }
//!   }
//! }
//! ```
//!
//! An `openapi` entry (with the feature `openapi`) serves an HTTP API
//! from its OpenAPI document ([`crate::openapi`]), in this process: a
//! relative path is read from the configuration file's folder, and
//! `baseUrl` says where the API is when the document's `servers` do not.
//!
//! The file is read strictly: a key that is neither one this reads nor one
//! that other clients' files carry beside them ([`IGNORED_KEYS`]) is
//! refused, naming the entry and the nearest key it may have meant, so a
//! typo never silently drops an `args` or an `exclude`. Entries are kept
//! in the file's order, which decides between mounts offering the same
//! name (the earlier one wins).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};

use super::{Mount, Upstream};
use crate::error::Error;

/// The keys an entry may have that this reads.
const KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "url",
    "headers",
    "type",
    "transportType",
    "disabled",
    "include",
    "exclude",
    "timeout",
    "taskTimeout",
    "connectTimeout",
    "maxSessions",
    "maxMessageBytes",
    "openapi",
    "baseUrl",
];

/// Keys other clients' configuration files carry in an entry (their own
/// approval lists and notes), accepted and not acted on, so one file
/// serves both.
const IGNORED_KEYS: &[&str] = &["autoApprove", "alwaysAllow", "description"];

/// The servers of a configuration, by the name each is mounted under, in
/// the file's order.
#[derive(Clone, Debug)]
pub struct Config {
    servers: Vec<(String, Entry)>,
}

/// One entry of `mcpServers`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// `stdio`, `http`/`streamable-http`, or `sse` (refused).
    #[serde(rename = "type", alias = "transportType")]
    kind: Option<String>,
    #[serde(default)]
    disabled: bool,
    /// Only these tools (and prompts, resources) of the server.
    include: Option<Vec<String>>,
    /// None of these.
    #[serde(default)]
    exclude: Vec<String>,
    /// Seconds a forwarded request may take ([`Mount::timeout`]).
    timeout: Option<f64>,
    /// Seconds a call may take once it is a task ([`Mount::task_timeout`]).
    task_timeout: Option<f64>,
    /// Seconds connecting and the first lists may take
    /// ([`Mount::connect_timeout`]).
    connect_timeout: Option<f64>,
    /// Client sessions with a connection of their own at once
    /// ([`Mount::max_sessions`]).
    max_sessions: Option<usize>,
    /// The largest message read from the server, in bytes
    /// ([`Mount::max_message_bytes`]).
    max_message_bytes: Option<usize>,
    /// An OpenAPI document to serve, in this process.
    openapi: Option<String>,
    /// Where that API is.
    base_url: Option<String>,
    /// The configuration file's folder, which a relative `openapi` path
    /// is read from.
    #[serde(skip)]
    folder: Option<std::path::PathBuf>,
    /// The server an `openapi` entry's document became, built once when
    /// the file is read and shared by every mount made from it.
    #[serde(skip)]
    served: Option<Upstream>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    mcp_servers: Ordered,
}

/// The entries of `mcpServers` in the file's order (a map type would sort
/// them or depend on a feature of the JSON crate).
struct Ordered(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of servers by name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut entries: Vec<(String, serde_json::Value)> = Vec::new();
                while let Some((name, value)) = map.next_entry::<String, serde_json::Value>()? {
                    if entries.iter().any(|(n, _)| *n == name) {
                        return Err(serde::de::Error::custom(format!("the server `{name}` is named twice")));
                    }
                    entries.push((name, value));
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

impl Config {
    /// Read a configuration file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Config, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidConfig(format!("{} cannot be read: {e}", path.display())))?;
        Config::read(&text, path.parent()).map_err(|e| match e {
            Error::InvalidConfig(why) => Error::InvalidConfig(format!("{}: {why}", path.display())),
            other => other,
        })
    }

    /// Read a configuration from its JSON text (a relative `openapi` path
    /// is read from the current folder).
    pub fn from_json(text: &str) -> Result<Config, Error> {
        Config::read(text, None)
    }

    fn read(text: &str, folder: Option<&Path>) -> Result<Config, Error> {
        let file: File = serde_json::from_str(text).map_err(|e| {
            Error::InvalidConfig(format!("not an `mcpServers` configuration ({e}); write {{\"mcpServers\": {{…}}}}"))
        })?;
        let mut servers = Vec::new();
        for (name, value) in file.mcp_servers.0 {
            let fail = |why: String| Error::InvalidConfig(format!("server `{name}`: {why}"));
            let serde_json::Value::Object(object) = &value else {
                return Err(fail("an entry is an object (`{\"command\": …}` or `{\"url\": …}`)".into()));
            };
            if let Some(key) =
                object.keys().find(|k| !KEYS.contains(&k.as_str()) && !IGNORED_KEYS.contains(&k.as_str()))
            {
                return Err(fail(unknown_key(key)));
            }
            let mut entry: Entry = serde_json::from_value(value).map_err(|e| fail(e.to_string()))?;
            entry.check(&name)?;
            // A disabled entry is checked like the others but not served,
            // so an `openapi` document of one is not even read.
            if !entry.disabled {
                entry.folder = folder.map(Path::to_path_buf);
                entry.serve_openapi().map_err(fail)?;
                servers.push((name, entry));
            }
        }
        if servers.is_empty() {
            return Err(Error::InvalidConfig("`mcpServers` names no server to serve".into()));
        }
        Ok(Config { servers })
    }

    /// The names of the servers, in the order they are mounted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.iter().map(|(name, _)| name.as_str())
    }

    /// A [`Mount`] per server, under its name, in the file's order.
    pub fn mounts(&self) -> Vec<Mount> {
        self.servers.iter().map(|(name, entry)| entry.mount(name)).collect()
    }
}

/// Why `key` is refused, with the known key nearest to it.
fn unknown_key(key: &str) -> String {
    let lower = key.to_lowercase();
    let nearest = KEYS
        .iter()
        .chain(IGNORED_KEYS)
        .map(|known| (strsim::osa_distance(&lower, &known.to_lowercase()), *known))
        .filter(|(distance, known)| *distance <= 2.max(known.len() / 4))
        .min();
    match nearest {
        Some((_, known)) => format!("unknown key `{key}`; did you mean `{known}`?"),
        None => format!("unknown key `{key}`; an entry's keys are {}", KEYS.join(", ")),
    }
}

/// `seconds` as a duration, if it is one.
fn seconds(key: &str, seconds: Option<f64>) -> Result<Option<Duration>, String> {
    match seconds {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 * 365.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(format!("`{key}` is a number of seconds above 0, not {s}")),
    }
}

impl Entry {
    /// Whether the entry is one that can be served (an `openapi` entry's
    /// document is read later, by [`Entry::serve_openapi`]).
    fn check(&self, name: &str) -> Result<(), Error> {
        let fail = |why: String| Err(Error::InvalidConfig(format!("server `{name}`: {why}")));
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return fail("a name is letters, digits, `_` and `-` (it prefixes the server's tools)".into());
        }
        let timeouts = seconds("timeout", self.timeout)
            .and(seconds("taskTimeout", self.task_timeout))
            .and(seconds("connectTimeout", self.connect_timeout));
        if let Err(why) = timeouts {
            return fail(why);
        }
        if self.max_sessions == Some(0) || self.max_message_bytes == Some(0) {
            return fail("`maxSessions` and `maxMessageBytes` are at least 1".into());
        }
        if self.openapi.is_some() {
            return self.check_openapi(name);
        }
        if self.base_url.is_some() {
            return fail("`baseUrl` goes with `openapi`".into());
        }
        match (self.kind.as_deref(), &self.command, &self.url) {
            (Some("sse"), _, _) => fail(
                "the old HTTP+SSE transport is not supported; use the server's Streamable HTTP endpoint \
                 (`\"url\"` without `\"type\": \"sse\"`)"
                    .into(),
            ),
            (Some(kind), _, _) if !matches!(kind, "stdio" | "http" | "streamable-http" | "streamableHttp") => {
                fail(format!("unknown `type` `{kind}`: write `stdio` or `http`"))
            }
            (_, Some(_), Some(_)) => fail("give either `command` or `url`, not both".into()),
            (_, None, None) => fail("give a `command` (with `args`) or a `url`".into()),
            (_, Some(_), None) if !self.headers.is_empty() => {
                fail("`headers` go with a `url`; a `command` takes `env`".into())
            }
            _ => Ok(()),
        }
    }

    /// An `openapi` entry: nothing of the other kinds.
    fn check_openapi(&self, name: &str) -> Result<(), Error> {
        let fail = |why: String| Err(Error::InvalidConfig(format!("server `{name}`: {why}")));
        if self.command.is_some() || self.url.is_some() || self.kind.is_some() {
            return fail("give one of `command`, `url` or `openapi`".into());
        }
        if !self.headers.is_empty() || !self.args.is_empty() || !self.env.is_empty() {
            return fail("`openapi` takes `baseUrl`, not `headers`, `args` or `env`".into());
        }
        Ok(())
    }

    /// For an `openapi` entry, read its document and build its server,
    /// once, when the file is read: a mistake is reported with the file,
    /// and every mount made from the entry serves what was read.
    fn serve_openapi(&mut self) -> Result<(), String> {
        if self.openapi.is_some() {
            self.served = Some(Upstream::from(self.openapi_server()?));
        }
        Ok(())
    }

    /// The server of an `openapi` entry.
    #[cfg(feature = "openapi")]
    fn openapi_server(&self) -> Result<crate::Server, String> {
        let file = Path::new(self.openapi.as_deref().unwrap_or(""));
        let path = match &self.folder {
            Some(folder) if file.is_relative() => folder.join(file),
            _ => file.to_path_buf(),
        };
        let mut api = crate::openapi::OpenApi::from_file(path).map_err(|e| e.to_string())?;
        if let Some(url) = &self.base_url {
            api = api.base_url(url);
        }
        crate::Server::from_openapi(&api).map_err(|e| e.to_string())
    }

    #[cfg(not(feature = "openapi"))]
    fn openapi_server(&self) -> Result<crate::Server, String> {
        Err("`openapi` entries need the feature `openapi` of mcp-runtime".into())
    }

    fn mount(&self, name: &str) -> Mount {
        let upstream = match (&self.served, &self.command, &self.url) {
            (Some(served), _, _) => served.clone(),
            (None, Some(command), _) => Upstream::command_with_env(command, &self.args, &self.env),
            (None, None, Some(url)) => Upstream::url_with_headers(url, &self.headers),
            (None, None, None) => unreachable!("checked when read (an `openapi` entry is built then)"),
        };
        let mut mount = Mount::new(name, upstream).except(self.exclude.iter().cloned());
        if let Some(include) = &self.include {
            mount = mount.only(include.iter().cloned());
        }
        if let Ok(Some(timeout)) = seconds("timeout", self.timeout) {
            mount = mount.timeout(timeout);
        }
        if let Ok(Some(timeout)) = seconds("taskTimeout", self.task_timeout) {
            mount = mount.task_timeout(timeout);
        }
        if let Ok(Some(timeout)) = seconds("connectTimeout", self.connect_timeout) {
            mount = mount.connect_timeout(timeout);
        }
        if let Some(max) = self.max_sessions {
            mount = mount.max_sessions(max);
        }
        if let Some(max) = self.max_message_bytes {
            mount = mount.max_message_bytes(max);
        }
        mount
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_commands_or_urls_and_mistakes_say_what_to_write() {
        let config = Config::from_json(
            r#"{"mcpServers": {
                "web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X": "y"}, "timeout": 5, "taskTimeout": 60},
                "calc": {"command": "calculator", "args": ["--stdio"], "env": {"A": "1"}, "autoApprove": []},
                "off": {"command": "x", "disabled": true},
                "api": {"openapi": "/no/such/file.yaml", "disabled": true}
            }}"#,
        )
        .unwrap();
        // A disabled entry is not served: its document is not even read
        // (but the entry is checked like the others, below).
        assert_eq!(config.names().collect::<Vec<_>>(), ["web", "calc"], "the file's order");
        assert_eq!(config.mounts()[0].timeout, Duration::from_secs(5));
        assert_eq!(config.mounts()[0].task_timeout, Duration::from_secs(60));
        for (json, says) in [
            (r#"{"servers": {}}"#, "mcpServers"),
            (r#"{"mcpServers": {}}"#, "no server"),
            (r#"{"mcpServers": {"a": {}}}"#, "give a `command`"),
            (r#"{"mcpServers": {"a": {"command": "x", "url": "y"}}}"#, "not both"),
            (r#"{"mcpServers": {"a": {"type": "sse", "url": "y"}}}"#, "Streamable HTTP"),
            (r#"{"mcpServers": {"a b": {"command": "x"}}}"#, "letters, digits"),
            (r#"{"mcpServers": {"a": {"command": 3}}}"#, "server `a`"),
            (r#"{"mcpServers": {"a": 3}}"#, "an entry is an object"),
            (
                r#"{"mcpServers": {"wiki": {"command": "x", "arg": ["y"]}}}"#,
                "server `wiki`: unknown key `arg`; did you mean `args`?",
            ),
            (r#"{"mcpServers": {"a": {"command": "x", "exlude": ["y"]}}}"#, "did you mean `exclude`?"),
            (r#"{"mcpServers": {"a": {"command": "x", "exclud": ["y"]}}}"#, "did you mean `exclude`?"),
            (r#"{"mcpServers": {"a": {"command": "x", "zzzzzzzz": 1}}}"#, "an entry's keys are command, args"),
            (r#"{"mcpServers": {"a": {"command": "x", "timeout": 0}}}"#, "`timeout` is a number of seconds"),
            (r#"{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}"#, "`headers` go with a `url`"),
            (r#"{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}"#, "named twice"),
            (r#"{"mcpServers": {"a": {"command": "x", "openapi": "y"}}}"#, "one of `command`, `url` or `openapi`"),
            (r#"{"mcpServers": {"a": {"command": "x", "baseUrl": "y"}}}"#, "`baseUrl` goes with `openapi`"),
            (
                r#"{"mcpServers": {"a": {"openapi": "/no/such/file.yaml"}}}"#,
                if cfg!(feature = "openapi") { "cannot read /no/such/file.yaml" } else { "the feature `openapi`" },
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x"}, "b": {"url": "y", "baseUrl": "z", "disabled": true}}}"#,
                "server `b`",
            ),
        ] {
            let error = Config::from_json(json).unwrap_err().to_string();
            assert!(error.contains(says), "{json}: {error}");
        }
    }
}
