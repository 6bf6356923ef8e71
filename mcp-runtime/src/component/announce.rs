//! Who is told when a list changes: handshake sessions (on their
//! connection) and 2026-07-28 `subscriptions/listen` streams (tagged with
//! the subscription's id), each for the kinds of list it wants.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::{RequestId, envelope};
use serde::Serialize;
use serde_json::Map;

use crate::catalog::views::Owner;
use crate::dispatch::outgoing::Outgoing;

/// A kind of list that can change at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// `prompts/list`.
    Prompts,
}

impl ListKind {
    /// Every kind, in the order a subscription acknowledges them.
    pub(crate) const ALL: [ListKind; 3] = [ListKind::Tools, ListKind::Resources, ListKind::Prompts];

    /// The notification that says this list changed.
    pub(crate) fn notification(self) -> &'static str {
        match self {
            ListKind::Tools => mcp_core::methods::TOOLS_LIST_CHANGED,
            ListKind::Resources => mcp_core::methods::RESOURCES_LIST_CHANGED,
            ListKind::Prompts => mcp_core::methods::PROMPTS_LIST_CHANGED,
        }
    }

    /// Its key in a `subscriptions/listen` filter.
    pub(crate) fn filter_key(self) -> &'static str {
        match self {
            ListKind::Tools => "toolsListChanged",
            ListKind::Resources => "resourcesListChanged",
            ListKind::Prompts => "promptsListChanged",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of [`ListKind`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Kinds(u8);

impl Kinds {
    pub(crate) fn with(self, kind: ListKind) -> Kinds {
        Kinds(self.0 | kind.bit())
    }

    pub(crate) fn union(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    pub(crate) fn contains(self, kind: ListKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// As a subscription acknowledges it: `{"toolsListChanged": true, …}`.
    pub(crate) fn to_filter(self) -> Map<String, serde_json::Value> {
        ListKind::ALL.iter().filter(|k| self.contains(**k)).map(|k| (k.filter_key().to_owned(), true.into())).collect()
    }
}

struct Listener {
    outgoing: Outgoing,
    /// The `subscriptions/listen` request it belongs to, if any.
    subscription: Option<RequestId>,
    kinds: Kinds,
    /// The resource URIs whose updates it wants.
    uris: Uris,
    /// Whose it is (a session, a user), for changes to one caller's view.
    owners: Vec<Owner>,
}

/// Resource URIs a listener is subscribed to: a session's set changes
/// with `resources/subscribe`, a subscription's is fixed when it opens.
pub(crate) type Uris = Arc<Mutex<HashSet<String>>>;

/// The listeners of one server.
#[derive(Default)]
pub(crate) struct Announcer {
    /// In the order they came, so notifications go out in that order.
    listeners: Mutex<BTreeMap<u64, Listener>>,
    next: AtomicU64,
    /// Where this server's own announcements go on to other replicas.
    relay: OnceLock<Relay>,
    /// How many changes were announced (here or on another replica): what
    /// was read before a change may be stale since.
    changes: AtomicU64,
}

/// Passes announcements on to other replicas.
pub(crate) type Relay = Box<dyn Fn(Announcement) + Send + Sync>;

/// A change to tell listeners of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Announcement {
    /// A list changed.
    List(ListKind),
    /// The resource at this URI changed.
    Updated(String),
}

#[derive(Serialize)]
struct Tagged<'a> {
    #[serde(rename = "_meta")]
    meta: SubscriptionTag<'a>,
}

/// `{"io.modelcontextprotocol/subscriptionId": id}`.
pub(crate) struct SubscriptionTag<'a> {
    pub(crate) id: &'a RequestId,
}

impl Serialize for SubscriptionTag<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(envelope::SUBSCRIPTION_ID, self.id)?;
        map.end()
    }
}

#[derive(Serialize)]
struct NoParams {}

#[derive(Serialize)]
struct Updated<'a> {
    uri: &'a str,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<SubscriptionTag<'a>>,
}

impl Announcer {
    /// Tell `outgoing` when a list of `kinds` changes, until
    /// [`unlisten`](Self::unlisten); notifications for a `subscription`
    /// carry its id. Changes to the view of one of `owners` reach it too.
    pub(crate) fn listen(
        &self,
        outgoing: Outgoing,
        subscription: Option<RequestId>,
        kinds: Kinds,
        uris: Uris,
        owners: Vec<Owner>,
    ) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let listener = Listener { outgoing, subscription, kinds, uris, owners };
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).insert(id, listener);
        id
    }

    pub(crate) fn unlisten(&self, id: u64) {
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }

    /// Send this server's announcements on to `relay` too (other
    /// replicas); `false` if they already go somewhere.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn relay_to(&self, relay: Relay) -> bool {
        self.relay.set(relay).is_ok()
    }

    /// Tell this server's listeners and the other replicas' of a change.
    fn publish(&self, announcement: Announcement) {
        self.deliver(&announcement);
        if let Some(relay) = self.relay.get() {
            relay(announcement);
        }
    }

    /// Tell this server's listeners of a change (made here, or on another
    /// replica).
    pub(crate) fn deliver(&self, announcement: &Announcement) {
        self.changes.fetch_add(1, Ordering::Release);
        match announcement {
            Announcement::List(kind) => self.tell_list(*kind),
            Announcement::Updated(uri) => self.tell_updated(uri),
        }
    }

    /// How many changes have been announced so far.
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// Tell every listener subscribed to the resource at `uri` that it
    /// changed.
    pub(crate) fn updated(&self, uri: &str) {
        self.publish(Announcement::Updated(uri.to_owned()));
    }

    /// Tell every listener of `kind` that its list changed.
    pub(crate) fn announce(&self, kind: ListKind) {
        self.publish(Announcement::List(kind));
    }

    fn tell_updated(&self, uri: &str) {
        let listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        for listener in listeners.values() {
            if !listener.uris.lock().unwrap_or_else(|e| e.into_inner()).contains(uri) {
                continue;
            }
            let meta = listener.subscription.as_ref().map(|id| SubscriptionTag { id });
            listener.outgoing.notify(mcp_core::methods::RESOURCES_UPDATED, &Updated { uri, meta });
        }
    }

    fn tell_list(&self, kind: ListKind) {
        self.tell_listeners(kind, |_| true);
    }

    /// Tell the listeners of `owner` (its sessions and streams, on this
    /// replica: views are kept where they are used) that the lists of
    /// `kinds` changed for it.
    pub(crate) fn announce_to(&self, kinds: Kinds, owner: &Owner) {
        for kind in ListKind::ALL.into_iter().filter(|k| kinds.contains(*k)) {
            self.tell_listeners(kind, |l| l.owners.contains(owner));
        }
    }

    fn tell_listeners(&self, kind: ListKind, whose: impl Fn(&Listener) -> bool) {
        let listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        for listener in listeners.values().filter(|l| l.kinds.contains(kind) && whose(l)) {
            match &listener.subscription {
                None => listener.outgoing.notify(kind.notification(), &NoParams {}),
                Some(id) => listener.outgoing.notify(kind.notification(), &Tagged { meta: SubscriptionTag { id } }),
            }
        }
    }
}
