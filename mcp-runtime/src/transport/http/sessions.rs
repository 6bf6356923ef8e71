//! The open HTTP sessions: each one's protocol state, running calls and
//! server-to-client stream, and the sweep that ends idle ones.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::resume::Hub;
use super::store::EventStore;
use crate::dispatch::Session;
use crate::dispatch::calls::{Calls, Ids};
use crate::dispatch::frame::Frame;
use crate::dispatch::outgoing::{Drain, Outgoing};
use crate::request::claims::Claims;
use crate::server::Shared;

/// The most resumable call streams a session keeps track of; past that the
/// oldest finished ones are forgotten (their events may still be in the
/// store until it evicts them, but no reconnect finds them).
const MAX_STREAMS: usize = 256;

/// One HTTP session.
pub(crate) struct HttpSession {
    /// Its `Mcp-Session-Id`.
    pub(crate) id: String,
    /// Whose it is: the token subject that opened it (`None` without
    /// OAuth).
    pub(crate) owner: Option<String>,
    pub(crate) session: Session,
    /// Where its call streams' events are kept.
    store: Arc<dyn EventStore>,
    /// Its resumable call streams, by number.
    streams: Mutex<(u64, HashMap<u64, Arc<Hub>>)>,
    /// Its running calls, as a connection's: their ids, their limit, and
    /// how `notifications/cancelled`, a hang-up and DELETE reach them.
    pub(crate) calls: Arc<Calls>,
    /// The open GET stream: where messages that belong to no request go.
    standalone: Arc<Mutex<Option<Outgoing>>>,
    last_active: Mutex<Instant>,
    /// When the session store last heard it is in use.
    refreshed: Mutex<Instant>,
    /// The most bytes of notifications a stream may leave unread.
    max_queued: usize,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl HttpSession {
    /// A new session, under `id` if it is one another replica started.
    fn new(shared: Arc<Shared>, store: Arc<dyn EventStore>, limits: SessionLimits, id: Option<String>) -> HttpSession {
        let SessionLimits { max_queued, max_running } = limits;
        // Messages that belong to no request are relayed to the GET stream
        // open at the time, or dropped when none is (the spec leaves them
        // to the server; queueing them would grow without bound).
        let (out, mut queue) = mpsc::unbounded_channel::<Frame>();
        let standalone: Arc<Mutex<Option<Outgoing>>> = Arc::default();
        let relay = standalone.clone();
        tokio::spawn(async move {
            while let Some(frame) = queue.recv().await {
                let mut stream = lock(&relay);
                if stream.as_ref().is_some_and(|s| !s.relay(frame)) {
                    *stream = None;
                }
            }
        });
        // Stream numbers start anywhere, so a session that moves between
        // replicas does not number a stream the way it numbered one before
        // (their events share the store).
        let first_stream = u64::from(uuid::Uuid::new_v4().as_u64_pair().0 as u32) << 16;
        // Unguessable: it is all a client shows to be in the session.
        let id = id.unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
        HttpSession {
            owner: None,
            session: Session::new(shared, Outgoing::new(out)).over_http(Some(&id)),
            id,
            store,
            streams: Mutex::new((first_stream, HashMap::new())),
            calls: Calls::new(max_running, Ids::Shared),
            standalone,
            last_active: Mutex::new(Instant::now()),
            refreshed: Mutex::new(Instant::now()),
            max_queued,
        }
    }

    /// Whether a request with these claims may use the session: the
    /// spec's advice to bind sessions to the user, so that a session id
    /// alone (guessed, logged, leaked) lets no one else in.
    pub(crate) fn owned_by(&self, claims: Option<&Claims>) -> bool {
        self.owner == owner_of(claims)
    }

    pub(crate) fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    /// Whether the session store should hear the session is in use: at
    /// most once every `every`, which keeps a busy session from costing a
    /// store write per request.
    pub(crate) fn due_for_refresh(&self, every: Duration) -> bool {
        let mut refreshed = lock(&self.refreshed);
        let now = Instant::now();
        let due = now.duration_since(*refreshed) >= every;
        if due {
            *refreshed = now;
        }
        due
    }

    /// Open the server-to-client stream; `None` if one is already open
    /// (every message goes to exactly one stream, so a second would only
    /// take messages from the first).
    pub(crate) fn open_stream(&self) -> Option<Drain<Frame>> {
        let mut standalone = lock(&self.standalone);
        if standalone.as_ref().is_some_and(|s| !s.is_closed()) {
            return None;
        }
        let (stream, drain) = Outgoing::bounded(self.max_queued);
        *standalone = Some(stream);
        Some(drain)
    }

    /// A new queue for one call's messages: bounded like every stream if
    /// the client reads it directly; a resumable stream's queue is only a
    /// hop into its [`Hub`], which keeps the events in the store and bounds
    /// its reader.
    pub(crate) fn call_queue(&self, resumable: bool) -> (Outgoing, Drain<Frame>) {
        if resumable {
            let (queue, drain) = Outgoing::bounded(usize::MAX);
            (queue.resumable(), drain)
        } else {
            let (queue, drain) = Outgoing::bounded(self.max_queued);
            (queue.answer_only(), drain)
        }
    }

    /// A new resumable call stream, not yet tracked ([`track`](Self::track)
    /// it once it carries a call).
    pub(crate) fn new_stream(&self) -> (u64, Arc<Hub>) {
        let mut streams = lock(&self.streams);
        streams.0 += 1;
        let number = streams.0;
        (number, Hub::new(self.stream_key(number), self.store.clone(), self.max_queued))
    }

    /// Track a call stream, so a client can reconnect to it.
    pub(crate) fn track(&self, number: u64, hub: Arc<Hub>) {
        let mut streams = lock(&self.streams);
        streams.1.insert(number, hub);
        if streams.1.len() > MAX_STREAMS {
            let mut finished: Vec<u64> = streams.1.iter().filter(|(_, h)| h.finished()).map(|(n, _)| *n).collect();
            finished.sort_unstable();
            for number in finished.into_iter().take(streams.1.len() - MAX_STREAMS) {
                streams.1.remove(&number);
            }
        }
    }

    /// Stop tracking the call stream `number` (no client can resume it).
    pub(crate) fn forget_stream(&self, number: u64) {
        lock(&self.streams).1.remove(&number);
    }

    /// The call stream `number`, to read it again.
    pub(crate) fn stream(&self, number: u64) -> Option<Arc<Hub>> {
        lock(&self.streams).1.get(&number).cloned()
    }

    /// Where its stream `number`'s events are kept.
    pub(crate) fn stream_key(&self, number: u64) -> String {
        format!("{}/{number}", self.id)
    }

    /// The event store of its streams.
    pub(crate) fn events(&self) -> &Arc<dyn EventStore> {
        &self.store
    }

    /// Stop every call and close the stream.
    fn end(&self) {
        lock(&self.streams).1.clear();
        let (store, prefix) = (self.store.clone(), format!("{}/", self.id));
        tokio::spawn(async move {
            if let Err(error) = store.forget(&prefix).await {
                tracing::debug!(%error, "the event store did not forget an ended session's streams");
            }
        });
        self.calls.cancel_all();
        lock(&self.standalone).take();
    }

    fn is_idle(&self, now: Instant, limit: Duration) -> bool {
        self.idle_since().is_some_and(|since| now.duration_since(since) >= limit)
    }

    /// When it was last active, if nothing runs in it now (no call, no
    /// open GET stream).
    fn idle_since(&self) -> Option<Instant> {
        let busy = self.calls.busy() || lock(&self.standalone).as_ref().is_some_and(|s| !s.is_closed());
        let active = *lock(&self.last_active);
        // A call that ended is activity too.
        (!busy).then(|| self.calls.last_end().map_or(active, |ended| ended.max(active)))
    }
}

/// Who a session opened with these claims belongs to: the issuer and the
/// subject (or, for a token without one, its client).
pub(crate) fn owner_of(claims: Option<&Claims>) -> Option<String> {
    claims.map(Claims::principal)
}

/// The id of the idle session that was active longest ago, if any is idle.
fn least_recently_used_idle(map: &HashMap<String, Arc<HttpSession>>) -> Option<String> {
    map.iter().filter_map(|(id, session)| Some((session.idle_since()?, id))).min().map(|(_, id)| id.clone())
}

/// What each session may hold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SessionLimits {
    /// The most bytes of notifications a stream may leave unread.
    pub(crate) max_queued: usize,
    /// The most calls running at once (`Server::max_running_calls`).
    pub(crate) max_running: usize,
}

