//! One virtual user of the published workload's k6 script
//! (`benchmark/benchmark.js`), on its own keep-alive HTTP/1.1 connection:
//! each iteration, for each of the three tools a whole session
//! (`initialize` with 2024-11-05, `notifications/initialized`, the call,
//! `DELETE` when the server gave a session), then a `tools/list` session,
//! then 50 ms of sleep. Every answer is checked, the tools' as the script
//! checks them.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mcp_core::http as mcp_http;
use serde_json::{Value, json};

use crate::http::{SendError, answer_messages};

/// What is timed: the three tools' calls, `initialize` and `tools/list`
/// (the script's `mcp_*_duration` trends).
pub(crate) const TIMED: [&str; 5] = ["search_products", "get_user_cart", "checkout", "initialize", "tools/list"];

/// The script's pause at the end of each iteration.
const PAUSE: Duration = Duration::from_millis(50);

/// How long one request may take before it counts as failed (the script's
/// 30 s timeout for MCP requests).
const TIMEOUT: Duration = Duration::from_secs(30);

/// When a virtual user counts what it does, and when it stops.
#[derive(Clone, Copy)]
pub(crate) struct Window {
    /// The end of the warm-up: requests answered before it are not counted.
    pub(crate) from: Instant,
    /// The end: no iteration starts after it, and answers after it are not
    /// counted.
    pub(crate) until: Instant,
}

/// What one virtual user did in the window (failures: all along).
#[derive(Default)]
pub(crate) struct Tally {
    /// Answered `initialize`, `tools/call` and `tools/list` requests (the
    /// script's `mcp_requests`).
    pub(crate) mcp_requests: u64,
    /// Every HTTP request answered, notifications and DELETEs included.
    pub(crate) http_requests: u64,
    /// Latencies in µs, by [`TIMED`] index.
    pub(crate) latencies: [Vec<f64>; 5],
    /// Failed checks and requests, warm-up included.
    pub(crate) failures: u64,
    /// The first few failures' descriptions.
    pub(crate) first_failures: Vec<String>,
}

impl Tally {
    fn fail(&mut self, what: String) {
        self.failures += 1;
        if self.first_failures.len() < 5 {
            self.first_failures.push(what);
        }
    }

    /// Add another user's tally to this one.
    pub(crate) fn merge(&mut self, other: Tally) {
        self.mcp_requests += other.mcp_requests;
        self.http_requests += other.http_requests;
        for (mine, theirs) in self.latencies.iter_mut().zip(other.latencies) {
            mine.extend(theirs);
        }
        self.failures += other.failures;
        let room = 5usize.saturating_sub(self.first_failures.len());
        self.first_failures.extend(other.first_failures.into_iter().take(room));
    }
}

/// One answer: its status, its session id, its JSON-RPC message (if any),
/// and when it was sent and fully received.
struct Answer {
    status: u16,
    session: Option<String>,
    message: Option<Value>,
    sent: Instant,
    done: Instant,
}

/// A virtual user: its number (1 to N, as k6's `__VU`), its connection.
pub(crate) struct Vu {
    number: usize,
    authority: String,
    path: String,
    sender: Option<SendRequest<Full<Bytes>>>,
    tally: Tally,
}

impl Vu {
    pub(crate) fn new(number: usize, url: &str) -> Result<Vu, SendError> {
        let rest = url.strip_prefix("http://").ok_or("not an http:// URL")?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        Ok(Vu { number, authority: authority.to_owned(), path: path.to_owned(), sender: None, tally: Tally::default() })
    }

    /// Iterate until the window ends; what was counted.
    pub(crate) async fn run(mut self, window: Window) -> Tally {
        // The script's users: `user-000NN` from k6's 1-based VU number.
        let user = format!("user-{:05}", self.number % 1000);
        let calls = [
            ("search_products", json!({"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10})),
            ("get_user_cart", json!({"user_id": user})),
            (
                "checkout",
                json!({"user_id": user, "items": [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]}),
            ),
        ];
        while Instant::now() < window.until {
            for (at, (tool, arguments)) in calls.iter().enumerate() {
                let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}});
                self.session(window, at, &call, |result| check_tool(tool, result)).await;
            }
            let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
            self.session(window, 4, &list, check_list).await;
            tokio::time::sleep(PAUSE).await;
        }
        self.tally
    }

