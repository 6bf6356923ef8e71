//! A raw Streamable HTTP client of one session, on reqwest: every status,
//! header and message is there to check.

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::{Value, json};

/// A client of one session.
pub struct Client {
    pub http: reqwest::Client,
    pub url: String,
    pub session: Option<String>,
    pub next_id: i64,
}

/// A POST's answer: status, headers and the JSON messages in its body
/// (one for a JSON body, every event for an event stream).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub messages: Vec<Value>,
}

impl Answer {
    pub fn last(&self) -> &Value {
        self.messages.last().unwrap_or_else(|| panic!("no messages in {self:?}"))
    }

    pub fn content_type(&self) -> &str {
        self.headers.get(CONTENT_TYPE).map_or("", |v| v.to_str().unwrap())
    }
}

/// The JSON messages of an event stream's `data:` lines (events with no
/// data, such as a resumable stream's priming event, carry none).
pub fn events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
            let data = data.join("\n");
            (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap())
        })
        .collect()
}

/// The `id:` of each event of an event stream, in order.
pub fn event_ids(body: &str) -> Vec<String> {
    body.split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("id:")).map(|id| id.trim().to_owned()))
        .collect()
}

/// The `Mcp-Method` and `Mcp-Name` headers a 2026-07-28 client sends with
/// `message` (none for a message without the envelope's version).
pub fn standard_headers(message: &Value) -> Vec<(&'static str, String)> {
    if message["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_none() {
        return Vec::new();
    }
    let method = message["method"].as_str().unwrap_or_default();
    let mut headers = vec![("mcp-method", method.to_owned())];
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => "",
    };
    if let Some(name) = message["params"].get(field).and_then(Value::as_str) {
        headers.push(("mcp-name", name.to_owned()));
    }
    headers
}

impl Client {
    pub fn new(url: &str) -> Self {
        Client { http: reqwest::Client::new(), url: url.to_owned(), session: None, next_id: 1 }
    }

    pub fn post(&self, accept: &str) -> reqwest::RequestBuilder {
        let mut request = self.http.post(&self.url).header(ACCEPT, accept).header(CONTENT_TYPE, "application/json");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        request
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.send().await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.text().await.unwrap();
        let is_sse = headers.get(CONTENT_TYPE).is_some_and(|v| v.to_str().unwrap().starts_with("text/event-stream"));
        let messages = if is_sse {
            events(&body)
        } else if body.is_empty() {
            vec![]
        } else {
            vec![serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))]
        };
        Answer { status, headers, messages }
    }

    /// POST one message; a 2026-07-28 request (its `_meta` names a
    /// version) gets the headers mirroring its body, as a client sends them.
    pub async fn message(&self, message: &Value) -> Answer {
        let mut request = self.post("application/json, text/event-stream").json(message);
        for (name, value) in standard_headers(message) {
            request = request.header(name, value);
        }
        self.send(request).await
    }

    pub async fn request(&mut self, method: &str, params: Value) -> Answer {
        self.next_id += 1;
        self.message(&json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})).await
    }

    pub async fn initialize(&mut self) -> Value {
        let answer = self
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
        let session = answer.headers.get("mcp-session-id").expect("initialize issues a session id");
        self.session = Some(session.to_str().unwrap().to_owned());
        let initialized = self.message(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        assert_eq!(initialized.status, StatusCode::ACCEPTED);
        assert!(initialized.messages.is_empty());
        answer.last()["result"].clone()
    }

    pub async fn call(&mut self, tool: &str, arguments: Value) -> Answer {
        self.request("tools/call", json!({"name": tool, "arguments": arguments})).await
    }
}
