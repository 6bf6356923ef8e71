//! A small MCP client: one connection to one server over stdio or
//! Streamable HTTP, in either protocol era, with `tools/list`-style paging.

mod http;
mod stdio;

pub use http::header_text;
pub use stdio::Tail as ServerLog;

use std::time::Duration;

use mcp_core::envelope::{CLIENT_CAPABILITIES, CLIENT_INFO, PROTOCOL_VERSION, SERVER_INFO};
use mcp_core::{ErrorObject, Implementation, JsonObject, Notification, Outcome, Request, ServerCapabilities, methods};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::cli::{ConnectArgs, EraChoice};
use crate::failure::Failure;
use crate::output;
use crate::select::{self, Target};

/// The version `initialize` asks for.
pub const HANDSHAKE_VERSION: &str = "2025-11-25";
/// The version of requests without a handshake.
pub const MODERN_VERSION: &str = "2026-07-28";

/// How requests are framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// After `initialize`: requests carry nothing of their own.
    Handshake,
    /// 2026-07-28: each request carries its version and capabilities.
    Modern,
}

/// Why a request has no result.
#[derive(Debug)]
pub enum RequestError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// An HTTP server refused the request without a JSON-RPC error body
    /// (4xx): an error answer all the same, for the era fallback.
    Refused(Failure),
    /// No answer: the transport failed, the server exited, a timeout.
    Failed(Failure),
}

impl RequestError {
    /// The error as a failure for the user, naming the method.
    pub fn into_failure(self, method: &str) -> Failure {
        match self {
            RequestError::Rpc(error) => explain(method, &error),
            RequestError::Refused(failure) | RequestError::Failed(failure) => failure,
        }
    }
}

impl From<Failure> for RequestError {
    fn from(failure: Failure) -> Self {
        RequestError::Failed(failure)
    }
}

enum Transport {
    Stdio(stdio::Stdio),
    Http(http::Http),
}

/// What the transport needs to frame one request.
pub(crate) struct Framing<'a> {
    pub era: Era,
    /// The version to name in `MCP-Protocol-Version` (HTTP), once known.
    pub version: Option<&'a str>,
    /// `Mcp-Param-*` headers of a 2026-07-28 tool call.
    pub param_headers: &'a [(String, String)],
}

/// An open connection, after the handshake (or the discovery).
pub struct Connection {
    transport: Transport,
    /// The era requests are sent in.
    pub era: Era,
    /// The protocol version spoken.
    pub version: String,
    /// The server's name and version, when it said.
    pub server: Option<Implementation>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// The server's instructions for the model.
    pub instructions: Option<String>,
    /// Where the server is, for messages.
    pub endpoint: String,
    next_id: i64,
    timeout: Duration,
}

impl Connection {
    /// Build or find the server `args` name, start or reach it, and open a
    /// connection in the era asked for.
    pub async fn open(args: &ConnectArgs) -> Result<Connection, Failure> {
        let target = select::target(args)?;
        let timeout = Duration::from_secs(args.timeout.max(1));
        let transport = match &target {
            Target::Command { program, args: program_args } => {
                output::progress("Starting", &target.describe());
                Transport::Stdio(stdio::Stdio::spawn(program, program_args, args.verbose)?)
            }
            Target::Url(url) => Transport::Http(http::Http::new(url, &args.headers)?),
        };
        let mut connection = Connection {
            transport,
            era: Era::Modern,
            version: MODERN_VERSION.to_owned(),
            server: None,
            capabilities: ServerCapabilities::default(),
            instructions: None,
            endpoint: target.describe(),
            next_id: 0,
            timeout,
        };
        match args.era {
            EraChoice::Handshake => connection.handshake().await?,
            EraChoice::Modern => connection.discover().await.map_err(|e| {
                let failure = e.into_failure(methods::SERVER_DISCOVER);
                let message = format!("the server does not answer 2026-07-28 requests: {}", failure.message());
                Failure::new(message).hint("try `--era handshake` (or `--era auto`)")
            })?,
            EraChoice::Auto => match connection.discover().await {
                Ok(()) => {}
                Err(RequestError::Rpc(_) | RequestError::Refused(_)) => connection.handshake().await?,
                Err(RequestError::Failed(failure)) => return Err(failure),
            },
        }
        Ok(connection)
    }

    /// `server/discover` in the modern era.
    async fn discover(&mut self) -> Result<(), RequestError> {
        self.era = Era::Modern;
        let result = self.request(methods::SERVER_DISCOVER, JsonObject::new()).await?;
        self.version = MODERN_VERSION.to_owned();
        self.capabilities = field(&result, "capabilities").unwrap_or_default();
        self.instructions = field(&result, "instructions");
        self.server = result.get("_meta").and_then(|m| m.get(SERVER_INFO)).and_then(|v| read(v).ok());
        Ok(())
    }

    /// `initialize`, then `notifications/initialized`.
    async fn handshake(&mut self) -> Result<(), Failure> {
        self.era = Era::Handshake;
        let params = json!({
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": client_info(),
        });
        let result =
            self.request(methods::INITIALIZE, object(params)).await.map_err(|e| e.into_failure(methods::INITIALIZE))?;
        self.version = field(&result, "protocolVersion").unwrap_or_else(|| HANDSHAKE_VERSION.to_owned());
        self.capabilities = field(&result, "capabilities").unwrap_or_default();
        self.instructions = field(&result, "instructions");
        self.server = field(&result, "serverInfo");
        self.notify(methods::INITIALIZED).await
    }

