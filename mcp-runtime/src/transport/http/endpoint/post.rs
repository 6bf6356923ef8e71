//! POST: one message into a session (or into `initialize`, which makes
//! one), within the body's size and time limits; its answer as JSON or as
//! an event stream.

use super::*;
use mcp_core::jsonrpc::Text;

impl Endpoint {
    pub(super) async fn post(&self, headers: &HeaderMap, body: Body, claims: Option<Claims>) -> Response {
        let media = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).and_then(|v| v.split(';').next());
        if !media.is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json")) {
            let error = ErrorObject::invalid_request("send JSON-RPC with Content-Type: application/json");
            return after_unwanted_body(body, error_response(StatusCode::UNSUPPORTED_MEDIA_TYPE, error)).await;
        }
        let body = match self.read_body(headers, body).await {
            Ok(body) => body,
            Err(response) => return *response,
        };
        let message = match parse(&body) {
            Ok(message) => message,
            Err(response) => return *response,
        };
        let sse = header_lists(headers, ACCEPT, "text/event-stream");
        if matches!(&message, Message::Request(r) if r.method == methods::SUBSCRIPTIONS_LISTEN) && !sse {
            let error = ErrorObject::invalid_request(
                "subscriptions/listen answers with an event stream: send Accept: text/event-stream",
            );
            return error_response(StatusCode::NOT_ACCEPTABLE, error);
        }
        let Some(id) = headers.get(SESSION_ID) else {
            return match message {
                Message::Request(request) => self.sessionless(headers, request, sse, claims).await,
                // Stateless clients cancel by closing the response stream.
                Message::Notification(_) => StatusCode::ACCEPTED.into_response(),
                Message::Response(_) => missing_session(None),
            };
        };
        let session = self.find_session(id, claims.as_ref()).await;
        let Some(session) = session else { return session_not_found() };
        if let Some(response) = unsupported_version(headers) {
            return response;
        }
        self.touch(&session);
        match message {
            Message::Request(request) => {
                let saves = snapshot::changes_snapshot(&request.method);
                // A client that takes an event stream gets a resumable one.
                let (stream, rx) = session.call_queue(sse);
                let calls = &session.calls;
                let started = match calls
                    .submit(
                        &session.session,
                        Message::Request(request),
                        &stream,
                        Arrival { claims, ..Arrival::default() },
                        true,
                    )
                    .await
                {
                    Submitted::Nothing => return StatusCode::ACCEPTED.into_response(),
                    // Nothing came before it: the answer is all there is.
                    Submitted::Answered(answer) if rx.is_empty() => {
                        if saves && answer.error_object().is_none() {
                            self.save(&session).await;
                        }
                        return self.reply(StatusCode::OK, &answer);
                    }
                    Submitted::Answered(answer) => {
                        stream.answer(&answer);
                        stream.end();
                        None
                    }
                    Submitted::Started(started) => Some(started),
                };
                self.call_stream(&session, rx, started, sse).await
            }
            notification_or_response => {
                let nowhere = Outgoing::nowhere();
                session
                    .calls
                    .submit(&session.session, notification_or_response, &nowhere, Arrival::default(), false)
                    .await;
                StatusCode::ACCEPTED.into_response()
            }
        }
    }

    /// The response to a session's call that did not finish at once (or
    /// sent messages before its answer): its messages as they come.
    async fn call_stream(
        &self,
        session: &Arc<HttpSession>,
        rx: Drain<Frame>,
        started: Option<Started>,
        sse: bool,
    ) -> Response {
        let resumable = sse.then(|| session.new_stream());
        let ok = |_: Option<i64>| StatusCode::OK;
        let Some((number, hub)) = resumable else {
            // Plain JSON cannot be resumed: hanging up cancels.
            let on_drop = started.map(|started| Box::new(move || started.cancel()) as Box<dyn FnOnce() + Send>);
            return CallStream::direct(rx, on_drop).respond(false, ok).await.0;
        };
        // Resumable: a dropped connection is not a cancel (the spec's
        // SHOULD NOT); the call goes on and the client reconnects for the
        // rest.
        session.track(number, hub.clone());
        let reader = hub.read(0).await.expect("a new stream reads from its start");
        tokio::spawn(pump(rx, hub.clone()));
        let (response, sent) = CallStream::resumable(number, reader, true).respond(true, ok).await;
        // Answered as plain JSON: there are no event ids to resume from, so
        // its events never reach the store (a session of many quick calls
        // costs it nothing); an event stream's do, before its first byte.
        if sent == Sent::Json {
            session.forget_stream(number);
            hub.forget().await;
        } else {
            hub.persist().await;
        }
        response
    }

    /// Start a session: it is kept (and its id sent) only if `initialize`
    /// succeeds.
    pub(super) async fn initialize(&self, message: Message, claims: Option<Claims>) -> Response {
        let Ok(mut session) = self.sessions.create(self.shared.clone(), self.options.stores.events.clone(), None)
        else {
            return too_many_sessions();
        };
        session.owner = super::super::sessions::owner_of(claims.as_ref());
        let nowhere = Outgoing::nowhere();
        // The claims go along: the session listens for changes to its user's view.
        let arrival = Arrival { claims, ..Arrival::default() };
        let response = match session.calls.submit(&session.session, message, &nowhere, arrival, false).await {
            Submitted::Answered(answer) => answer,
            _ => unreachable!("`initialize` is answered at once"),
        };
        if response.error_object().is_some() {
            return json_response(StatusCode::OK, &response);
        }
        let Ok(session) = self.sessions.insert(session) else { return too_many_sessions() };
        // Saved before the client learns its id: its next request may go
        // to another replica.
        self.save(&session).await;
        let mut reply = json_response(StatusCode::OK, &response);
        let id = HeaderValue::from_str(&session.id).expect("a session id is a header value");
        reply.headers_mut().insert(SESSION_ID, id);
        reply
    }

    /// The whole body, within the size and time limits. A refusal here
    /// leaves the body partly unread, so it closes the connection.
    pub(super) async fn read_body(&self, headers: &HeaderMap, body: Body) -> Result<Bytes, Box<Response>> {
        let limit = self.options.body_timeout;
        let mut read = std::pin::pin!(self.read_body_untimed(headers, body));
        // A body that has already arrived (most do: they are small) is read
        // without arming a timer.
        let mut outcome = match crate::dispatch::poll_once(&mut read).await {
            std::task::Poll::Ready(outcome) => outcome,
            std::task::Poll::Pending => tokio::time::timeout(limit, read).await.unwrap_or_else(|_| {
                tracing::debug!(?limit, "a request body took too long to arrive");
                let error =
                    ErrorObject::invalid_request(format!("the request body took longer than {limit:?} to arrive"));
                Err(Box::new(error_response(StatusCode::REQUEST_TIMEOUT, error)))
            }),
        };
        if let Err(response) = &mut outcome {
            close(response);
        }
        outcome
    }

    pub(super) async fn read_body_untimed(&self, headers: &HeaderMap, body: Body) -> Result<Bytes, Box<Response>> {
        let too_large = || {
            let error =
                ErrorObject::invalid_request(format!("request body exceeds the limit of {} bytes", self.max_body));
            Box::new(error_response(StatusCode::PAYLOAD_TOO_LARGE, error))
        };
        let declared = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > self.max_body as u64) {
            return Err(too_large());
        }
        // Counted as it arrives: a chunked body declares no length.
        // A body that came in one chunk (most) is kept as it came, uncopied.
        let mut chunks = body.into_data_stream();
        let mut first = Bytes::new();
        let mut joined = Vec::new();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| {
                tracing::debug!(error = %e, "reading a request body failed");
                error_response(
                    StatusCode::BAD_REQUEST,
                    ErrorObject::invalid_request("the request body could not be read"),
                )
            })?;
            if first.len() + joined.len() + chunk.len() > self.max_body {
                return Err(too_large());
            }
            if first.is_empty() && joined.is_empty() {
                first = chunk;
            } else {
                joined.extend_from_slice(&std::mem::take(&mut first));
                joined.extend_from_slice(&chunk);
            }
        }
        Ok(if joined.is_empty() { first } else { Bytes::from(joined) })
    }
}

