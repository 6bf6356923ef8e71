//! A session: one client's protocol state (a stdio or in-memory
//! connection, or an HTTP session), how it is made for each transport,
//! whom it listens as, and what ends with it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::{ClientCapabilities, RequestId};

use super::Negotiated;
use super::outgoing::Outgoing;
use crate::catalog::views::Owner;
use crate::client::{Peer, PendingRequests};
use crate::component::announce::Uris;
use crate::request::context::{DEFAULT_LOG_LEVEL, level_index};
use crate::server::Shared;

/// One session's protocol state: a stdio or in-memory connection, or an
/// HTTP session.
pub(crate) struct Session {
    pub(crate) shared: Arc<Shared>,
    /// Tells this session's allowances apart in the rate limiters.
    pub(crate) key: u64,
    /// Whether `key` is this session's alone, so its allowances can be
    /// forgotten when it ends (not when it shares them with others).
    pub(super) owns_key: bool,
    /// Messages that belong to no request (`list_changed`).
    pub(crate) outgoing: Outgoing,
    /// The least severe log level the client wants (`logging/setLevel`).
    pub(crate) log_level: Arc<AtomicU8>,
    pub(crate) negotiated: OnceLock<Negotiated>,
    /// The client before `initialize` says who it is.
    pub(super) anonymous: Arc<Peer>,
    /// Requests this session sent its client, awaiting answers.
    pub(crate) requests: Arc<PendingRequests>,
    /// Its `list_changed` listener, once initialized.
    pub(crate) listener: OnceLock<u64>,
    /// Open `subscriptions/listen` streams: their listeners.
    pub(crate) subscriptions: Mutex<HashMap<RequestId, u64>>,
    /// The resource URIs this session subscribed to (`resources/subscribe`).
    pub(crate) resource_subscriptions: Uris,
    /// How the client reaches it, as OpenTelemetry's `network.transport`
    /// says: `pipe` (stdio), `tcp` (HTTP), or unknown (a stream of the
    /// program's own, or memory).
    pub(super) transport: Option<&'static str>,
    /// The HTTP session's `Mcp-Session-Id`, for its requests' spans.
    pub(super) id: Option<Arc<str>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        let announcer = &self.shared.announcer;
        if let Some(id) = self.listener.get() {
            announcer.unlisten(*id);
        }
        for (_, listener) in self.subscriptions.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
            announcer.unlisten(listener);
        }
        self.requests.abandon_all();
        if let Some(key) = self.lasting_key() {
            self.shared.views.forget(&Owner::Session(key));
        }
        if self.owns_key {
            // Its tasks stay in the store for their TTL; only its list of
            // them, which no later session can ask for, goes.
            self.shared.tasks.forget_session(&self.owner());
            self.shared.tools.current().forget_idle_allowances();
            if let Some(limiter) = &self.shared.limiter {
                limiter.forget_idle();
            }
        }
    }
}

/// Distinct keys for sessions, process-wide.
static NEXT_SESSION_KEY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Session {
    pub(crate) fn new(shared: Arc<Shared>, outgoing: Outgoing) -> Self {
        let log_level = Arc::new(AtomicU8::new(level_index(DEFAULT_LOG_LEVEL)));
        let key = NEXT_SESSION_KEY.fetch_add(1, Ordering::Relaxed);
        let requests = Arc::new(PendingRequests::new(shared.client_request_timeout));
        let anonymous = Arc::new(Peer::new(log_level.clone(), None, ClientCapabilities::default(), None));
        Session {
            shared,
            key,
            owns_key: true,
            outgoing,
            log_level,
            negotiated: OnceLock::new(),
            anonymous,
            requests,
            listener: OnceLock::new(),
            subscriptions: Mutex::default(),
            resource_subscriptions: Uris::default(),
            transport: None,
            id: None,
        }
    }

    /// Have this session told of list and resource changes, as far as the
    /// server's lists change, and of changes to its own view or its user's
    /// (`subject`, the principal of its token).
    pub(crate) fn listen_for_changes(&self, subject: Option<String>) {
        let shared = &self.shared;
        let kinds = shared.changing_lists();
        if kinds != crate::component::announce::Kinds::default() {
            let uris = self.resource_subscriptions.clone();
            let owners = self.lasting_key().map(Owner::Session).into_iter().chain(subject.map(Owner::Subject));
            let listener = shared.announcer.listen(self.outgoing.clone(), None, kinds, uris, owners.collect());
            let _ = self.listener.set(listener);
        }
    }

    /// The session's key, if it is its own and the session outlasts its
    /// requests (not a stateless HTTP request's): what owns its view.
    pub(crate) fn lasting_key(&self) -> Option<u64> {
        (self.owns_key && !self.request_scoped()).then_some(self.key)
    }

    /// Whether the session lives only as long as the requests it answers:
    /// an HTTP request's outside any session (2026-07-28, or an endpoint
    /// that issues no session ids), which nothing can reach afterwards.
    pub(crate) fn request_scoped(&self) -> bool {
        self.id.is_none() && self.transport == Some("tcp")
    }

    /// Who owns the tasks this session's client asks for (2025-11-25):
    /// its `Mcp-Session-Id` over HTTP, which every replica knows it by;
    /// else its key, with this process's own prefix, since a task store
    /// may be shared with other processes whose keys count from 0 too.
    pub(crate) fn owner(&self) -> Arc<str> {
        static PROCESS: OnceLock<String> = OnceLock::new();
        match &self.id {
            Some(id) => id.clone(),
            None => {
                let process = PROCESS.get_or_init(crate::random::hex_id::<8>);
                Arc::from(format!("{process}:{}", self.key))
            }
        }
    }

    /// The HTTP session's `Mcp-Session-Id`; `None` for stdio, memory and
    /// stateless HTTP requests.
    pub(crate) fn http_id(&self) -> Option<&Arc<str>> {
        self.id.as_ref()
    }

    /// The session of a client on the other end of `transport`.
    pub(crate) fn over(mut self, transport: &'static str) -> Self {
        self.transport = Some(transport);
        self
    }

    /// An HTTP session: the one with the `Mcp-Session-Id` `id`, or none for
    /// a stateless request's.
    #[cfg(feature = "http")]
    pub(crate) fn over_http(mut self, id: Option<&str>) -> Self {
        self.id = id.map(Arc::from);
        self.over("tcp")
    }

    /// Count this session's calls against the allowance `key` shares with
    /// others (stateless HTTP requests, which nothing tells apart).
    #[cfg(feature = "http")]
    pub(crate) fn sharing_allowances(mut self, key: u64) -> Self {
        self.key = key;
        self.owns_key = false;
        self
    }
}
