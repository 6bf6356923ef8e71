//! What arrives on a session: answers matched to the requests waiting for
//! them, the server's own requests answered by the handlers, notifications
//! routed to whoever listens, and the connection's end failing every
//! request still waiting.

use std::sync::Arc;

use mcp_core::{ErrorObject, Message, Notification, Outcome, ProgressParams, Request, RequestId, Response, methods};
use serde_json::Value;
use serde_json::value::RawValue;

use tokio::sync::{broadcast, mpsc};

use super::{MAX_ANSWERING, NOTIFICATIONS, Session, lock};
use crate::Error;
use crate::cache::Cache;
use crate::wire::peek::Kind;
use crate::wire::{Inbound, Outbound};

impl Session {
    /// Take one item a wire delivered.
    pub(crate) fn receive(self: &Arc<Self>, item: Inbound) {
        match item {
            Inbound::Result(id, result) => self.answer(&id, Ok(result)),
            Inbound::Message(Message::Response(response)) => self.answer_pending(response),
            Inbound::Message(Message::Notification(notification)) => self.on_notification(notification),
            Inbound::Message(Message::Request(request)) => self.on_request(request),
            Inbound::Failed(id, error) => {
                if let Some(waiter) = lock(&self.pending).remove(&id) {
                    let _ = waiter.send(Err(error));
                }
            }
            Inbound::Oversized(kind, error) => self.oversized(kind, error),
            Inbound::Closed(why) => self.fail_all(&why),
        }
    }

    /// Why the connection ended, once it has.
    pub(crate) fn closed(&self) -> Option<String> {
        lock(&self.closed).clone()
    }

    /// Resolves with why the connection ended, once it has.
    pub(crate) async fn ended(&self) -> String {
        let mut ended = self.ended.subscribe();
        match ended.wait_for(Option::is_some).await {
            Ok(why) => why.clone().unwrap_or_default(),
            Err(_) => "the client was dropped".to_owned(),
        }
    }

    fn fail_all(&self, why: &str) {
        let why = lock(&self.closed).get_or_insert_with(|| why.to_owned()).clone();
        self.ended.send_replace(Some(why.clone()));
        let why = why.as_str();
        for (_, waiter) in lock(&self.pending).drain() {
            let _ = waiter.send(Err(Error::Closed(why.to_owned())));
        }
    }

    /// A message too large to read: the call it answers fails at once
    /// (rather than wait for its timeout). When its id cannot be read
    /// (no `id`, `null`, an id written with escapes, not JSON at all),
    /// every call waiting fails: any of them may be the one it answered,
    /// and a server that sends such a thing is broken. A request of the
    /// server's is refused, so the server does not wait either.
    fn oversized(self: &Arc<Self>, kind: Kind, error: Error) {
        match kind {
            Kind::Answer(id) => self.answer(&id, Err(error)),
            Kind::Request(id) => {
                let refusal = ErrorObject::new(mcp_core::codes::INVALID_REQUEST, error.to_string());
                self.send_response(Response::error(Some(id), refusal));
            }
            Kind::Notification => {}
            Kind::Unknown => {
                for (_, waiter) in lock(&self.pending).drain() {
                    let _ = waiter.send(Err(error.clone()));
                }
            }
        }
    }

    fn answer_pending(&self, response: Response) {
        let Some(id) = response.id else {
            // The server could not read a request: with one waiting, that
            // one is it; with several, none can be told.
            let mut pending = lock(&self.pending);
            if pending.len() == 1
                && let Outcome::Error(error) = response.outcome
                && let Some(id) = pending.keys().next().cloned()
                && let Some(waiter) = pending.remove(&id)
            {
                let _ = waiter.send(Err(Error::Server(error)));
            } else {
                tracing::warn!("the server sent an error without an id while several requests wait; dropped");
            }
            return;
        };
        let answer = match response.outcome {
            Outcome::Result(result) => serde_json::value::to_raw_value(&result)
                .map_err(|e| Error::protocol(format!("the result cannot be kept: {e}"))),
            Outcome::Error(error) => Err(Error::Server(error)),
        };
        self.answer(&id, answer);
    }

