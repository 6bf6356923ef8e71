//! 2026-07-28 requests outside any session: each answered from the
//! request alone, its HTTP status from its answer, its headers checked
//! against its body.

use super::*;

impl Endpoint {
    /// A request without a session id: a 2026-07-28 request (by its
    /// envelope, or by the version its header names: its envelope is then
    /// checked, and missing), or `initialize`; anything else needs a
    /// session. The envelope is read once here, and travels with the
    /// request.
    pub(super) async fn sessionless(
        &self,
        headers: &HeaderMap,
        request: mcp_core::Request,
        sse: bool,
        claims: Option<Claims>,
    ) -> Response {
        let keys = envelope::Keys::of(request_meta(request.params.as_ref()));
        if !keys.present() && !names_stateless_version(headers) {
            return match (request.method == methods::INITIALIZE, self.options.session_ids) {
                (true, true) => self.initialize(Message::Request(request), claims).await,
                (false, true) => missing_session(Some(request.id)),
                (_, false) => self.without_session(headers, request, sse, claims).await,
            };
        }
        // In the spec's order: the envelope's required keys (-32602), then
        // the headers against the body (-32020; a tool call's `Mcp-Param-*`
        // headers are checked where its tool is found), then the rest of
        // the envelope, with the request itself (-32022 and the like).
        if let Some(error) = keys.require().err().or_else(|| header_mismatch(headers, &request, keys)) {
            return json_response(StatusCode::BAD_REQUEST, &Answer::error(Some(request.id), error));
        }
        // An envelope that is not valid is read again, and refused, by
        // dispatch, within the request's span.
        let envelope = envelope::Envelope::from_keys(keys).ok().flatten();
        let arrival = Arrival { claims, envelope, mirrored: Some(headers) };
        self.stateless(request, sse, arrival).await
    }

    /// A handshake-era request on an endpoint that issues no session ids:
    /// `initialize` is answered (with no id), and any other request from
    /// itself alone, on the session its version's requests share; the
    /// methods that need a session are refused.
    async fn without_session(
        &self,
        headers: &HeaderMap,
        request: mcp_core::Request,
        sse: bool,
        claims: Option<Claims>,
    ) -> Response {
        if let Some(response) = unsupported_version(headers) {
            return response;
        }
        if let Some(error) = needs_session(&request) {
            return json_response(StatusCode::OK, &Answer::error(Some(request.id), error));
        }
        let named = headers.get(PROTOCOL_VERSION).and_then(|v| v.to_str().ok()).and_then(ProtocolVersion::parse);
        let version = named.unwrap_or(ProtocolVersion::V2025_03_26);
        let session = match request.method == methods::INITIALIZE {
            // Its own, for the version it asks for: it is answered, and dropped.
            true => Arc::new(session(&self.shared)),
            false => {
                let at = ProtocolVersion::ALL.iter().position(|v| *v == version).unwrap_or(0);
                self.assumed[at].get_or_init(|| Arc::new(session(&self.shared).assume(version))).clone()
            }
        };
        self.stateless_on(session, request, sse, Arrival { claims, ..Arrival::default() }).await
    }

    /// A 2026-07-28 request outside any session: answered from the request
    /// alone.
    async fn stateless(&self, request: mcp_core::Request, sse: bool, arrival: Arrival<'_>) -> Response {
        // A subscription keeps its listener in its session, by request id,
        // which two clients may both use: it gets a session of its own.
        let session = match request.method == methods::SUBSCRIPTIONS_LISTEN {
            true => Arc::new(session(&self.shared)),
            false => self.stateless.clone(),
        };
        self.stateless_on(session, request, sse, arrival).await
    }

    /// A request outside any session, answered on `session`.
    async fn stateless_on(
        &self,
        session: Arc<Session>,
        request: mcp_core::Request,
        sse: bool,
        arrival: Arrival<'_>,
    ) -> Response {
        let (queue, rx) = Outgoing::bounded(self.max_queued);
        let queue = queue.answer_only();
        let message = Message::Request(request);
        let on_drop: Box<dyn FnOnce() + Send> =
            match self.stateless_calls.submit(&session, message, &queue, arrival, true).await {
                Submitted::Nothing => return StatusCode::ACCEPTED.into_response(),
                Submitted::Answered(answer) if rx.is_empty() => {
                    let code = answer.error_object().map(|e| e.code);
                    return self.reply(stateless_status(code), &answer);
                }
                Submitted::Answered(answer) => {
                    queue.answer(&answer);
                    queue.end();
                    return CallStream::direct(rx, None).respond(sse, stateless_status).await.0;
                }
                // Its client cancels it by hanging up; a subscription's
                // session lives as long as it runs.
                Submitted::Started(started) => Box::new(move || {
                    started.cancel();
                    drop(session);
                }),
            };
        CallStream::direct(rx, Some(on_drop)).respond(sse, stateless_status).await.0
    }
}

/// Why a handshake-era request cannot be answered without a session, if
/// it cannot: what it changes or starts would outlive the request, and be
/// every sessionless client's alike.
fn needs_session(request: &mcp_core::Request) -> Option<ErrorObject> {
    let method = request.method.as_str();
    let asks_task = method == methods::TOOLS_CALL && request.params.as_ref().is_some_and(|p| p.contains_key("task"));
    let stateful = [methods::LOGGING_SET_LEVEL, methods::RESOURCES_SUBSCRIBE, methods::RESOURCES_UNSUBSCRIBE];
    let what = if asks_task {
        "a call that becomes a task"
    } else if method.starts_with("tasks/") || stateful.contains(&method) {
        method
    } else {
        return None;
    };
    Some(ErrorObject::invalid_request(format!(
        "{what} needs a session, and this server issues none (`HttpOptions::session_ids(false)`): it answers each \
         request from the request alone"
    )))
}