    /// One whole session around `request`, timed under `TIMED[slot]`.
    async fn session(
        &mut self,
        window: Window,
        slot: usize,
        request: &Value,
        check: impl Fn(&Value) -> Result<(), String>,
    ) {
        let what = TIMED[slot];
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "k6-bench", "version": "1.0"}}});
        let Some(answer) = self.send("POST", Some(&init), None, window, true).await else { return };
        self.time(window, 3, &answer);
        let session = answer.session.clone();
        if let Err(e) = check_initialize(&answer) {
            self.tally.fail(format!("initialize before {what}: {e}"));
        }
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        if let Some(answer) = self.send("POST", Some(&initialized), session.as_deref(), window, false).await
            && answer.status != 202
        {
            self.tally.fail(format!("notifications/initialized before {what}: HTTP {}", answer.status));
        }
        if let Some(answer) = self.send("POST", Some(request), session.as_deref(), window, true).await {
            self.time(window, slot, &answer);
            let result = match (answer.status, &answer.message) {
                (200, Some(message)) => message.get("result").ok_or_else(|| format!("no result: {message}")),
                (status, message) => Err(format!("HTTP {status}, {message:?}")),
            };
            if let Err(e) = result.and_then(check) {
                self.tally.fail(format!("{what}: {e}"));
            }
        }
        if let Some(session) = session
            && let Some(answer) = self.send("DELETE", None, Some(&session), window, false).await
            && !(200..300).contains(&answer.status)
        {
            self.tally.fail(format!("DELETE after {what}: HTTP {}", answer.status));
        }
    }

    /// Count an MCP request answered in the window, and time it.
    fn time(&mut self, window: Window, slot: usize, answer: &Answer) {
        if answer.done >= window.from && answer.done <= window.until {
            self.tally.mcp_requests += 1;
            self.tally.latencies[slot].push(answer.done.duration_since(answer.sent).as_secs_f64() * 1e6);
        }
    }

    /// One HTTP request with the script's headers; `None` (a failure
    /// counted) when it could not be sent or answered. `mcp` marks the
    /// requests the script counts.
    async fn send(
        &mut self,
        method: &str,
        body: Option<&Value>,
        session: Option<&str>,
        window: Window,
        mcp: bool,
    ) -> Option<Answer> {
        match self.exchange(method, body, session).await {
            Ok(answer) => {
                if answer.done >= window.from && answer.done <= window.until {
                    self.tally.http_requests += 1;
                }
                Some(answer)
            }
            Err(e) => {
                // The connection is not trusted again; the next request opens another.
                self.sender = None;
                let what = body.and_then(|b| b["method"].as_str()).unwrap_or(method).to_owned();
                self.tally.fail(format!("{what}{}: {e}", if mcp { "" } else { " (protocol overhead)" }));
                None
            }
        }
    }

    async fn exchange(
        &mut self,
        method: &str,
        body: Option<&Value>,
        session: Option<&str>,
    ) -> Result<Answer, SendError> {
        if self.sender.as_ref().is_none_or(|s| s.is_closed()) {
            let stream = tokio::net::TcpStream::connect(&self.authority).await?;
            stream.set_nodelay(true)?;
            let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
            tokio::spawn(connection);
            self.sender = Some(sender);
        }
        let sender = self.sender.as_mut().ok_or("no connection")?;
        let mut request = hyper::Request::builder().method(method).uri(&self.path).header("host", &self.authority);
        let bytes = match body {
            // The script's POST headers; its DELETE sends the session id alone.
            Some(body) => {
                request = request
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream");
                Bytes::from(serde_json::to_vec(body)?)
            }
            None => Bytes::new(),
        };
        if let Some(session) = session {
            request = request.header(mcp_http::SESSION_ID, session);
        }
        let request = request.body(Full::new(bytes))?;
        sender.ready().await?;
        let sent = Instant::now();
        let (parts, body) = tokio::time::timeout(TIMEOUT, async {
            let response = sender.send_request(request).await?;
            let (parts, body) = response.into_parts();
            Ok::<_, SendError>((parts, body.collect().await?.to_bytes()))
        })
        .await
        .map_err(|_| "no answer within 30 s")??;
        let done = Instant::now();
        let session = parts.headers.get(mcp_http::SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let message = answer_messages(&parts.headers, &body)?.into_iter().find(|m| m.get("id").is_some());
        Ok(Answer { status: parts.status.as_u16(), session, message, sent, done })
    }
}

