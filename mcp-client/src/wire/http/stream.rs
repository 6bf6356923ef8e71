//! The event streams: a POST's answer read as events until the answer,
//! resumed with `GET` and `Last-Event-ID` when the server ends it early
//! (after the `retry` it asked for), and the server's own `GET` stream,
//! reopened while the connection lasts.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use mcp_core::RequestId;
use mcp_core::http::LAST_EVENT_ID;
use reqwest::StatusCode;
use reqwest::header::ACCEPT;

use super::{STREAM_OPEN_WAIT, Shared, lock, media_type};
use crate::Error;
use crate::wire::Inbound;
use crate::wire::sse::{Event, Parsed, Parser};

/// How long to wait before reconnecting when the server named no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// How many reconnects in a row may fail before a stream is given up.
const MAX_RECONNECTS: u32 = 5;
/// The longest reconnection delay honoured: a server's `retry` of days
/// would stall its stream for good.
const MAX_RETRY: Duration = Duration::from_secs(60);
impl Shared {
    /// Read a POST's event stream until the answer to `id`, reconnecting
    /// with `GET` and `Last-Event-ID` when the server ends it first.
    pub(super) async fn read_stream(self: Arc<Self>, response: reqwest::Response, id: Option<RequestId>) {
        let mut cursor = Cursor::default();
        let mut drained = self.drain(response, &mut cursor, id.as_ref()).await;
        let mut failures = 0;
        while matches!(drained, Drained::Ended) && !self.closed.load(Ordering::Acquire) {
            let Some(last) = cursor.last_id.clone() else { break };
            tokio::time::sleep(cursor.retry).await;
            match self.resume(&last).await {
                Ok(response) => {
                    failures = 0;
                    drained = self.drain(response, &mut cursor, id.as_ref()).await;
                }
                Err(error) => {
                    failures += 1;
                    tracing::debug!(%error, failures, "resuming an event stream failed");
                    if failures >= MAX_RECONNECTS {
                        break;
                    }
                }
            }
        }
        if let Some(id) = id {
            lock(&self.streams).remove(&id);
            match drained {
                Drained::Answered => {}
                Drained::Ended => {
                    let why =
                        "the server ended the answer's event stream before the answer, and it could not be resumed";
                    self.inbox.deliver(Inbound::Failed(id, Error::Closed(why.into())));
                }
                Drained::Failed(error) => {
                    self.inbox.deliver(Inbound::Failed(id, error));
                }
            }
        }
    }

    async fn resume(&self, last: &str) -> Result<reqwest::Response, Error> {
        let response = self
            .exchange(|| self.http.get(&self.url).header(ACCEPT, "text/event-stream").header(LAST_EVENT_ID, last))
            .await?;
        if response.status().is_success() && media_type(response.headers()) == "text/event-stream" {
            Ok(response)
        } else {
            Err(Error::Http { status: response.status().as_u16(), body: String::new() })
        }
    }

    /// Deliver a stream's messages, until the answer to `id`.
    async fn drain(&self, response: reqwest::Response, cursor: &mut Cursor, id: Option<&RequestId>) -> Drained {
        let mut body = response.bytes_stream();
        let mut parser = Parser::new(self.max_message_bytes);
        loop {
            let chunk = tokio::select! {
                chunk = body.next() => chunk,
                () = self.closing.notified() => return Drained::Answered,
            };
            let Some(Ok(chunk)) = chunk else { return Drained::Ended };
            for parsed in parser.feed(&chunk) {
                match parsed {
                    Parsed::Event(event) => {
                        if self.event(event, cursor, id).await {
                            return Drained::Answered;
                        }
                    }
                    // A request's stream carries what serves that request:
                    // an event too large to read fails it, at once.
                    Parsed::TooLarge(size) => {
                        let error = Error::too_large("an event from the server", size, self.max_message_bytes);
                        if id.is_some() {
                            return Drained::Failed(error);
                        }
                        tracing::warn!(%error, "skipped an event of the server's own stream");
                    }
                }
            }
        }
    }

    /// Deliver one event's message; whether it was the answer to `id`.
    async fn event(&self, event: Event, cursor: &mut Cursor, id: Option<&RequestId>) -> bool {
        if let Some(last) = event.id {
            cursor.last_id = Some(last);
        }
        if let Some(retry) = event.retry {
            cursor.retry = Duration::from_millis(retry).min(MAX_RETRY);
        }
        let mut answered = false;
        crate::wire::incoming::each(event.data.as_bytes(), |item| {
            answered |= item.answer_to() == Some(id);
            self.inbox.deliver(item);
        });
        answered
    }

    /// Open the server's own stream (`GET`), after event `last` if given:
    /// `Some(Ok)` with the stream, `Some(Err)` after a failure worth
    /// retrying, `None` if the server has no such stream (405) or refuses
    /// it.
    pub(super) async fn open_stream(&self, last: Option<&str>) -> Option<Result<reqwest::Response, Error>> {
        let response = self
            .exchange(|| {
                let get = self.http.get(&self.url).header(ACCEPT, "text/event-stream");
                match last {
                    Some(last) => get.header(LAST_EVENT_ID, last),
                    None => get,
                }
            })
            .await;
        match response {
            Ok(response) if response.status().is_success() => Some(Ok(response)),
            Ok(response) => {
                if response.status() != StatusCode::METHOD_NOT_ALLOWED {
                    tracing::debug!(status = %response.status(), "the server refused its GET stream");
                }
                None
            }
            Err(error) => Some(Err(error)),
        }
    }

    /// Read the server's own stream, for messages that belong to no
    /// request, resuming it while the connection lasts.
    pub(super) async fn listen(self: Arc<Self>, first: Result<reqwest::Response, Error>) {
        let mut cursor = Cursor::default();
        let mut failures = 0;
        let mut next = Some(first);
        while let Some(opened) = next.take() {
            match opened {
                Ok(response) => {
                    failures = 0;
                    self.drain(response, &mut cursor, None).await;
                }
                Err(error) => {
                    failures += 1;
                    tracing::debug!(%error, "the server's GET stream failed");
                    if failures >= MAX_RECONNECTS {
                        return;
                    }
                }
            }
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(cursor.retry) => {}
                () = self.closing.notified() => return,
            }
            let last = cursor.last_id.clone();
            next = tokio::select! {
                opened = tokio::time::timeout(STREAM_OPEN_WAIT, self.open_stream(last.as_deref())) => {
                    opened.unwrap_or_else(|_| Some(Err(Error::transport("the server took too long to open its stream"))))
                }
                () = self.closing.notified() => return,
            };
        }
    }
}

/// How reading a stream ended.
enum Drained {
    /// With the answer to its request (or the client closed).
    Answered,
    /// Before the answer: resume it if it can be.
    Ended,
    /// Its request failed; nothing more is read.
    Failed(Error),
}

/// Where a stream's reader is: the last event id seen and the server's
/// reconnection delay.
struct Cursor {
    last_id: Option<String>,
    retry: Duration,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor { last_id: None, retry: DEFAULT_RETRY }
    }
}
