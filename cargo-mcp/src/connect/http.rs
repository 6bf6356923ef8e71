//! Streamable HTTP: each message POSTed to the endpoint; the answer comes
//! as JSON or as an event stream (which may carry the server's own
//! requests first). In the handshake era the session id from `initialize`
//! goes on every later request; in 2026-07-28 each request mirrors its
//! method and name in headers instead.

use mcp_core::{Message, Notification, Outcome, Request, Response};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;
use serde_json::Value;

use super::{Era, Framing, RequestError, answer_server_request};
use crate::failure::Failure;

use mcp_core::http::{MCP_METHOD, MCP_NAME, PROTOCOL_VERSION, SESSION_ID};

/// One endpoint, and the session once there is one.
pub struct Http {
    client: reqwest::Client,
    url: String,
    headers: HeaderMap,
    session: Option<String>,
}

impl Http {
    /// A client of `url`, sending `headers` (`Name: value`) with every
    /// request.
    pub fn new(url: &str, headers: &[String]) -> Result<Http, Failure> {
        if url.starts_with("https://") {
            return Err(Failure::new("this cargo mcp speaks plain http:// only (it is built without TLS)")
                .hint("reach the server through a local address, or a tunnel that ends in plain HTTP"));
        }
        if !url.starts_with("http://") {
            return Err(Failure::new(format!("`{url}` is not an http:// URL"))
                .hint("servers built with this framework listen at http://HOST:PORT/mcp"));
        }
        let mut map = HeaderMap::new();
        for header in headers {
            let Some((name, value)) = header.split_once(':') else {
                return Err(Failure::new(format!("the header `{header}` has no `:`")).hint("write it as `Name: value`"));
            };
            let name = HeaderName::try_from(name.trim())
                .map_err(|_| Failure::new(format!("`{}` is not an HTTP header name", name.trim())))?;
            let value = HeaderValue::try_from(value.trim())
                .map_err(|_| Failure::new(format!("the value of the header `{name}` cannot be sent in a header")))?;
            map.append(name, value);
        }
        let client =
            reqwest::Client::builder().build().map_err(|e| Failure::new(format!("cannot set up HTTP: {e}")))?;
        Ok(Http { client, url: url.to_owned(), headers: map, session: None })
    }

    /// POST `request` and read its answer.
    pub async fn request(&mut self, request: &Request, framing: &Framing<'_>) -> Result<Outcome, RequestError> {
        let response = self.post(request, mirror(request, framing)).await?;
        if let Some(session) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()) {
            self.session = Some(session.to_owned());
        }
        let status = response.status();
        let media = media_type(response.headers());
        if media == "text/event-stream" && status.is_success() {
            return self.read_stream(response, request, framing).await;
        }
        let body = response.bytes().await.map_err(|e| self.unreachable(&e))?;
        // A JSON-RPC answer is the answer, whatever the status says.
        let message = serde_json::from_slice::<Value>(&body).ok().and_then(|v| Message::from_value(v).ok());
        if let Some(Message::Response(answer)) = message {
            return Ok(answer.outcome);
        }
        if let Some(outcome) = null_id_error(&body) {
            return Ok(outcome);
        }
        let failure = self.status_failure(status, &body, &request.method);
        Err(if status.is_client_error() { RequestError::Refused(failure) } else { RequestError::Failed(failure) })
    }

    /// POST a notification (answered with 202 and no body).
    pub async fn notify(&mut self, notification: &Notification, framing: &Framing<'_>) -> Result<(), Failure> {
        let mut headers = Vec::new();
        if let Some(version) = framing.version {
            headers.push((PROTOCOL_VERSION.to_owned(), version.to_owned()));
        }
        if framing.era == Era::Modern {
            headers.push((MCP_METHOD.to_owned(), notification.method.clone()));
        }
        let response = self.post(notification, headers).await?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let body = response.bytes().await.unwrap_or_default();
        Err(self.status_failure(status, &body, &notification.method))
    }

    /// End the session, if there is one (the server would end it when idle
    /// anyway; saying so frees it at once).
    pub async fn close(self) {
        if let Some(session) = &self.session {
            let request = self.client.delete(&self.url).headers(self.headers.clone()).header(SESSION_ID, session);
            let _ = request.send().await;
        }
    }

    async fn post(
        &self,
        message: &impl Serialize,
        headers: Vec<(String, String)>,
    ) -> Result<reqwest::Response, Failure> {
        let body = serde_json::to_vec(message).map_err(|e| Failure::new(format!("cannot encode a message: {e}")))?;
        let mut request = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(body);
        if let Some(session) = &self.session {
            request = request.header(SESSION_ID, session);
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request.send().await.map_err(|e| self.unreachable(&e))
    }

    /// Read an event stream until the answer to `request`, answering the
    /// server's requests on the way (each answer is a POST of its own).
    async fn read_stream(
        &mut self,
        mut response: reqwest::Response,
        request: &Request,
        framing: &Framing<'_>,
    ) -> Result<Outcome, RequestError> {
        let mut events = EventReader::default();
        loop {
            let chunk = response.chunk().await.map_err(|e| self.unreachable(&e))?;
            let Some(chunk) = chunk else {
                return Err(RequestError::Failed(Failure::new(format!(
                    "the server ended its event stream before answering `{}`",
                    request.method
                ))));
            };
            for data in events.push(&chunk) {
                let Ok(value) = serde_json::from_str::<Value>(&data) else { continue };
                match Message::from_value(value) {
                    Ok(Message::Response(answer)) if answer.id.as_ref() == Some(&request.id) => {
                        return Ok(answer.outcome);
                    }
                    Ok(Message::Request(asked)) => self.reply(&answer_server_request(&asked), framing).await?,
                    _ => {}
                }
            }
        }
    }

    async fn reply(&self, answer: &Response, framing: &Framing<'_>) -> Result<(), Failure> {
        let mut headers = Vec::new();
        if let Some(version) = framing.version {
            headers.push((PROTOCOL_VERSION.to_owned(), version.to_owned()));
        }
        self.post(answer, headers).await.map(drop)
    }

    fn unreachable(&self, error: &reqwest::Error) -> Failure {
        let mut failure = Failure::new(format!("cannot reach {}: {}", self.url, error_chain(error)));
        if error.is_connect() {
            failure = failure.hint("is the server running? `cargo mcp run --http ADDR` starts one");
        }
        failure
    }

    fn status_failure(&self, status: StatusCode, body: &[u8], method: &str) -> Failure {
        let text = String::from_utf8_lossy(body);
        let failure =
            Failure::new(format!("`{method}` was refused with HTTP {status} by {}", self.url)).detail(clip(&text));
        match status.as_u16() {
            401 => failure.hint("the server wants a token: add `--header 'Authorization: Bearer TOKEN'`"),
            403 => failure.hint("the server refuses this Host or Origin; servers built with this framework accept only loopback names unless configured otherwise"),
            404 if self.session.is_some() => failure.hint("the session ended on the server; run the command again"),
            404 => failure.hint("check the URL's path: servers built with this framework serve /mcp"),
            405 | 415 => failure.hint("is this URL an MCP Streamable HTTP endpoint?"),
            _ => failure,
        }
    }
}

