//! Server-sent events as MCP's streams need them: each message one event
//! (with its id on a resumable stream), a priming event that is an id and
//! one empty `data:` line (what clients take as "resume from here"), and a
//! keep-alive comment while a stream is idle, so proxies keep it open.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};

/// How often an idle stream gets a comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One message: compact JSON has no line breaks, so it is one `data:` line.
pub(crate) fn message(id: Option<&str>, json: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(json.len() + 40);
    event.extend_from_slice(b"event: message\n");
    if let Some(id) = id {
        event.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    event.extend_from_slice(b"data: ");
    event.extend_from_slice(json);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

/// The event that opens a resumable stream: its first id, how long to wait
/// before reconnecting, and an empty `data:` line (SEP-1699).
pub(crate) fn priming(id: &str, retry: Duration) -> Bytes {
    Bytes::from(format!("id: {id}\nretry: {}\ndata:\n\n", retry.as_millis()))
}

/// An event-stream response carrying `events`, with keep-alive comments.
pub(crate) fn response(events: impl Stream<Item = Bytes> + Send + 'static) -> Response {
    let events = Box::pin(events);
    let body = futures_util::stream::unfold(events, |mut events| async move {
        tokio::select! {
            next = events.next() => next.map(|event| (Ok::<_, Infallible>(event), events)),
            () = tokio::time::sleep(KEEP_ALIVE) => Some((Ok(Bytes::from_static(b":\n\n")), events)),
        }
    });
    ([(CONTENT_TYPE, "text/event-stream"), (CACHE_CONTROL, "no-cache")], Body::from_stream(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed_as_the_spec_and_its_clients_read_them() {
        assert_eq!(&message(Some("3.1"), br#"{"a":1}"#)[..], b"event: message\nid: 3.1\ndata: {\"a\":1}\n\n");
        assert_eq!(&message(None, b"{}")[..], b"event: message\ndata: {}\n\n");
        assert_eq!(&priming("3.0", Duration::from_millis(500))[..], b"id: 3.0\nretry: 500\ndata:\n\n");
    }
}
