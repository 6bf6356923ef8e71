//! `subscriptions/listen` (2026-07-28): a client-opened stream of the
//! list changes it asked for, each tagged with the subscription's id.

use std::collections::{HashMap, HashSet};

use mcp_core::{ErrorObject, JsonObject, RequestId, envelope, methods};
use serde::Serialize;
use serde_json::Value;

use super::reply::ResultBody;
use super::{Action, Incoming, parse};
use crate::component::announce::{Announcer, Kinds, ListKind, SubscriptionTag};
use crate::request::context::Cancellation;

/// `subscriptions/listen` params: which notifications the stream carries.
#[derive(serde::Deserialize)]
struct ListenParams {
    /// `{"toolsListChanged": true, "resourceSubscriptions": [uri, …], …}`;
    /// unknown keys are not honoured.
    notifications: HashMap<String, Value>,
}

/// The filter key of resource URIs to follow.
const RESOURCE_SUBSCRIPTIONS: &str = "resourceSubscriptions";

/// The acknowledgement, the stream's first message.
#[derive(Serialize)]
struct Acknowledged<'a> {
    #[serde(rename = "_meta")]
    meta: SubscriptionTag<'a>,
    notifications: serde_json::Map<String, Value>,
}

/// The stream's answer when the server closes it: just its tag.
#[derive(Serialize)]
struct Closed {
    #[serde(skip)]
    id: Option<RequestId>,
}

impl ResultBody for Closed {
    fn take_meta(&mut self) -> Option<JsonObject> {
        let id = self.id.take()?;
        Some(JsonObject::from_iter([(envelope::SUBSCRIPTION_ID.to_owned(), serde_json::json!(id))]))
    }
}

/// A listener, removed when its subscription ends.
struct Listener(std::sync::Arc<Announcer>, u64);

impl Drop for Listener {
    fn drop(&mut self) {
        self.0.unlisten(self.1);
    }
}

/// Open a subscription: acknowledge what it will carry (what was asked
/// and this server's lists can do), then send those changes on the
/// request's stream until the client cancels it (no answer) or the
/// connection ends (answered, the graceful close).
pub(crate) fn listen(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let ListenParams { notifications } = parse(params)?;
    let shared = request.shared();
    let offered = shared.changing_lists();
    let honoured = ListKind::ALL
        .into_iter()
        .filter(|kind| offered.contains(*kind) && notifications.get(kind.filter_key()) == Some(&Value::Bool(true)))
        .fold(Kinds::default(), Kinds::with);
    // Resources this server has; a URI it cannot read is not followed, nor
    // one past the first `MAX_SUBSCRIPTIONS` (the acknowledgement says
    // which are).
    let uris: HashSet<String> = match notifications.get(RESOURCE_SUBSCRIPTIONS) {
        Some(Value::Array(uris)) if offered.contains(ListKind::Resources) => uris
            .iter()
            .filter_map(Value::as_str)
            .filter(|uri| crate::resources::methods::readable(request, uri))
            .take(crate::resources::methods::MAX_SUBSCRIPTIONS)
            .map(str::to_owned)
            .collect(),
        _ => HashSet::new(),
    };
    let id = request.id.clone();
    let mut filter = honoured.to_filter();
    if notifications.contains_key(RESOURCE_SUBSCRIPTIONS) {
        let mut sorted: Vec<&String> = uris.iter().collect();
        sorted.sort();
        filter.insert(RESOURCE_SUBSCRIPTIONS.to_owned(), serde_json::json!(sorted));
    }
    let ack = Acknowledged { meta: SubscriptionTag { id: &id }, notifications: filter };
    request.stream.notify(methods::SUBSCRIPTIONS_ACKNOWLEDGED, &ack);
    let listener = (honoured != Kinds::default() || !uris.is_empty()).then(|| {
        let announcer = shared.announcer.clone();
        let uris = std::sync::Arc::new(std::sync::Mutex::new(uris));
        let owners = request.view_owner().into_iter().collect();
        let listener = announcer.listen(request.stream.clone(), Some(id.clone()), honoured, uris, owners);
        request.session.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), listener);
        Listener(announcer, listener)
    });
    let cancellation = Cancellation::default();
    let ended = cancellation.clone();
    let projection = request.projection.clone();
    let future = async move {
        ended.cancelled().await;
        drop(listener);
        projection.answer(id.clone(), Closed { id: Some(id) })
    };
    Ok(Action::Listen(request.id.clone(), Box::pin(future), cancellation))
}
