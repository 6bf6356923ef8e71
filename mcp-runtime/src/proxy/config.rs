//! A gateway's configuration: the `mcpServers` JSON that MCP clients
//! use (Claude Desktop, Cursor, VS Code), each entry a server to mount
//! under its name.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "calc": { "command": "calculator", "args": ["--stdio"], "env": { "RUST_LOG": "info" } },
//!     "search": { "url": "http://127.0.0.1:8001/mcp", "headers": { "Authorization": "Bearer …" } }
//!   }
//! }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::{Mount, Upstream};
use crate::error::Error;

/// The servers of a configuration, by the name each is mounted under.
#[derive(Clone, Debug)]
pub struct Config {
    servers: BTreeMap<String, Entry>,
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
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    disabled: bool,
    /// Only these tools (and prompts, resources) of the server.
    include: Option<Vec<String>>,
    /// None of these.
    #[serde(default)]
    exclude: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    mcp_servers: BTreeMap<String, serde_json::Value>,
}

impl Config {
    /// Read a configuration file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Config, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidConfig(format!("{} cannot be read: {e}", path.display())))?;
        Config::from_json(&text).map_err(|e| match e {
            Error::InvalidConfig(why) => Error::InvalidConfig(format!("{}: {why}", path.display())),
            other => other,
        })
    }

    /// Read a configuration from its JSON text.
    pub fn from_json(text: &str) -> Result<Config, Error> {
        let file: File = serde_json::from_str(text).map_err(|e| {
            Error::InvalidConfig(format!("not an `mcpServers` configuration ({e}); write {{\"mcpServers\": {{…}}}}"))
        })?;
        let mut servers = BTreeMap::new();
        for (name, value) in file.mcp_servers {
            let entry: Entry =
                serde_json::from_value(value).map_err(|e| Error::InvalidConfig(format!("server `{name}`: {e}")))?;
            entry.check(&name)?;
            if !entry.disabled {
                servers.insert(name, entry);
            }
        }
        if servers.is_empty() {
            return Err(Error::InvalidConfig("`mcpServers` names no server to serve".into()));
        }
        Ok(Config { servers })
    }

    /// The names of the servers, in the order they are mounted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.keys().map(String::as_str)
    }

    /// A [`Mount`] per server, under its name.
    pub fn mounts(&self) -> Vec<Mount> {
        self.servers.iter().map(|(name, entry)| entry.mount(name)).collect()
    }
}

impl Entry {
    fn check(&self, name: &str) -> Result<(), Error> {
        let fail = |why: String| Err(Error::InvalidConfig(format!("server `{name}`: {why}")));
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return fail("a name is letters, digits, `_` and `-` (it prefixes the server's tools)".into());
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
            _ => Ok(()),
        }
    }

    fn mount(&self, name: &str) -> Mount {
        let upstream = match (&self.command, &self.url) {
            (Some(command), _) => Upstream::command_with_env(command, &self.args, &self.env),
            (None, Some(url)) => Upstream::url_with_headers(url, &self.headers),
            (None, None) => unreachable!("checked when read"),
        };
        let mut mount = Mount::new(name, upstream).except(self.exclude.iter().cloned());
        if let Some(include) = &self.include {
            mount = mount.only(include.iter().cloned());
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
                "calc": {"command": "calculator", "args": ["--stdio"], "env": {"A": "1"}},
                "web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X": "y"}},
                "off": {"command": "x", "disabled": true}
            }}"#,
        )
        .unwrap();
        assert_eq!(config.names().collect::<Vec<_>>(), ["calc", "web"]);
        assert_eq!(config.mounts()[0].upstream.label(), "calculator --stdio");
        for (json, says) in [
            (r#"{"servers": {}}"#, "mcpServers"),
            (r#"{"mcpServers": {}}"#, "no server"),
            (r#"{"mcpServers": {"a": {}}}"#, "give a `command`"),
            (r#"{"mcpServers": {"a": {"command": "x", "url": "y"}}}"#, "not both"),
            (r#"{"mcpServers": {"a": {"type": "sse", "url": "y"}}}"#, "Streamable HTTP"),
            (r#"{"mcpServers": {"a b": {"command": "x"}}}"#, "letters, digits"),
            (r#"{"mcpServers": {"a": {"command": 3}}}"#, "server `a`"),
        ] {
            let error = Config::from_json(json).unwrap_err().to_string();
            assert!(error.contains(says), "{json}: {error}");
        }
    }
}
