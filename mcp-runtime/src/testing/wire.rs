//! The connection under a [`TestClient`](super::TestClient): the runtime's
//! in-memory transport on the server's side, the client crate's message
//! channels on the client's, and on the server's writer what a test needs
//! besides the client: each notification kept, in order, for the test to
//! take (progress, log messages, list changes); answers to the raw
//! client's own requests handed to it; and, once the test closes the
//! connection, everything the server still says kept for it.

use std::collections::{HashSet, VecDeque};
use std::io;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::Error;
use crate::server::Server;
use crate::transport::memory::{ChannelReader, IN_FLIGHT, InMemoryClient};
use crate::transport::{Transport, WriteMessages};

/// How many notifications wait for the test to take them; past it the
/// oldest are dropped (with a warning), so a test that never looks does
/// not hold a server's every log line.
const KEPT: usize = 65_536;

/// The raw client numbers its requests from here: the client crate's
/// session numbers its own from 1, and both share the connection.
const RAW_IDS: i64 = 1 << 40;

/// What the server's writer keeps for the test.
#[derive(Default)]
pub(super) struct Tap(Mutex<Kept>);

#[derive(Default)]
struct Kept {
    notifications: VecDeque<Value>,
    /// The ids (as JSON text) of the raw client's requests not yet
    /// answered.
    raw: HashSet<String>,
    /// The test closed the connection: everything is kept from now on.
    closing: bool,
}

/// Where one message of the server's goes.
enum Route {
    Session,
    Raw,
    Kept,
}

impl Tap {
    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The notifications that came since the last take, oldest first.
    pub(super) fn take(&self) -> Vec<Value> {
        self.kept().notifications.drain(..).collect()
    }

    /// From now on every message is kept, not passed on.
    pub(super) fn close(&self) {
        self.kept().closing = true;
    }

    /// The raw client sent `line`: if it is a request, its answer is the
    /// raw client's.
    fn sent(&self, line: &str) {
        let Ok(Value::Object(message)) = serde_json::from_str::<Value>(line) else { return };
        if let (Some(id), true) = (message.get("id"), message.contains_key("method")) {
            self.kept().raw.insert(id.to_string());
        }
    }

    fn route(&self, message: &[u8]) -> Route {
        let mut kept = self.kept();
        let parsed = serde_json::from_slice::<Value>(message);
        if kept.closing {
            if let Ok(message) = parsed {
                kept.notifications.push_back(message);
            }
            return Route::Kept;
        }
        let Ok(Value::Object(object)) = parsed else { return Route::Session };
        match (object.get("id"), object.contains_key("method")) {
            (Some(id), false) if kept.raw.remove(&id.to_string()) => Route::Raw,
            (None, true) => {
                if kept.notifications.len() >= KEPT {
                    tracing::warn!("a test client took no notifications for {KEPT} of them; the oldest is dropped");
                    kept.notifications.pop_front();
                }
                kept.notifications.push_back(Value::Object(object));
                Route::Session
            }
            _ => Route::Session,
        }
    }
}

/// The server's side: the client's messages in, the server's routed out.
struct Tapped {
    reader: ChannelReader,
    writer: Router,
}

/// The server's writer, routing each message.
struct Router {
    session: mpsc::Sender<Vec<u8>>,
    raw: mpsc::Sender<Vec<u8>>,
    tap: Arc<Tap>,
}

impl Transport for Tapped {
    type Reader = ChannelReader;
    type Writer = Router;

    fn split(self) -> (ChannelReader, Router) {
        (self.reader, self.writer)
    }
}

impl WriteMessages for Router {
    async fn write(&mut self, messages: Vec<Vec<u8>>) -> io::Result<()> {
        for message in messages {
            let to = match self.tap.route(&message) {
                Route::Session => &self.session,
                // A raw client that stopped reading loses its answers,
                // not the connection.
                Route::Raw => {
                    let _ = self.raw.send(message).await;
                    continue;
                }
                Route::Kept => continue,
            };
            // The session is gone: the test dropped its client.
            to.send(message).await.map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        }
        Ok(())
    }
}

/// A test client's connection, before its session is opened.
pub(super) struct Connection {
    pub(super) to_server: mpsc::Sender<Vec<u8>>,
    pub(super) from_server: mpsc::Receiver<Vec<u8>>,
    pub(super) raw: InMemoryClient,
    pub(super) tap: Arc<Tap>,
    pub(super) server: JoinHandle<io::Result<()>>,
}

/// Start serving `server` over a tapped in-memory connection.
pub(super) fn start(server: Server) -> Result<Connection, Error> {
    let (shared, limits) = server.build()?;
    let (to_server, from_client) = mpsc::channel(IN_FLIGHT);
    let (to_session, from_server) = mpsc::channel(IN_FLIGHT);
    let (to_raw, from_server_raw) = mpsc::channel(IN_FLIGHT);
    let tap = Arc::new(Tap::default());
    let transport = Tapped {
        reader: ChannelReader(from_client),
        writer: Router { session: to_session, raw: to_raw, tap: tap.clone() },
    };
    // What the client sends first waits in the channel until the mounted
    // servers are reached.
    let server = tokio::spawn(async move {
        shared.ready().await;
        crate::transport::connection::serve(transport, None, shared, limits).await
    });
    let told = tap.clone();
    let raw =
        InMemoryClient::beside(to_server.clone(), from_server_raw, RAW_IDS, Box::new(move |line| told.sent(line)));
    Ok(Connection { to_server, from_server, raw, tap, server })
}
