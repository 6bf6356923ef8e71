//! Sessions as HTTP sees them: found by header (or restored from another
//! replica's store), kept alive, their GET stream, their DELETE, and the
//! resumption of a call stream.

use super::*;

impl Endpoint {
    /// The session `id`, if it is one of this claimant's: open here, or
    /// saved by another replica (then it opens here).
    pub(super) async fn find_session(&self, id: &HeaderValue, claims: Option<&Claims>) -> Option<Arc<HttpSession>> {
        let id = id.to_str().ok()?;
        let session = match self.sessions.get(id) {
            Some(session) => session,
            None => self.restore(id).await?,
        };
        session.owned_by(claims).then_some(session)
    }

    /// Open here a session another replica saved; `None` if no store has
    /// it (or the table is full of busy sessions).
    pub(super) async fn restore(&self, id: &str) -> Option<Arc<HttpSession>> {
        let store = self.options.stores.sessions.as_ref()?;
        // Only ids this server could have made: anything else is not
        // worth a trip to the store.
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let record = match store.load(id).await {
            Ok(record) => record?,
            Err(error) => {
                tracing::warn!(%error, "the session store could not be read; the session is not found");
                return None;
            }
        };
        let Ok(snapshot) = serde_json::from_slice::<snapshot::Snapshot>(&record) else {
            tracing::warn!(session = %id, "a saved session could not be read; it is not found");
            return None;
        };
        let mut session =
            self.sessions.create(self.shared.clone(), self.options.stores.events.clone(), Some(id.to_owned())).ok()?;
        session.owner = snapshot.owner.clone();
        session.session.restore(snapshot);
        tracing::debug!(session = %id, "took up a session another replica started");
        self.sessions.insert(session).ok()
    }

    /// Save the session where other replicas find it.
    pub(super) async fn save(&self, session: &HttpSession) {
        let Some(store) = &self.options.stores.sessions else { return };
        let Some(snapshot) = session.session.snapshot(session.owner.clone()) else { return };
        let record = serde_json::to_vec(&snapshot).expect("a session snapshot serializes");
        if let Err(error) = store.save(&session.id, &record, self.options.idle_timeout).await {
            tracing::warn!(session = %session.id, %error, "could not save a session; other replicas cannot take it up");
        }
    }

    /// Mark the session active, here and (now and then) in the store, so
    /// that it expires there no sooner than here.
    pub(super) fn touch(&self, session: &Arc<HttpSession>) {
        session.touch();
        let Some(store) = &self.options.stores.sessions else { return };
        if !session.due_for_refresh(self.options.idle_timeout / 8) {
            return;
        }
        let (store, id, ttl) = (store.clone(), session.id.clone(), self.options.idle_timeout);
        tokio::spawn(async move {
            if let Err(error) = store.touch(&id, ttl).await {
                tracing::debug!(%error, "could not refresh a saved session");
            }
        });
    }

    /// The server's stream of messages that belong to no request.
    pub(super) async fn get(&self, headers: &HeaderMap, claims: Option<&Claims>) -> Response {
        if !header_lists(headers, ACCEPT, "text/event-stream") {
            let error = ErrorObject::invalid_request("GET opens an event stream: send Accept: text/event-stream");
            return error_response(StatusCode::NOT_ACCEPTABLE, error);
        }
        let session = match self.session_of(headers, claims).await {
            Ok(session) => session,
            Err(response) => return *response,
        };
        if let Some(response) = unsupported_version(headers) {
            return response;
        }
        if let Some(last) = headers.get(LAST_EVENT_ID) {
            return resume_stream(&session, last).await;
        }
        let Some(mut rx) = session.open_stream() else {
            let error = ErrorObject::invalid_request("this session already has an open GET stream");
            return error_response(StatusCode::CONFLICT, error);
        };
        self.touch(&session);
        let events = futures_util::stream::poll_fn(move |cx| {
            loop {
                match std::task::ready!(rx.poll_recv(cx)) {
                    None | Some(Frame::End) => return std::task::Poll::Ready(None),
                    Some(Frame::Answer { bytes, .. } | Frame::Message(bytes)) => {
                        return std::task::Poll::Ready(Some(sse::message(None, &bytes)));
                    }
                    // The client has nothing to resume this stream from.
                    Some(Frame::CloseConnection) => {}
                }
            }
        });
        sse::response(events)
    }

    /// End a session: its calls stop and its stream closes, and no
    /// replica takes it up again.
    pub(super) async fn delete(&self, headers: &HeaderMap, claims: Option<&Claims>) -> Response {
        let session = match self.session_of(headers, claims).await {
            Ok(session) => session,
            Err(response) => return *response,
        };
        if let Some(store) = &self.options.stores.sessions
            && let Err(error) = store.remove(&session.id).await
        {
            tracing::warn!(session = %session.id, %error, "could not remove an ended session from the store");
        }
        if let Some(news) = &self.news {
            let _ = news.send(News::Ended(session.id.clone()));
        }
        match self.sessions.remove(&session.id) {
            true => StatusCode::OK.into_response(),
            false => session_not_found(),
        }
    }

    /// The request's session: one of its own subject's (another's is not
    /// found, so a stolen session id is no use without its owner's token).
    pub(super) async fn session_of(
        &self,
        headers: &HeaderMap,
        claims: Option<&Claims>,
    ) -> Result<Arc<HttpSession>, Box<Response>> {
        let Some(id) = headers.get(SESSION_ID) else {
            return Err(Box::new(missing_session(None)));
        };
        self.find_session(id, claims).await.ok_or_else(|| Box::new(session_not_found()))
    }
}

/// A reconnect to a call stream (`GET` with `Last-Event-ID`): what the
/// client missed, then the rest live, until the call's answer. A stream
/// another replica ran (the session moved here) replays from the store.
pub(super) async fn resume_stream(session: &HttpSession, last: &HeaderValue) -> Response {
    let last = last.to_str().unwrap_or_default();
    let Some((number, after)) = resume::parse_event_id(last) else {
        let error = ErrorObject::invalid_request(format!("Last-Event-ID {last:?} is not an id this server sent"));
        return error_response(StatusCode::BAD_REQUEST, error);
    };
    let gone = || {
        let error = ErrorObject::invalid_request(format!(
            "the events after {last} are no longer kept: the stream ended long ago or outgrew the event store"
        ));
        error_response(StatusCode::NOT_FOUND, error)
    };
    let reader = match session.stream(number) {
        Some(hub) => hub.read(after).await,
        None => resume::replay_kept(&**session.events(), &session.stream_key(number), after).await,
    };
    let Some(reader) = reader else { return gone() };
    session.touch();
    CallStream::resumable(number, reader, false).into_sse(Vec::new())
}

/// Move a call's frames into its resumable stream, ending it when the
/// call ends (also when it was stopped and sent no answer).
pub(super) async fn pump(mut rx: Drain<Frame>, hub: Arc<Hub>) {
    while let Some(frame) = rx.recv().await {
        let end = frame == Frame::End;
        hub.take(frame).await;
        if end {
            return;
        }
    }
    hub.take(Frame::End).await;
}