/// `initialize` answered with a result for 2024-11-05.
fn check_initialize(answer: &Answer) -> Result<(), String> {
    let message = answer.message.as_ref().ok_or_else(|| format!("HTTP {}, no message", answer.status))?;
    match message["result"]["protocolVersion"].as_str() {
        Some("2024-11-05") if answer.status == 200 => Ok(()),
        _ => Err(format!("HTTP {}, {message}", answer.status)),
    }
}

/// The script's checks of a tool's result (`makeTools`), and no tool error.
pub(crate) fn check_tool(tool: &str, result: &Value) -> Result<(), String> {
    if result["isError"] == json!(true) {
        return Err(format!("tool error: {result}"));
    }
    let text = result["content"][0]["text"].as_str().ok_or_else(|| format!("no text: {result}"))?;
    let d: Value = serde_json::from_str(text).map_err(|e| format!("text is not JSON ({e}): {text}"))?;
    let len = |v: &Value| v.as_array().map_or(usize::MAX, Vec::len);
    let ok = match tool {
        "search_products" => {
            d["total_found"] == json!(2251) && len(&d["products"]) == 10 && len(&d["top10_popular_ids"]) == 10
        }
        "get_user_cart" => {
            d["user_id"].as_str().is_some_and(|u| !u.is_empty())
                && d["cart"]["items"].as_array().is_some_and(|items| !items.is_empty())
                && len(&d["recent_history"]) == 5
        }
        "checkout" => {
            d["status"] == json!("confirmed")
                && d["total"].as_f64().is_some_and(|t| t > 0.0)
                && d["items_count"] == json!(2)
        }
        _ => false,
    };
    if ok { Ok(()) } else { Err(format!("check failed: {text}")) }
}

/// `tools/list` lists the three tools.
fn check_list(result: &Value) -> Result<(), String> {
    let names: Vec<&str> =
        result["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    match TIMED[..3].iter().all(|tool| names.contains(tool)) {
        true => Ok(()),
        false => Err(format!("tools/list gave {names:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(text: Value) -> Value {
        json!({"content": [{"type": "text", "text": text.to_string()}]})
    }

    #[test]
    fn tool_results_are_checked_as_the_script_checks_them() {
        let ids: Vec<u64> = (1..=10).collect();
        let search = json!({"total_found": 2251, "products": ids, "top10_popular_ids": ids});
        assert!(check_tool("search_products", &result(search.clone())).is_ok());
        let mut short = search;
        short["total_found"] = json!(2250);
        assert!(check_tool("search_products", &result(short)).is_err());
        let cart = json!({"user_id": "user-00001", "cart": {"items": [1]}, "recent_history": [1, 2, 3, 4, 5]});
        assert!(check_tool("get_user_cart", &result(cart)).is_ok());
        let empty = json!({"user_id": "user-00001", "cart": {"items": []}, "recent_history": [1, 2, 3, 4, 5]});
        assert!(check_tool("get_user_cart", &result(empty)).is_err());
        let order = json!({"status": "confirmed", "total": 101.5, "items_count": 2});
        assert!(check_tool("checkout", &result(order.clone())).is_ok());
        assert!(check_tool("checkout", &json!({"isError": true, "content": result(order)["content"]})).is_err());
        assert!(check_tool("checkout", &result(json!({"status": "confirmed", "total": 0, "items_count": 2}))).is_err());
        assert!(check_list(&json!({"tools": [{"name": "checkout"}, {"name": "get_user_cart"}]})).is_err());
    }
}