/// Why a session could not be opened.
pub(crate) struct Full;

/// Every open session of one endpoint.
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<HttpSession>>>,
    max: usize,
    idle: Duration,
    limits: SessionLimits,
    sweeping: std::sync::Once,
    /// Whether a full table was reported: once at info, as start-up
    /// news; each session ended to make room after it is a debug line
    /// (a client opening a session per call makes one per call).
    full_reported: std::sync::Once,
    /// The server's tasks, when they are bound to sessions (no OAuth):
    /// a session that ends for good takes its running tasks with it.
    tasks: Option<Arc<crate::tasks::Tasks>>,
    /// Whether a session store keeps sessions for other replicas: one
    /// ended here as idle or to make room may then go on elsewhere.
    kept_elsewhere: bool,
}

impl Sessions {
    /// At most `max` sessions, ended after `idle`, each within `limits`.
    pub(crate) fn new(max: usize, idle: Duration, limits: SessionLimits) -> Self {
        Sessions {
            map: Mutex::default(),
            max,
            idle,
            limits,
            sweeping: std::sync::Once::new(),
            full_reported: std::sync::Once::new(),
            tasks: None,
            kept_elsewhere: false,
        }
    }

    /// Cancel the running tasks of each session that ends for good (they
    /// are bound to it: no one else can reach them); a session `kept
    /// elsewhere` ends for good only when deleted.
    pub(crate) fn ending_tasks(mut self, tasks: Arc<crate::tasks::Tasks>, kept_elsewhere: bool) -> Self {
        self.tasks = Some(tasks);
        self.kept_elsewhere = kept_elsewhere;
        self
    }