/// Parse one POSTed message; a batch is refused.
pub(super) fn parse(body: &[u8]) -> Result<Message, Box<Response>> {
    match Message::parse(body) {
        Text::Message(message) => Ok(message),
        Text::NotJson(e) => Err(Box::new(error_response(StatusCode::BAD_REQUEST, ErrorObject::parse_error(e)))),
        Text::Batch(_) => {
            let error =
                ErrorObject::invalid_request("JSON-RPC batches are not supported; send one message per request");
            Err(Box::new(error_response(StatusCode::BAD_REQUEST, error)))
        }
        Text::Invalid(invalid) => Err(Box::new(json_response(StatusCode::BAD_REQUEST, &invalid.into_response()))),
    }
}

/// A request naming a protocol version we do not speak gets 400 (absent,
/// the spec has the server assume the negotiated one).
pub(super) fn unsupported_version(headers: &HeaderMap) -> Option<Response> {
    let version = headers.get(PROTOCOL_VERSION)?;
    if version.to_str().ok().and_then(ProtocolVersion::parse).is_some() {
        return None;
    }
    let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
    let error = ErrorObject::invalid_request(format!(
        "unsupported MCP-Protocol-Version {:?}; supported: {}",
        String::from_utf8_lossy(version.as_bytes()),
        supported.join(", ")
    ))
    .with_data(json!({ "supported": supported }));
    Some(error_response(StatusCode::BAD_REQUEST, error))
}

