//! The server `ConnectArgs` name, reached with `mcp_runtime_client`; its
//! errors as failures that say what to do next.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::{ErrorObject, ProtocolVersion, codes, methods};
use mcp_runtime_client::{Client, EraChoice, Error, Negotiated, Stderr};
use serde_json::Value;

use crate::cli::{ConnectArgs, EraChoice as EraFlag};
use crate::failure::Failure;
use crate::output;
use crate::select::{self, Target};

/// An open connection, after the handshake (or the discovery).
pub struct Connection {
    pub client: Client,
    /// What was agreed with the server.
    pub negotiated: Negotiated,
    /// Where the server is, for messages.
    pub endpoint: String,
    /// The URL of an HTTP server.
    url: Option<String>,
    /// The stderr of a server cargo mcp started.
    log: Option<ServerLog>,
}

impl Connection {
    /// Build or find the server `args` name, start or reach it, and open a
    /// connection in the era asked for.
    pub async fn open(args: &ConnectArgs) -> Result<Connection, Failure> {
        let target = select::target(args)?;
        let era = match args.era {
            EraFlag::Handshake => EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE),
            EraFlag::Modern => EraChoice::Version(ProtocolVersion::LATEST),
            EraFlag::Auto => EraChoice::Auto,
        };
        let builder = Client::builder()
            .name("cargo-mcp", env!("CARGO_PKG_VERSION"))
            .timeout(Duration::from_secs(args.timeout.max(1)))
            .era(era)
            .on_other_request(|method, _| async move {
                Err(ErrorObject::new(codes::METHOD_NOT_FOUND, format!("`{method}` {REFUSED}")))
            });
        let (opened, url, log) = match &target {
            Target::Command { program, args: program_args } => {
                output::progress("Starting", &target.describe());
                let (log, verbose) = (ServerLog::default(), args.verbose);
                let kept = log.clone();
                let builder = builder.stderr(Stderr::Capture).on_stderr_line(move |line| {
                    if verbose {
                        eprintln!("{}", output::Style::stderr().dim(&format!("[server] {line}")));
                    }
                    kept.push(line);
                });
                (builder.command(program, program_args).await, None, Some(log))
            }
            Target::Url(url) => {
                let mut builder = builder;
                for header in &args.headers {
                    let (name, value) = header_pair(header)?;
                    builder = builder.header(name, value);
                }
                (builder.http(checked(url)?).await, Some(url.clone()), None)
            }
        };
        let client = opened.map_err(|error| {
            // Auto tries `initialize` after any answer to `server/discover`
            // but the end of the connection.
            let method = match (args.era, &error) {
                (EraFlag::Modern, _) | (EraFlag::Auto, Error::Closed(_)) => methods::SERVER_DISCOVER,
                _ => methods::INITIALIZE,
            };
            let failure = failure(method, error, url.as_deref(), log.as_ref());
            match args.era {
                EraFlag::Modern => {
                    Failure::new(format!("the server does not answer 2026-07-28 requests: {}", failure.message()))
                        .hint("try `--era handshake` (or `--era auto`)")
                }
                _ => failure,
            }
        })?;
        let negotiated = client.negotiated();
        Ok(Connection { client, negotiated, endpoint: target.describe(), url, log })
    }

    /// One request and its raw result.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Failure> {
        let result = self.client.request(method, params).await;
        self.failed(method, result).await
    }

    /// Every item of a paged list, as sent (`key` names each page's array),
    /// within the client's bounds on lists.
    pub async fn list(&self, method: &str, key: &str) -> Result<Vec<Value>, Failure> {
        let listed = self.client.list_values(method, key).await;
        self.failed(method, listed).await
    }

    /// `result`, its error made a failure that says what to do.
    async fn failed<T>(&self, method: &str, result: Result<T, Error>) -> Result<T, Failure> {
        match result {
            Ok(result) => Ok(result),
            Err(error) => {
                // The stderr reader may still be draining the last lines.
                tokio::time::sleep(Duration::from_millis(50)).await;
                Err(failure(method, error, self.url.as_deref(), self.log.as_ref()))
            }
        }
    }

    /// Whether requests go over HTTP.
    pub fn is_http(&self) -> bool {
        self.url.is_some()
    }

    /// The server's stderr, when cargo mcp started the server (stdio);
    /// read it after [`close`](Self::close) to have every line.
    pub fn server_log(&self) -> Option<ServerLog> {
        self.log.clone()
    }

    /// End the connection: close the server's input (and let it exit) or
    /// end the HTTP session.
    pub async fn close(self) {
        self.client.close().await;
    }
}