    /// The session `id` ended for good: its tasks go with it.
    fn ended(&self, id: &str) {
        if let Some(tasks) = &self.tasks {
            tasks.end_requestor(&crate::tasks::Binding::Session(Arc::from(id)).key());
        }
    }

    /// A session not yet listed: it is listed by [`insert`](Self::insert)
    /// once its `initialize` succeeded. `Full` only if the table is full
    /// of busy sessions (an idle one would make room).
    pub(crate) fn create(
        self: &Arc<Self>,
        shared: Arc<Shared>,
        store: Arc<dyn EventStore>,
        id: Option<String>,
    ) -> Result<HttpSession, Full> {
        self.start_sweeping();
        let map = lock(&self.map);
        if map.len() >= self.max && least_recently_used_idle(&map).is_none() {
            return Err(Full);
        }
        drop(map);
        Ok(HttpSession::new(shared, store, self.limits, id))
    }

    /// List a session under its id. A full table makes room by ending its
    /// least recently used idle session: ending sessions only when they
    /// time out would let one client that opens `max` sessions lock every
    /// other client out for the idle timeout.
    pub(crate) fn insert(&self, session: HttpSession) -> Result<Arc<HttpSession>, Full> {
        let mut map = lock(&self.map);
        while map.len() >= self.max {
            let Some(oldest) = least_recently_used_idle(&map) else { return Err(Full) };
            if let Some(evicted) = map.remove(&oldest) {
                self.full_reported.call_once(|| {
                    tracing::info!(
                        max = self.max,
                        "the HTTP session table is full: from now on a new session ends the least recently used \
                         idle one (HttpOptions::max_sessions; each is a debug line)"
                    );
                });
                tracing::debug!(session = %oldest, "ending the least recently used idle HTTP session to make room");
                evicted.end();
                if !self.kept_elsewhere {
                    self.ended(&oldest);
                }
            }
        }
        // Two requests restoring one session at once: the first one listed
        // is the one both use.
        let session = Arc::new(session);
        Ok(map.entry(session.id.clone()).or_insert(session).clone())
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.map).get(id).cloned()
    }

    /// End a session for good (it was deleted, here or on another
    /// replica); `false` if none with this id was open here. Its tasks
    /// running here are cancelled either way.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.map).remove(id);
        self.ended(id);
        removed.inspect(|session| session.end()).is_some()
    }

    /// End idle sessions in the background, as long as the endpoint lives.
    fn start_sweeping(self: &Arc<Self>) {
        self.sweeping.call_once(|| {
            let sessions: Weak<Sessions> = Arc::downgrade(self);
            let every = (self.idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60));
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                loop {
                    tick.tick().await;
                    let Some(sessions) = sessions.upgrade() else { return };
                    sessions.sweep();
                }
            });
        });
    }

    fn sweep(&self) {
        let now = Instant::now();
        let mut map = lock(&self.map);
        map.retain(|id, session| {
            let idle = session.is_idle(now, self.idle);
            if idle {
                tracing::debug!(session = %id, "ending an idle HTTP session");
                session.end();
                if !self.kept_elsewhere {
                    self.ended(id);
                }
            }
            !idle
        });
    }
}
