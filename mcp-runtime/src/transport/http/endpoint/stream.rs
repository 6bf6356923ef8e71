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
    Direct(Drain<Frame>),
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
    pub(super) fn direct(rx: Drain<Frame>, on_drop: Option<Box<dyn FnOnce() + Send>>) -> Self {
        CallStream { source: Source::Direct(rx), on_drop, done: false }
    }

    pub(super) fn resumable(stream: u64, rx: Drain<Numbered>, prime: bool) -> Self {
        CallStream { source: Source::Resumable { stream, rx, prime }, on_drop: None, done: false }
    }

    /// The next message and its number, or `None` after the response.
    pub(super) async fn next(&mut self) -> Option<Numbered> {
        loop {
            let frame = match &mut self.source {
                Source::Direct(rx) => rx.recv().await.map(|frame| (0, frame)),
                Source::Resumable { rx, .. } => rx.recv().await,
            };
            match frame {
                // A direct stream has no connection to close for a resume
                // (its queue never carries the signal; a resumable
                // stream's hub obeys it before its reader sees it).
                Some((_, Frame::CloseConnection)) => continue,
                Some((_, Frame::End)) | None => {
                    self.done = true;
                    return None;
                }
                Some(message) => return Some(message),
            }
        }
    }

    /// A call whose answer comes before anything else (within
    /// [`FIRST_MESSAGE_WAIT`]) is answered as plain JSON, in one write and
    /// with the HTTP status `status` gives its error code; one that sends
    /// notifications or requests first, or takes longer, gets an event
    /// stream if the client takes one, else plain JSON with the answer
    /// alone. Says which it sent.
    pub(super) async fn respond(
        mut self,
        sse: bool,
        status: impl FnOnce(Option<i64>) -> StatusCode,
    ) -> (Response, Sent) {
        if !sse {
            return (self.into_json(status).await, Sent::Json);
        }
        let first = match tokio::time::timeout(FIRST_MESSAGE_WAIT, self.next()).await {
            Ok(Some(first)) => first,
            // A resumable stream whose connection the call closed at once
            // (`Context::close_stream`): its priming event tells the
            // client where to resume.
            Ok(None) if matches!(self.source, Source::Resumable { .. }) => {
                return (self.into_sse(Vec::new()), Sent::Events);
            }
            // Cancelled (by DELETE or `notifications/cancelled`).
            Ok(None) => return (StatusCode::ACCEPTED.into_response(), Sent::Json),
            Err(_) => return (self.into_sse(Vec::new()), Sent::Events),
        };
        // A call's only response is its answer: one that comes first is
        // all there is.
        if let (_, Frame::Answer { bytes, error }) = first {
            self.done = true;
            return (json_bytes(status(error), bytes), Sent::Json);
        }
        (self.into_sse(vec![first]), Sent::Events)
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
    pub(super) async fn into_json(mut self, status: impl FnOnce(Option<i64>) -> StatusCode) -> Response {
        while let Some((_, frame)) = self.next().await {
            if let Frame::Answer { bytes, error } = frame {
                return json_bytes(status(error), bytes);
            }
        }
        // The call was cancelled (by DELETE or `notifications/cancelled`).
        StatusCode::ACCEPTED.into_response()
    }
}

/// How a call was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sent {
    /// As plain JSON (or not at all): no event ids a client could resume
    /// after.
    Json,
    /// As an event stream.
    Events,
}

/// A serialized answer as a plain JSON response.
fn json_bytes(status: StatusCode, bytes: Vec<u8>) -> Response {
    (status, [(CONTENT_TYPE, "application/json")], bytes).into_response()
}

/// An event of a call stream: with its id when the stream is resumable.
pub(super) fn event(stream: Option<u64>, (number, frame): &Numbered) -> Bytes {
    let id = stream.map(|stream| resume::event_id(stream, *number));
    sse::message(id.as_deref(), frame.bytes().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumable_stream_numbers_its_events_and_a_direct_one_does_not() {
        let numbered: Numbered = (7, Frame::Message(br#"{"a":1}"#.to_vec()));
        let resumable = String::from_utf8(event(Some(3), &numbered).to_vec()).unwrap();
        assert!(resumable.contains(&format!("id: {}", resume::event_id(3, 7))), "{resumable}");
        assert!(resumable.contains(r#"data: {"a":1}"#), "{resumable}");
        let direct = String::from_utf8(event(None, &numbered).to_vec()).unwrap();
        assert!(!direct.contains("id:"), "{direct}");
    }
}
