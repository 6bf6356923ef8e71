//! Errors that stop a server from starting or serving. (Failures of a
//! single request never do: they become JSON-RPC errors or `isError`
//! results.)

use std::fmt;
use std::io;

/// Why a server could not start or stopped serving.
#[non_exhaustive]
pub enum Error {
    /// Two tools share a name; a client could reach only one of them.
    DuplicateTool {
        /// The shared name.
        name: String,
        /// The Rust item of the first tool.
        first: String,
        /// The Rust item of the second tool.
        second: String,
    },
    /// A tool is pinned to a version it does not have
    /// ([`Server::pin_version`](crate::Server::pin_version)).
    UnknownVersion {
        /// The tool's name.
        tool: String,
        /// The version pinned.
        version: String,
        /// The versions it has, oldest first (none: no tool has the name,
        /// or none of its registrations has a version).
        versions: Vec<String>,
    },
    /// A tool was given a blank version
    /// ([`ToolBuilder::version`](crate::tools::ToolBuilder::version)).
    InvalidVersion {
        /// The tool's name.
        tool: String,
        /// The Rust item it is made from.
        rust_path: String,
    },
    /// A tool's input schema cannot be shaped by the server's profile.
    Schema {
        /// The tool's name.
        tool: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// What is wrong with the schema.
        source: mcp_core::SchemaError,
    },
    /// A tool's input schema is not valid JSON Schema 2020-12, or uses a
    /// pattern the runtime's regex engine cannot run (look-around,
    /// back-references, `\p{…}`), so its arguments cannot be checked.
    InvalidSchema {
        /// The tool's name.
        tool: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// What the validator objected to.
        reason: String,
    },
    /// A tool's input schema marks an argument with `x-mcp-header` where
    /// the spec does not allow it (not a top-level property path, not a
    /// string, integer or boolean, not a header name, or a name given
    /// twice).
    InvalidParamHeader {
        /// The tool's name.
        tool: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// What is wrong.
        reason: String,
    },
    /// A tool takes a `State<T>` that the server does not have.
    MissingState {
        /// What needs it: `"tool"`, `"resource"`.
        kind: &'static str,
        /// The tool's name, or the resource's URI (template).
        name: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// The type `T`.
        state: &'static str,
    },
    /// Two resources (or two templates) have one URI.
    DuplicateResource {
        /// The URI or URI template.
        uri: String,
        /// One Rust item.
        first: String,
        /// The other.
        second: String,
    },
    /// A resource that cannot be served as declared: a malformed URI
    /// template, a template variable of a type that is not text, or two
    /// templates that can match one URI.
    InvalidResource {
        /// The URI or URI template.
        uri: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A prompt that cannot be served as declared: an argument of a type
    /// that is not text, two prompts with one name.
    InvalidPrompt {
        /// The prompt's name.
        name: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A tool, resource or prompt requires a scope that no token could
    /// carry (empty, or with a space, `"` or `\\`).
    InvalidScope {
        /// What requires it: `"tool"`, `"resource"`, `"prompt"`.
        kind: &'static str,
        /// The tool's or prompt's name, or the resource's URI (template).
        name: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// What is wrong with the scope.
        reason: String,
    },
    /// A skill that cannot be served (`Server::skills`, `Server::skill`):
    /// no `SKILL.md`, frontmatter that does not name and describe it, a
    /// name unlike its folder's, more files or bytes than hosts accept.
    InvalidSkill {
        /// Where it is: its folder, or its skill path.
        path: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A tool names a view (`#[tool(ui = "ui://…")]`) that the server does
    /// not serve.
    MissingView {
        /// The tool's name.
        tool: String,
        /// The Rust item it is made from.
        rust_path: String,
        /// The view's URI.
        uri: String,
    },
    /// A rate limit allows no calls or has no period.
    InvalidRateLimit {
        /// The tool it was set on, or `None` for the server-wide limit.
        tool: Option<String>,
        /// The limit as given.
        limit: crate::tools::RateLimit,
    },
    /// The keys given to `Server::request_state_keys` cannot sign
    /// (none, or one shorter than 32 bytes).
    InvalidRequestStateKeys(String),
    /// The key given to `UserStore::key` cannot sign state handles
    /// (shorter than 32 bytes).
    InvalidUserStateKey(String),
    /// The [`OAuth`](crate::transport::OAuth) settings cannot protect the endpoint
    /// (a resource or issuer that is not an absolute `https` URL, say).
    #[cfg(feature = "oauth")]
    InvalidOAuth(String),
    /// The transport chosen at launch cannot be used (for
    /// [`Server::run`](crate::Server::run)): `--http` without an address,
    /// an unknown `MCP_TRANSPORT`, or HTTP without the `http` feature. The
    /// text says what to change.
    Launch(String),
    /// A route added with [`HttpOptions::route`](crate::transport::HttpOptions::route)
    /// cannot be served: a path the server serves itself, one added twice,
    /// or one the router cannot take.
    #[cfg(feature = "http")]
    InvalidRoute {
        /// The route's path.
        path: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A gateway's configuration cannot be used (see
    /// `proxy::Config`); the text says what to change.
    #[cfg(feature = "proxy")]
    InvalidConfig(String),
    /// The async runtime could not be started (or `run_stdio` was called
    /// inside one).
    Runtime(io::Error),
    /// Reading or writing the transport failed.
    Io(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DuplicateTool { name, first, second } if first == second => {
                write!(f, "tool `{name}` (`{first}`) is registered twice; register each tool once")
            }
            Error::DuplicateTool { name, first, second } => write!(
                f,
                "two tools are named `{name}`: `{first}` and `{second}`; rename one with `#[tool(name = \"…\")]`"
            ),
            Error::UnknownVersion { tool, version, versions } if versions.is_empty() => write!(
                f,
                "tool `{tool}` is pinned to version \"{version}\", but no tool `{tool}` has a version; \
                 give each one with `#[tool(version = \"…\")]`, or remove the pin"
            ),
            Error::UnknownVersion { tool, version, versions } => {
                let versions = versions.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", ");
                write!(
                    f,
                    "tool `{tool}` is pinned to version \"{version}\", which it does not have; \
                     its versions are {versions}"
                )
            }
            Error::InvalidVersion { tool, rust_path } => write!(
                f,
                "tool `{tool}` (`{rust_path}`) has a blank version; give it one, such as `.version(\"2\")`, or none"
            ),
            Error::Schema { tool, rust_path, source } => {
                write!(f, "tool `{tool}` (`{rust_path}`) has an unusable input schema: {source}")
            }
            Error::InvalidSchema { tool, rust_path, reason } => {
                write!(f, "tool `{tool}` (`{rust_path}`) has an input schema that cannot be checked: {reason}")
            }
            Error::InvalidParamHeader { tool, rust_path, reason } => {
                write!(f, "tool `{tool}` (`{rust_path}`) cannot mirror an argument in a header: {reason}")
            }
            Error::MissingState { kind, name, rust_path, state } => write!(
                f,
                "{kind} `{name}` (`{rust_path}`) takes a `State<{state}>`, but none is registered; \
                 add one with `.with_state(…)` on the server"
            ),
            Error::DuplicateResource { uri, first, second } => write!(
                f,
                "two resources have the URI `{uri}`: `{first}` and `{second}`; give each resource its own URI"
            ),
            Error::InvalidPrompt { name, rust_path, reason } => {
                write!(f, "prompt `{name}` (`{rust_path}`) cannot be served: {reason}")
            }
            Error::InvalidResource { uri, rust_path, reason } => {
                write!(f, "resource `{uri}` (`{rust_path}`) cannot be served: {reason}")
            }
            Error::InvalidSkill { path, reason } => write!(f, "skill `{path}` cannot be served: {reason}"),
            Error::MissingView { tool, rust_path, uri } => write!(
                f,
                "tool `{tool}` (`{rust_path}`) shows its results in the view `{uri}`, which this server does not \
                 serve; add it with `.resource(View::new(\"{uri}\", include_str!(\"….html\")))` on the server, or \
                 correct the URI"
            ),
            Error::InvalidRateLimit { tool, limit } => {
                let whose = tool.as_ref().map_or_else(|| "the server's".to_owned(), |t| format!("tool `{t}`'s"));
                write!(
                    f,
                    "{whose} rate limit of {} calls per {:?} cannot be met; allow at least one call per non-zero period",
                    limit.calls, limit.period
                )
            }
            Error::InvalidScope { kind, name, rust_path, reason } => {
                write!(f, "{kind} `{name}` (`{rust_path}`) requires an invalid scope: {reason}")
            }
            #[cfg(feature = "oauth")]
            Error::InvalidOAuth(why) => write!(f, "invalid OAuth settings: {why}"),
            Error::InvalidRequestStateKeys(why) | Error::InvalidUserStateKey(why) | Error::Launch(why) => {
                f.write_str(why)
            }
            #[cfg(feature = "http")]
            Error::InvalidRoute { path, reason } => {
                write!(f, "the route `{path}` (HttpOptions::route) cannot be served: {reason}")
            }
            #[cfg(feature = "proxy")]
            Error::InvalidConfig(why) => write!(f, "invalid gateway configuration: {why}"),
            Error::Runtime(e) => write!(f, "cannot start the async runtime: {e}"),
            Error::Io(e) => write!(f, "transport error: {e}"),
        }
    }
}

/// The same as `Display`, so `fn main() -> Result<(), mcp_runtime::Error>`
/// prints a readable message.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Schema { source, .. } => Some(source),
            Error::Runtime(e) | Error::Io(e) => Some(e),
            Error::DuplicateTool { .. }
            | Error::UnknownVersion { .. }
            | Error::InvalidVersion { .. }
            | Error::InvalidSchema { .. }
            | Error::InvalidParamHeader { .. }
            | Error::MissingState { .. }
            | Error::DuplicateResource { .. }
            | Error::InvalidResource { .. }
            | Error::InvalidPrompt { .. }
            | Error::InvalidSkill { .. }
            | Error::MissingView { .. }
            | Error::InvalidRateLimit { .. }
            | Error::InvalidScope { .. }
            | Error::InvalidRequestStateKeys(_)
            | Error::InvalidUserStateKey(_)
            | Error::Launch(_) => None,
            #[cfg(feature = "oauth")]
            Error::InvalidOAuth(_) => None,
            #[cfg(feature = "http")]
            Error::InvalidRoute { .. } => None,
            #[cfg(feature = "proxy")]
            Error::InvalidConfig(_) => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}