/// How cargo mcp refuses the server's questions (elicitation, sampling,
/// roots): it declares no capability to answer them.
const REFUSED: &str = "is not supported by cargo mcp";

/// The last lines the server wrote on stderr.
#[derive(Clone, Default)]
pub struct ServerLog(Arc<Mutex<VecDeque<String>>>);

impl ServerLog {
    fn push(&self, line: &str) {
        let mut lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == 500 {
            lines.pop_front();
        }
        lines.push_back(line.to_owned());
    }

    /// Every line kept.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
    }
}

/// `--url` as this cargo mcp can reach it (plain HTTP).
fn checked(url: &str) -> Result<&str, Failure> {
    if url.starts_with("https://") {
        return Err(Failure::new("this cargo mcp speaks plain http:// only (it is built without TLS)")
            .hint("reach the server through a local address, or a tunnel that ends in plain HTTP"));
    }
    if !url.starts_with("http://") {
        return Err(Failure::new(format!("`{url}` is not an http:// URL"))
            .hint("servers built with this framework listen at http://HOST:PORT/mcp"));
    }
    Ok(url)
}

/// `--header 'Name: value'` as a name and a value that a header can carry.
fn header_pair(header: &str) -> Result<(&str, &str), Failure> {
    let Some((name, value)) = header.split_once(':') else {
        return Err(Failure::new(format!("the header `{header}` has no `:`")).hint("write it as `Name: value`"));
    };
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
        return Err(Failure::new(format!("`{name}` is not an HTTP header name")));
    }
    if !value.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) {
        return Err(Failure::new(format!("the value of the header `{name}` cannot be sent in a header")));
    }
    Ok((name, value))
}

/// Why `method` has no result, for the user. `url` is an HTTP server's,
/// `log` the stderr of a server cargo mcp started.
fn failure(method: &str, error: Error, url: Option<&str>, log: Option<&ServerLog>) -> Failure {
    match (error, url) {
        (Error::Server(error), _) => explain(method, &error),
        (Error::Timeout(after), _) => {
            Failure::new(format!("the server did not answer `{method}` within {} s", after.as_secs()))
                .hint("wait longer with --timeout SECONDS; -v shows the server's log")
        }
        (Error::Protocol(why), _) if why.contains(REFUSED) => Failure::new(format!(
            "the server asks the client for input (elicitation, sampling or roots) before it answers `{method}`, \
             and cargo mcp cannot answer such questions"
        ))
        .hint("with `--era handshake` the server is told the client cannot answer, and says so in its result"),
        (Error::Closed(why), Some(url)) => {
            let failure = Failure::new(format!("`{method}` was not answered by {url}: {why}"));
            if why.contains("session") {
                failure.hint("the session ended on the server; run the command again")
            } else {
                failure
            }
        }
        (Error::Closed(_), None) => {
            let lines = log.map(ServerLog::lines).unwrap_or_default();
            let tail = lines[lines.len().saturating_sub(20)..].join("\n");
            let failure = Failure::new(format!("the server exited before answering `{method}`"));
            if tail.is_empty() {
                failure.hint("it wrote nothing on stderr; does it speak MCP over stdio?")
            } else {
                failure.detail(format!("its stderr ended with:\n{tail}"))
            }
        }
        (Error::Transport(why), Some(url)) => {
            let failure = Failure::new(format!("cannot reach {url}: {why}"));
            if why.contains("connect") || why.contains("Connect") {
                failure.hint("is the server running? `cargo mcp run --http ADDR` starts one")
            } else {
                failure
            }
        }
        (Error::Transport(why), None) if why.starts_with("cannot start") => {
            Failure::new(why).hint("check the path, or build the server first (--example NAME / --bin NAME builds it)")
        }
        (Error::Http { status, body }, Some(url)) => {
            let failure = Failure::new(format!("`{method}` was refused with HTTP {status} by {url}")).detail(body);
            match status {
                401 => failure.hint("the server wants a token: add `--header 'Authorization: Bearer TOKEN'`"),
                403 => failure.hint("the server refuses this Host or Origin; servers built with this framework accept only loopback names unless configured otherwise"),
                404 => failure.hint("check the URL's path: servers built with this framework serve /mcp"),
                405 | 415 => failure.hint("is this URL an MCP Streamable HTTP endpoint?"),
                _ => failure,
            }
        }
        (Error::Limit(why), _) if why.contains("list_timeout") => {
            Failure::new(why).hint("wait longer with --timeout SECONDS")
        }
        (Error::Limit(why), _) => Failure::new(why).hint("a server's lists must end: does its `nextCursor` ever stop?"),
        (error, _) => Failure::new(format!("`{method}` failed: {error}")),
    }
}