    /// Hand request `id`'s answer to its caller.
    fn answer(&self, id: &RequestId, answer: Result<Box<RawValue>, Error>) {
        let Some(waiter) = lock(&self.pending).remove(id) else {
            tracing::debug!(?id, "an answer to no request waiting (cancelled, timed out, or unknown); dropped");
            return;
        };
        let _ = waiter.send(answer);
    }

    fn on_notification(&self, notification: Notification) {
        match notification.method.as_str() {
            methods::PROGRESS => {
                let params = notification.params.map(Value::Object).unwrap_or_default();
                if let Ok(progress) = serde_json::from_value::<ProgressParams>(params) {
                    let token = match &progress.progress_token {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    // Queued here, on the reader, before anything read
                    // after it (the call's answer) is delivered.
                    if let Some(listener) = lock(&self.progress).get(&token) {
                        listener.push(progress);
                    }
                }
            }
            methods::CANCELLED => {
                let id = notification.params.as_ref().and_then(|p| p.get("requestId")).cloned();
                if let Some(id) = id.and_then(|id| serde_json::from_value::<RequestId>(id).ok())
                    && let Some(task) = lock(&self.answering).remove(&id)
                {
                    task.abort();
                }
            }
            _ => match (&self.relay, &self.cache) {
                (Some(relay), Some(cache)) => {
                    if let Err(mpsc::error::TrySendError::Full(notification)) = relay.try_send(notification) {
                        // Listeners that slow miss it (as they would
                        // from the broadcast), but the cache does not.
                        tracing::debug!(method = %notification.method, "notifications queue up; one is dropped");
                        cache.changed_behind(&notification.method);
                    }
                }
                // No listener is not an error: most clients watch nothing.
                _ => drop(self.notifications.send(notification)),
            },
        }
    }

    fn on_request(self: &Arc<Self>, request: Request) {
        let session = Arc::downgrade(self);
        let id = request.id.clone();
        let mut answering = lock(&self.answering);
        // A server that asks faster than the client answers is refused
        // rather than given a task per question without bound.
        if answering.len() >= MAX_ANSWERING {
            drop(answering);
            let busy = mcp_core::ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                "the client is answering too many requests",
            );
            self.send_response(Response::error(Some(request.id), busy));
            return;
        }
        let task = tokio::spawn(async move {
            let Some(handlers) = session.upgrade().map(|s| s.handlers.clone()) else { return };
            let outcome = handlers.answer(&request.method, request.params).await;
            let Some(session) = session.upgrade() else { return };
            lock(&session.answering).remove(&request.id);
            let response = match outcome {
                Ok(result) => Response::result(request.id, result),
                Err(error) => Response::error(Some(request.id), error),
            };
            session.send_response(response);
        });
        answering.insert(id, task.abort_handle());
    }

    /// Send an answer to a request of the server's, in a task of its own.
    fn send_response(self: &Arc<Self>, response: Response) {
        let session = self.clone();
        tokio::spawn(async move {
            match serde_json::to_vec(&response) {
                Ok(bytes) => {
                    if let Err(error) = session.send_within(Outbound { bytes, id: None, headers: Vec::new() }).await {
                        tracing::debug!(%error, "answering the server's request failed");
                    }
                }
                Err(error) => tracing::error!(%error, "an answer to the server could not be serialized"),
            }
        });
    }
}

/// A task telling listeners of notifications in order, each change once
/// the cache's store has moved its generation on, so no client of the
/// store is served a list kept before the change after hearing of it. It
/// ends with the session (which holds the sender).
pub(super) fn relay(cache: Arc<Cache>, listeners: broadcast::Sender<Notification>) -> mpsc::Sender<Notification> {
    let (relay, mut queued) = mpsc::channel::<Notification>(NOTIFICATIONS);
    tokio::spawn(async move {
        while let Some(notification) = queued.recv().await {
            cache.changed(&notification.method).await;
            let _ = listeners.send(notification);
        }
    });
    relay
}