/// The headers a request carries besides the body: the agreed version, and
/// in 2026-07-28 its method, name and mirrored arguments.
fn mirror(request: &Request, framing: &Framing<'_>) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    if let Some(version) = framing.version {
        headers.push((PROTOCOL_VERSION.to_owned(), version.to_owned()));
    }
    if framing.era != Era::Modern {
        return headers;
    }
    headers.push((MCP_METHOD.to_owned(), request.method.clone()));
    let field = match request.method.as_str() {
        mcp_core::methods::TOOLS_CALL | mcp_core::methods::PROMPTS_GET => Some("name"),
        mcp_core::methods::RESOURCES_READ => Some("uri"),
        _ => None,
    };
    let name = field.and_then(|f| request.params.as_ref()?.get(f)?.as_str());
    if let Some(name) = name {
        headers.push((MCP_NAME.to_owned(), header_text(name)));
    }
    headers.extend(framing.param_headers.iter().cloned());
    headers
}

/// A value as a header carries it: as it is when it can, else in the
/// `=?base64?…?=` form 2026-07-28 servers decode.
pub fn header_text(value: &str) -> String {
    mcp_core::http::encode_value(value).into_owned()
}

fn media_type(headers: &HeaderMap) -> String {
    let value = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    value.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// An error body whose id is null: the answer all the same.
fn null_id_error(body: &[u8]) -> Option<Outcome> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let error = value.get("error")?;
    if !value.get("id").is_some_and(Value::is_null) {
        return None;
    }
    Some(Outcome::Error(serde_json::from_value(error.clone()).ok()?))
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

fn clip(text: &str) -> String {
    let clipped: String = text.chars().take(500).collect();
    if clipped.len() < text.len() { format!("{clipped}…") } else { clipped }
}

/// Server-sent events, split as they arrive: the `data` of each event
/// (its `data:` lines joined), events without data (priming) skipped.
#[derive(Default)]
struct EventReader {
    pending: String,
    data: Vec<String>,
}

impl EventReader {
    fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        self.pending.push_str(&String::from_utf8_lossy(chunk));
        let mut complete = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                let data = self.data.join("\n");
                self.data.clear();
                if !data.is_empty() {
                    complete.push(data);
                }
            } else if let Some(data) = line.strip_prefix("data:") {
                self.data.push(data.strip_prefix(' ').unwrap_or(data).to_owned());
            }
        }
        complete
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_split_across_chunks_and_priming_events_skipped() {
        let mut reader = EventReader::default();
        assert!(reader.push(b"id: 1\nretry: 500\ndata:\n\n").is_empty());
        assert!(reader.push(b"event: message\r\ndata: {\"a\":").is_empty());
        assert_eq!(reader.push(b"1}\r\n\r\ndata: x\ndata: y\n\n"), ["{\"a\":1}", "x\ny"]);
    }

    #[test]
    fn header_values_that_a_header_cannot_carry_are_base64() {
        assert_eq!(header_text("add"), "add");
        assert_eq!(header_text("notes://index"), "notes://index");
        assert_eq!(header_text("café"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(header_text(" padded"), "=?base64?IHBhZGRlZA==?=");
    }
}