/// Whether a header lists `value` (as one of its comma-separated items).
pub(super) fn header_lists(headers: &HeaderMap, name: HeaderName, value: &str) -> bool {
    // Compared as bytes: `value` is ASCII, so a value that is not text
    // cannot match it anyway, and every request asks this of `Accept`.
    headers.get_all(name).iter().flat_map(|v| v.as_bytes().split(|&b| b == b',')).any(|item| {
        let media = item.split(|&b| b == b';').next().unwrap_or_default();
        media.trim_ascii().eq_ignore_ascii_case(value.as_bytes())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: HeaderName, values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(name.clone(), HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn accept_lists_are_read_across_headers_items_and_parameters() {
        let accepts = |values: &[&'static str]| header_lists(&headers(ACCEPT, values), ACCEPT, "text/event-stream");
        assert!(accepts(&["application/json, text/event-stream"]));
        assert!(accepts(&["application/json", "TEXT/Event-Stream;q=0.5"]));
        assert!(!accepts(&["application/json"]));
        assert!(!accepts(&["text/event-streams"]));
        assert!(!accepts(&[]));
    }

    #[test]
    fn a_body_that_is_not_one_message_is_a_400_saying_why() {
        assert!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
        for body in [&b"{not json"[..], b"[]", br#"{"jsonrpc":"2.0","id":1}"#] {
            let refused = parse(body).expect_err("refused");
            assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn an_unknown_protocol_version_header_is_refused_with_the_supported_ones() {
        assert!(unsupported_version(&HeaderMap::new()).is_none());
        let known = ProtocolVersion::LATEST_HANDSHAKE.as_str();
        let mut ok = HeaderMap::new();
        ok.insert(PROTOCOL_VERSION, HeaderValue::from_str(known).unwrap());
        assert!(unsupported_version(&ok).is_none());
        let refused = unsupported_version(&headers(PROTOCOL_VERSION, &["2019-01-01"])).expect("refused");
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    }
}