    /// One request and its result. In the modern era the request carries
    /// the version and capabilities in `_meta`.
    pub async fn request(&mut self, method: &str, params: JsonObject) -> Result<Value, RequestError> {
        self.request_with(method, params, &[]).await
    }

    /// [`request`](Self::request) with `Mcp-Param-*` headers (HTTP, modern).
    pub async fn request_with(
        &mut self,
        method: &str,
        mut params: JsonObject,
        param_headers: &[(String, String)],
    ) -> Result<Value, RequestError> {
        if self.era == Era::Modern {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(PROTOCOL_VERSION.to_owned(), json!(MODERN_VERSION));
                meta.insert(CLIENT_CAPABILITIES.to_owned(), json!({}));
                meta.insert(CLIENT_INFO.to_owned(), client_info());
            }
        }
        self.next_id += 1;
        let request = Request::new(self.next_id, method, Some(params));
        // The version is named in headers only once it is agreed (not on
        // `initialize` itself).
        let version = (self.era == Era::Modern || method != methods::INITIALIZE).then_some(self.version.as_str());
        let framing = Framing { era: self.era, version, param_headers };
        let exchange = async {
            match &mut self.transport {
                Transport::Stdio(stdio) => stdio.request(&request).await.map_err(RequestError::Failed),
                Transport::Http(http) => http.request(&request, &framing).await,
            }
        };
        let outcome = tokio::time::timeout(self.timeout, exchange).await.map_err(|_| {
            Failure::new(format!("the server did not answer `{method}` within {} s", self.timeout.as_secs()))
                .hint("wait longer with --timeout SECONDS; -v shows the server's log")
        })??;
        match outcome {
            Outcome::Result(result) if is_input_required(&result) => Err(RequestError::Failed(
                Failure::new(format!(
                    "the server asks the client for input (elicitation, sampling or roots) before it answers `{method}`, \
                     and cargo mcp cannot answer such questions"
                ))
                .hint("with `--era handshake` the server is told the client cannot answer, and says so in its result"),
            )),
            Outcome::Result(result) => Ok(result),
            Outcome::Error(error) => Err(RequestError::Rpc(error)),
        }
    }

    async fn notify(&mut self, method: &str) -> Result<(), Failure> {
        let notification = Notification::new(method, None);
        let version = Some(self.version.as_str());
        match &mut self.transport {
            Transport::Stdio(stdio) => stdio.notify(&notification).await,
            Transport::Http(http) => {
                http.notify(&notification, &Framing { era: self.era, version, param_headers: &[] }).await
            }
        }
    }

    /// Every item of a paged list (`tools/list`, …), following
    /// `nextCursor`; `key` is the array's field in each page.
    pub async fn list<T: DeserializeOwned>(&mut self, method: &str, key: &str) -> Result<Vec<(T, Value)>, Failure> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let mut params = JsonObject::new();
            if let Some(cursor) = &cursor {
                params.insert("cursor".to_owned(), json!(cursor));
            }
            let page = self.request(method, params).await.map_err(|e| e.into_failure(method))?;
            let Some(array) = page.get(key).and_then(Value::as_array) else {
                return Err(Failure::new(format!("the answer to `{method}` has no `{key}` array"))
                    .detail(output::pretty(&page, 0)));
            };
            for raw in array {
                let item = read(raw).map_err(|e| {
                    Failure::new(format!("`{method}` sent an entry cargo mcp cannot read: {e}"))
                        .detail(output::pretty(raw, 0))
                })?;
                items.push((item, raw.clone()));
            }
            cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            match &cursor {
                None => return Ok(items),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(Failure::new(format!(
                        "`{method}` sent the cursor {next:?} twice; its pages never end"
                    )));
                }
                Some(_) => {}
            }
        }
    }

    /// End the connection: close the server's input (and let it exit) or
    /// end the HTTP session.
    pub async fn close(self) {
        match self.transport {
            Transport::Stdio(stdio) => stdio.close().await,
            Transport::Http(http) => http.close().await,
        }
    }

    /// The server's stderr, when cargo mcp started the server (stdio); read
    /// it after [`close`](Self::close) to have every line.
    pub fn server_log(&self) -> Option<ServerLog> {
        match &self.transport {
            Transport::Stdio(stdio) => stdio.server_log(),
            Transport::Http(_) => None,
        }
    }

    /// Whether requests go over HTTP (where 2026-07-28 tool calls mirror
    /// some arguments in headers).
    pub fn is_http(&self) -> bool {
        matches!(self.transport, Transport::Http(_))
    }
}

fn client_info() -> Value {
    json!({"name": "cargo-mcp", "version": env!("CARGO_PKG_VERSION")})
}

fn is_input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

fn field<T: DeserializeOwned>(value: &Value, key: &str) -> Option<T> {
    value.get(key).and_then(|v| read(v).ok())
}

fn read<T: DeserializeOwned>(value: &Value) -> Result<T, serde_json::Error> {
    T::deserialize(value)
}

/// A JSON-RPC error as a failure: what it means for `method`, and what to
/// try next.
pub fn explain(method: &str, error: &ErrorObject) -> Failure {
    use mcp_core::codes;
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

/// A server's request to the client, answered: `ping` with an empty
/// result, anything else (elicitation, sampling, roots) with an error.
pub(crate) fn answer_server_request(request: &Request) -> mcp_core::Response {
    if request.method == methods::PING {
        return mcp_core::Response::result(request.id.clone(), json!({}));
    }
    let error = ErrorObject::new(
        mcp_core::codes::METHOD_NOT_FOUND,
        format!("`{}` is not supported by cargo mcp", request.method),
    );
    mcp_core::Response::error(Some(request.id.clone()), error)
}
