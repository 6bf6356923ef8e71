//! A call's messages on their way out: straight from the call, or
//! numbered through a resumable stream; sent as plain JSON when the answer
//! comes first, else as an event stream.

use super::*;

/// How long a client whose event stream ended waits before reconnecting.
pub(super) const RECONNECT_AFTER: Duration = Duration::from_millis(500);

/// How long a call's first message is awaited before its event stream
/// starts: an answer by then goes out as plain JSON (one write, and an HTTP
/// status of its own); a slower call still gets its stream's headers and
/// keep-alives early.
pub(super) const FIRST_MESSAGE_WAIT: Duration = Duration::from_millis(250);

/// Where a call stream's messages come from.
pub(super) enum Source {
    /// Straight from the call: plain JSON, stateless requests.
    Direct(Drain<Vec<u8>>),
    /// From a resumable stream, numbered; `prime` opens it with an empty
    /// event carrying the first id and the reconnection delay.
    Resumable { stream: u64, rx: Drain<Numbered>, prime: bool },
}

/// A running call's messages, ending with its response. Dropped before
/// the response (the client went away), it runs `on_drop` (a direct
/// stream cancels its call; a resumable one does not).
pub(super) struct CallStream {
    source: Source,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    done: bool,
}

impl Drop for CallStream {
    fn drop(&mut self) {
        if let (false, Some(cancel)) = (self.done, self.on_drop.take()) {
            tracing::debug!("the client stopped waiting for a call; cancelling it");
            cancel();
        }
    }
}

impl CallStream {
    pub(super) fn direct(rx: Drain<Vec<u8>>, on_drop: Option<Box<dyn FnOnce() + Send>>) -> Self {
        CallStream { source: Source::Direct(rx), on_drop, done: false }
    }

    pub(super) fn resumable(stream: u64, rx: Drain<Numbered>, prime: bool) -> Self {
        CallStream { source: Source::Resumable { stream, rx, prime }, on_drop: None, done: false }
    }

    /// The next message and its number, or `None` after the response.
    pub(super) async fn next(&mut self) -> Option<Numbered> {
        let message = match &mut self.source {
            Source::Direct(rx) => rx.recv().await.map(|bytes| (0, bytes)),
            Source::Resumable { rx, .. } => rx.recv().await,
        };
        match message {
            Some((number, bytes)) if !bytes.is_empty() => Some((number, bytes)),
            _ => {
                self.done = true;
                None
            }
        }
    }

    /// A call whose answer comes before anything else (within
    /// [`FIRST_MESSAGE_WAIT`]) is answered as plain JSON, in one write and
    /// with the HTTP status `status` gives it; one that sends notifications
    /// or requests first, or takes longer, gets an event stream if the
    /// client takes one, else plain JSON with the answer alone.
    pub(super) async fn respond(mut self, sse: bool, status: impl FnOnce(&[u8]) -> StatusCode) -> Response {
        if !sse {
            return self.into_json(status).await;
        }
        let first = match tokio::time::timeout(FIRST_MESSAGE_WAIT, self.next()).await {
            Ok(Some(first)) => first,
            // A resumable stream whose connection the call closed at once
            // (`Context::close_stream`): its priming event tells the
            // client where to resume.
            Ok(None) if matches!(self.source, Source::Resumable { .. }) => return self.into_sse(Vec::new()),
            // Cancelled (by DELETE or `notifications/cancelled`).
            Ok(None) => return StatusCode::ACCEPTED.into_response(),
            Err(_) => return self.into_sse(Vec::new()),
        };
        // A call's only response is its answer: one that comes first is
        // all there is.
        if is_response(&first.1) {
            self.done = true;
            return (status(&first.1), [(CONTENT_TYPE, "application/json")], first.1).into_response();
        }
        self.into_sse(vec![first])
    }

    /// Stream what `already` came, then progress, log messages and requests
    /// as they come, then the response; a resumable stream's events carry
    /// ids, after a priming event if it is new.
    pub(super) fn into_sse(mut self, already: Vec<Numbered>) -> Response {
        let stream = match &mut self.source {
            Source::Resumable { stream, prime, .. } => {
                let primed = std::mem::take(prime);
                Some((*stream, primed))
            }
            Source::Direct(_) => None,
        };
        let priming = stream
            .filter(|(_, primed)| *primed)
            .map(|(number, _)| sse::priming(&resume::event_id(number, 0), RECONNECT_AFTER));
        let number = stream.map(|(number, _)| number);
        let first = futures_util::stream::iter(
            priming.into_iter().chain(already.iter().map(|m| event(number, m))).collect::<Vec<_>>(),
        );
        let rest = futures_util::stream::unfold(self, move |mut call| async move {
            let message = call.next().await?;
            Some((event(number, &message), call))
        });
        sse::response(first.chain(rest))
    }

    /// Only the response: a client that takes no event stream gets no
    /// notifications.
    pub(super) async fn into_json(mut self, status: impl FnOnce(&[u8]) -> StatusCode) -> Response {
        let mut last = None;
        while let Some((_, bytes)) = self.next().await {
            last = Some(bytes);
        }
        match last {
            Some(bytes) => (status(&bytes), [(CONTENT_TYPE, "application/json")], bytes).into_response(),
            // The call was cancelled (by DELETE or `notifications/cancelled`).
            None => StatusCode::ACCEPTED.into_response(),
        }
    }
}

/// Whether a message is a response (no `method`), not a notification or
/// a request.
pub(super) fn is_response(message: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(message).is_ok_and(|p| p.method.is_none())
}

/// An event of a call stream: with its id when the stream is resumable.
pub(super) fn event(stream: Option<u64>, (number, bytes): &Numbered) -> Bytes {
    let id = stream.map(|stream| resume::event_id(stream, *number));
    sse::message(id.as_deref(), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_message_without_a_method_is_a_response() {
        assert!(is_response(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(is_response(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#));
        assert!(!is_response(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#));
        assert!(!is_response(br#"{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage"}"#));
    }

    #[test]
    fn a_resumable_stream_numbers_its_events_and_a_direct_one_does_not() {
        let numbered: Numbered = (7, br#"{"a":1}"#.to_vec());
        let resumable = String::from_utf8(event(Some(3), &numbered).to_vec()).unwrap();
        assert!(resumable.contains(&format!("id: {}", resume::event_id(3, 7))), "{resumable}");
        assert!(resumable.contains(r#"data: {"a":1}"#), "{resumable}");
        let direct = String::from_utf8(event(None, &numbered).to_vec()).unwrap();
        assert!(!direct.contains("id:"), "{direct}");
    }
}