/// A JSON-RPC error as a failure: what it means for `method`, and what to
/// try next.
pub fn explain(method: &str, error: &ErrorObject) -> Failure {
    let (name, hint) = match error.code {
        codes::PARSE_ERROR => ("parse error", None),
        codes::INVALID_REQUEST => ("invalid request", None),
        codes::METHOD_NOT_FOUND => (
            "method not found",
            Some(format!("the server does not offer `{method}`; `cargo mcp inspect` shows what it does")),
        ),
        codes::INVALID_PARAMS => ("invalid params", Some(invalid_params_hint(method))),
        codes::INTERNAL_ERROR => {
            ("internal error", Some("the server's log has the details: run again with -v to see it".to_owned()))
        }
        codes::RESOURCE_NOT_FOUND => {
            ("resource not found", Some("`cargo mcp inspect` lists the resources and templates".to_owned()))
        }
        codes::HEADER_MISMATCH => ("header mismatch", None),
        codes::MISSING_CLIENT_CAPABILITY => (
            "missing client capability",
            Some("cargo mcp declares no client capabilities: it cannot answer the server's questions".to_owned()),
        ),
        codes::UNSUPPORTED_PROTOCOL_VERSION => {
            ("unsupported protocol version", Some("try another era: `--era handshake` or `--era modern`".to_owned()))
        }
        codes::URL_ELICITATION_REQUIRED => ("URL elicitation required", None),
        _ => ("server error", None),
    };
    let mut failure =
        Failure::new(format!("`{method}` failed: {} (JSON-RPC error {}, {name})", error.message, error.code));
    if let Some(data) = &error.data {
        failure = failure.detail(format!("data: {}", output::pretty(data, 0)));
    }
    match hint {
        Some(hint) => failure.hint(hint),
        None => failure,
    }
}

fn invalid_params_hint(method: &str) -> String {
    match method {
        methods::TOOLS_CALL => "check the tool's name and its input schema with `cargo mcp inspect`".to_owned(),
        methods::PROMPTS_GET => "check the prompt's name and arguments with `cargo mcp inspect`".to_owned(),
        methods::RESOURCES_READ => "check the URI against `cargo mcp inspect`'s resources and templates".to_owned(),
        _ => "the server's message says which parameter".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_name_colon_value() {
        assert_eq!(header_pair(" Authorization :  Bearer x ").unwrap(), ("Authorization", "Bearer x"));
        assert!(header_pair("nocolon").unwrap_err().message().contains("has no `:`"));
        assert!(header_pair("Bad Name: x").unwrap_err().message().contains("not an HTTP header name"));
        assert!(header_pair("X: café").unwrap_err().message().contains("cannot be sent in a header"));
    }

    #[test]
    fn the_clients_errors_say_what_to_do() {
        let url = Some("http://127.0.0.1:1/mcp");
        let unknown =
            failure(methods::TOOLS_CALL, Error::Server(ErrorObject::invalid_params("no such tool")), url, None);
        assert!(unknown.message().contains("JSON-RPC error -32602, invalid params"), "{}", unknown.message());
        let slow = failure(methods::TOOLS_CALL, Error::Timeout(Duration::from_secs(3)), None, None);
        assert_eq!(slow.message(), "the server did not answer `tools/call` within 3 s");
        let asked =
            Error::Protocol(format!("the server asked for input the client cannot give: `roots/list` {REFUSED}"));
        assert!(failure(methods::TOOLS_CALL, asked, None, None).message().contains("cannot answer such questions"));
        let log = ServerLog::default();
        log.push("cannot open the database");
        let exited =
            failure(methods::INITIALIZE, Error::Closed("the server closed its output".into()), None, Some(&log));
        let shown = exited.render(&output::Style::stdout());
        assert!(shown.contains("the server exited before answering `initialize`"), "{shown}");
        assert!(shown.contains("cannot open the database"), "{shown}");
        let refused = failure(methods::TOOLS_LIST, Error::Http { status: 401, body: String::new() }, url, None);
        assert!(refused.render(&output::Style::stdout()).contains("Authorization: Bearer TOKEN"));
    }
}
