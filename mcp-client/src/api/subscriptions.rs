//! Resource subscriptions and change notifications: `resources/subscribe`
//! in the handshake era, one `subscriptions/listen` request held open
//! while the stream lives in 2026-07-28.

use std::time::Duration;

use futures_util::Stream;
use mcp_core::{Notification, envelope, methods};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::session::RequestOptions;
use crate::{Client, Era, Error};

/// How many URIs a handshake session stays subscribed to, to subscribe
/// again in a session opened again (our server allows as many).
const MAX_SUBSCRIBED: usize = 1_024;

impl Client {
    /// Subscribe to a resource: the stream yields the URI each time the
    /// server says it changed. Handshake era: `resources/subscribe` (ended
    /// by [`unsubscribe`](Self::unsubscribe)); 2026-07-28: a
    /// `subscriptions/listen` request the server has acknowledged, open
    /// while the stream lives.
    pub async fn subscribe(&self, uri: &str) -> Result<impl Stream<Item = String> + use<>, Error> {
        let mut updates = Box::pin(self.notifications());
        let listening = match self.era() {
            Era::Handshake => {
                self.subscribe_uri(uri).await?;
                None
            }
            Era::Stateless => {
                let filter = json!({ "resourceSubscriptions": [uri] });
                Some(self.listen(filter, &mut updates).await?)
            }
        };
        let wanted = uri.to_owned();
        Ok(futures_util::StreamExt::filter_map(updates, move |n| {
            let params = n.params.as_ref();
            // 2026-07-28 tags each update with its subscription.
            let tag = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(envelope::SUBSCRIPTION_ID));
            let ours = match (&listening, tag) {
                (Some(listening), Some(tag)) => *tag == listening.id,
                _ => true,
            };
            let uri = (n.method == methods::RESOURCES_UPDATED && ours)
                .then(|| params.and_then(|p| p.get("uri")).and_then(Value::as_str).map(str::to_owned))
                .flatten()
                .filter(|uri| *uri == wanted);
            std::future::ready(uri)
        }))
    }

    /// Every change the server announces (its lists of tools, resources
    /// and prompts) and the updates of `uris`, as notifications, while the
    /// stream lives: for a client that mirrors the server (a proxy).
    /// Handshake era: each URI is subscribed with `resources/subscribe`
    /// (left subscribed); 2026-07-28: one `subscriptions/listen` for all
    /// of it, open while the stream lives.
    pub async fn watch(&self, uris: &[String]) -> Result<impl Stream<Item = Notification> + use<>, Error> {
        let mut updates = Box::pin(self.notifications());
        let listening = match self.era() {
            Era::Handshake => {
                for uri in uris {
                    self.subscribe_uri(uri).await?;
                }
                None
            }
            Era::Stateless => {
                let filter = json!({
                    "toolsListChanged": true,
                    "resourcesListChanged": true,
                    "promptsListChanged": true,
                    "resourceSubscriptions": uris,
                });
                Some(self.listen(filter, &mut updates).await?)
            }
        };
        Ok(futures_util::StreamExt::filter(updates, move |n| {
            let tag = n.params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(envelope::SUBSCRIPTION_ID));
            let ours = match (&listening, tag) {
                (Some(listening), Some(tag)) => *tag == listening.id,
                _ => true,
            };
            std::future::ready(ours && n.method != methods::SUBSCRIPTIONS_ACKNOWLEDGED)
        }))
    }

    /// Open `subscriptions/listen` for what `filter` names and wait for
    /// the server's acknowledgement (its first message, tagged with the
    /// request's id), or the request's end if it ends first (a server
    /// without it).
    async fn listen(
        &self,
        filter: Value,
        updates: &mut (impl Stream<Item = Notification> + Unpin),
    ) -> Result<Listening, Error> {
        let (ids, mut sent) = mpsc::unbounded_channel();
        let session = self.session.clone();
        let params = json!({ "notifications": filter });
        let params = params.as_object().cloned().unwrap_or_default();
        // It lasts until the stream is dropped: no timeout.
        let options = RequestOptions { timeout: Some(Duration::MAX), ids: Some(ids), ..RequestOptions::default() };
        let mut task =
            tokio::spawn(
                async move { session.request(methods::SUBSCRIPTIONS_LISTEN.into(), params.into(), options).await },
            );
        let task_handle = task.abort_handle();
        let acknowledged = async {
            let id = sent.recv().await.map(|id| json!(id));
            while let Some(id) = &id {
                let notification = futures_util::StreamExt::next(updates).await?;
                let params = notification.params.as_ref();
                let tag = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(envelope::SUBSCRIPTION_ID));
                if notification.method == methods::SUBSCRIPTIONS_ACKNOWLEDGED && tag == Some(id) {
                    return Some(id.clone());
                }
            }
            None
        };
        let timeout = self.session.limits.timeout;
        let outcome = tokio::select! {
            acknowledged = tokio::time::timeout(timeout, acknowledged) => match acknowledged {
                Ok(Some(id)) => Ok(Listening { id, _task: AbortOnDrop(task_handle) }),
                Ok(None) => Err(Error::Closed("the connection ended before the subscription was acknowledged".into())),
                Err(_) => Err(Error::Timeout(timeout)),
            },
            ended = &mut task => Err(match ended {
                Ok(Err(error)) => error,
                Ok(Ok(_)) => Error::protocol("the server ended the subscription before acknowledging it"),
                Err(_) => Error::Closed("the subscription's task ended".into()),
            }),
        };
        if outcome.is_err() {
            task.abort();
        }
        outcome
    }

    /// `resources/subscribe`, remembered: a session opened again after
    /// the server forgot this one subscribes again. Remembered before it
    /// is sent, so that a session opened again meanwhile subscribes too;
    /// forgotten if it was refused.
    async fn subscribe_uri(&self, uri: &str) -> Result<(), Error> {
        let added = {
            let mut subscribed = self.session.subscribed.lock().unwrap_or_else(|e| e.into_inner());
            if subscribed.len() >= MAX_SUBSCRIBED && !subscribed.contains(uri) {
                return Err(Error::Limit(format!(
                    "the client keeps at most {MAX_SUBSCRIBED} resource subscriptions; unsubscribe from one first"
                )));
            }
            subscribed.insert(uri.to_owned())
        };
        let subscribed = self.request(methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri })).await;
        if subscribed.is_err() && added {
            self.session.subscribed.lock().unwrap_or_else(|e| e.into_inner()).remove(uri);
        }
        subscribed.map(drop)
    }

    /// Stop a subscription (handshake era; in 2026-07-28 drop its stream).
    /// A session opened again after this does not subscribe to it again,
    /// even if the server refused to stop it.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        self.session.subscribed.lock().unwrap_or_else(|e| e.into_inner()).remove(uri);
        self.request(methods::RESOURCES_UNSUBSCRIBE, json!({ "uri": uri })).await.map(drop)
    }
}

/// An open `subscriptions/listen`: its id, and its request, cancelled when
/// this is dropped.
struct Listening {
    id: Value,
    _task: AbortOnDrop,
}

struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