/// A session for stateless requests.
pub(super) fn session(shared: &Arc<Shared>) -> Session {
    Session::new(shared.clone(), Outgoing::nowhere()).sharing_allowances(STATELESS_ALLOWANCES).over_http(None)
}

/// Stateless requests over HTTP share one rate-limit allowance: nothing
/// tells their clients apart.
pub(super) const STATELESS_ALLOWANCES: u64 = u64::MAX;

/// The HTTP status of a stateless answer: 404 for a method the server does
/// not have, 400 for the envelope's errors, else 200.
pub(super) fn stateless_status(error: Option<i64>) -> StatusCode {
    match error {
        Some(mcp_core::codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(code) if STATELESS_BAD_REQUEST.contains(&code) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Envelope errors that the spec answers with 400 over HTTP.
pub(super) const STATELESS_BAD_REQUEST: [i64; 4] = [
    mcp_core::codes::INVALID_PARAMS,
    mcp_core::codes::HEADER_MISMATCH,
    mcp_core::codes::MISSING_CLIENT_CAPABILITY,
    mcp_core::codes::UNSUPPORTED_PROTOCOL_VERSION,
];

/// Whether the `MCP-Protocol-Version` header names a version without a
/// handshake.
pub(super) fn names_stateless_version(headers: &HeaderMap) -> bool {
    let version = headers.get(PROTOCOL_VERSION).and_then(|v| v.to_str().ok()).and_then(ProtocolVersion::parse);
    version.is_some_and(|v| !v.uses_handshake())
}

/// 2026-07-28 mirrors parts of the body in headers (SEP-2243): every
/// request sends `Mcp-Method`, and one whose body names a tool, prompt or
/// resource sends it as `Mcp-Name` (in the `=?base64?…?=` form if a header
/// cannot carry it). A header that is missing, or that disagrees with the
/// body, is `-32020` (400). Header names are case-insensitive; values are
/// compared exactly once the whitespace around them (RFC 9110 §5.5) is
/// trimmed. `MCP-Protocol-Version` is compared when sent. (A tool call's
/// `Mcp-Param-*` headers, for the arguments its input schema marks with
/// `x-mcp-header`, are its tool's business: see [`mirror`].)
pub(super) fn header_mismatch(
    headers: &HeaderMap,
    request: &mcp_core::Request,
    keys: envelope::Keys<'_>,
) -> Option<ErrorObject> {
    let params = request.params.as_ref();
    let body_version = keys.version.and_then(Value::as_str);
    let body_name = mcp_core::http::mirrored_name(&request.method)
        .and_then(|field| params.and_then(|p| member(p, field)))
        .and_then(Value::as_str);
    // (header, what the body says, whether the header must be sent)
    let checks = [
        (PROTOCOL_VERSION, body_version, false),
        (MCP_METHOD, Some(request.method.as_str()), true),
        (MCP_NAME, body_name, body_name.is_some()),
    ];
    for (header, body, required) in checks {
        let body_says = body.unwrap_or("nothing");
        let Some(sent) = headers.get(&header) else {
            if required {
                return Some(mirror::mismatch(format!("{header} is missing, the body says {body_says:?}")));
            }
            continue;
        };
        let sent = mirror::text(sent);
        let decoded = if header == MCP_NAME { mcp_core::http::decode_value(&sent) } else { Some(sent.clone()) };
        if decoded.as_deref() != body {
            return Some(mirror::mismatch(format!("{header} is {sent:?}, the body says {body_says:?}")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stateless_answer_takes_its_status_from_its_error_code() {
        // The code travels with the answer's frame: nothing reads the
        // serialized answer back.
        let status = |answer: Answer| {
            let (queue, mut rx) = Outgoing::bounded(usize::MAX);
            queue.answer(&answer);
            match rx.try_recv().unwrap() {
                Frame::Answer { error, .. } => stateless_status(error),
                other => panic!("an answer was queued as {other:?}"),
            }
        };
        let id = || Some(mcp_core::RequestId::Number(1));
        let error = |code: i64| Answer::error(id(), ErrorObject::new(code, "x"));
        let ok = mcp_core::Response::result(mcp_core::RequestId::Number(1), json!({}));
        assert_eq!(status(ok.into()), StatusCode::OK);
        assert_eq!(status(error(mcp_core::codes::METHOD_NOT_FOUND)), StatusCode::NOT_FOUND);
        for code in STATELESS_BAD_REQUEST {
            assert_eq!(status(error(code)), StatusCode::BAD_REQUEST, "code {code}");
        }
        // A tool's own failure is a result, and an internal error is not
        // the client's mistake: neither is a 4xx.
        assert_eq!(status(error(mcp_core::codes::INTERNAL_ERROR)), StatusCode::OK);
    }

    #[test]
    fn only_a_version_without_the_handshake_makes_a_request_stateless() {
        let with = |version: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(PROTOCOL_VERSION, HeaderValue::from_str(version).unwrap());
            names_stateless_version(&headers)
        };
        assert!(with(ProtocolVersion::ALL.iter().find(|v| !v.uses_handshake()).unwrap().as_str()));
        assert!(!with(ProtocolVersion::LATEST_HANDSHAKE.as_str()));
        assert!(!with("1999-01-01"));
        assert!(!names_stateless_version(&HeaderMap::new()));
    }
}
