//! An in-memory transport: drive a server from the same process, with no
//! subprocess and no pipes, each message whole over a channel. It is the
//! smallest [`Transport`], and the model for one of your own. Its other
//! end is [`InMemoryClient`], a raw JSON-RPC client for tests, or the
//! client crate's message channels (`ClientBuilder::messages`), which a
//! mounted [`Server`](crate::Server) of this process and the
//! [`TestClient`](crate::testing::TestClient) speak through.

use std::collections::VecDeque;
use std::io;

use mcp_core::{ProtocolVersion, methods};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::message::{ReadMessages, Received, Transport, WriteMessages};

/// Messages in flight each way before the sender waits: a client that
/// stops reading holds the server back, as a full pipe would.
pub(crate) const IN_FLIGHT: usize = 1024;

/// The server's end: messages from the client in, messages to it out.
pub(crate) struct Channels {
    from_client: mpsc::Receiver<Vec<u8>>,
    to_client: mpsc::Sender<Vec<u8>>,
}

/// The two ends of an in-memory connection.
pub(crate) fn pair() -> (Channels, mpsc::Sender<Vec<u8>>, mpsc::Receiver<Vec<u8>>) {
    let (client_tx, from_client) = mpsc::channel(IN_FLIGHT);
    let (to_client, client_rx) = mpsc::channel(IN_FLIGHT);
    (Channels { from_client, to_client }, client_tx, client_rx)
}

/// The reading half of [`Channels`].
pub(crate) struct ChannelReader(pub(crate) mpsc::Receiver<Vec<u8>>);

/// The writing half of [`Channels`].
pub(crate) struct ChannelWriter(mpsc::Sender<Vec<u8>>);

impl Transport for Channels {
    type Reader = ChannelReader;
    type Writer = ChannelWriter;

    fn split(self) -> (ChannelReader, ChannelWriter) {
        (ChannelReader(self.from_client), ChannelWriter(self.to_client))
    }
}

impl ReadMessages for ChannelReader {
    async fn read(&mut self, message: &mut Vec<u8>, limit: usize) -> io::Result<Received> {
        Ok(match self.0.recv().await {
            None => Received::Closed,
            Some(bytes) if bytes.len() > limit => Received::TooLarge(bytes.len()),
            Some(bytes) => {
                *message = bytes;
                Received::Message
            }
        })
    }
}

impl WriteMessages for ChannelWriter {
    async fn write(&mut self, messages: Vec<Vec<u8>>) -> io::Result<()> {
        for message in messages {
            self.0.send(message).await.map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        }
        Ok(())
    }
}

/// The client end of an in-memory connection to a server, speaking raw
/// JSON-RPC. Made by [`Server::connect_in_memory`](crate::Server::connect_in_memory).
pub struct InMemoryClient {
    /// `None` once the client has closed its side.
    writer: Option<mpsc::Sender<Vec<u8>>>,
    reader: mpsc::Receiver<Vec<u8>>,
    /// Messages read while waiting for a particular response.
    pending: VecDeque<Value>,
    next_id: i64,
    /// The server it alone speaks to, awaited at [`close`](Self::close);
    /// `None` beside a [`TestClient`](crate::testing::TestClient), which
    /// owns the connection.
    server: Option<JoinHandle<io::Result<()>>>,
    /// Told each message sent, beside a test client (which hands this
    /// client the answers to its own requests).
    on_send: Option<OnSend>,
}

/// What a raw client beside another tells the connection of each message
/// it sends.
pub(crate) type OnSend = Box<dyn Fn(&str) + Send + Sync>;

impl InMemoryClient {
    pub(crate) fn new(
        writer: mpsc::Sender<Vec<u8>>,
        reader: mpsc::Receiver<Vec<u8>>,
        server: JoinHandle<io::Result<()>>,
    ) -> Self {
        InMemoryClient {
            writer: Some(writer),
            reader,
            pending: VecDeque::new(),
            next_id: 1,
            server: Some(server),
            on_send: None,
        }
    }

    /// A raw client sharing a connection with another client: it numbers
    /// its requests from `first_id` (clear of the other's), and tells
    /// `on_send` each message, so answers to its requests come to it.
    pub(crate) fn beside(
        writer: mpsc::Sender<Vec<u8>>,
        reader: mpsc::Receiver<Vec<u8>>,
        first_id: i64,
        on_send: OnSend,
    ) -> Self {
        InMemoryClient {
            writer: Some(writer),
            reader,
            pending: VecDeque::new(),
            next_id: first_id,
            server: None,
            on_send: Some(on_send),
        }
    }

    /// Stop sending: the server sees the client's side closed once every
    /// client of the connection has.
    pub(crate) fn stop_sending(&mut self) {
        self.writer = None;
    }

    /// Send one message's text as is (it need not be valid JSON).
    pub async fn send_line(&mut self, line: &str) -> io::Result<()> {
        let closed = || io::Error::new(io::ErrorKind::BrokenPipe, "the connection is closed");
        let writer = self.writer.as_ref().ok_or_else(closed)?;
        if let Some(on_send) = &self.on_send {
            on_send(line);
        }
        writer.send(line.as_bytes().to_vec()).await.map_err(|_| closed())
    }

    /// Send one JSON message.
    pub async fn send(&mut self, message: &Value) -> io::Result<()> {
        self.send_line(&message.to_string()).await
    }

    /// The next message from the server; `None` once the server has closed
    /// the connection.
    pub async fn recv(&mut self) -> io::Result<Option<Value>> {
        match self.pending.pop_front() {
            Some(message) => Ok(Some(message)),
            None => self.recv_from_server().await,
        }
    }

    /// Send a request and wait for its response (the whole JSON-RPC
    /// message, so errors can be inspected). Other messages that arrive
    /// meanwhile stay queued for [`recv`](Self::recv).
    pub async fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        let id = self.next_id();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await?;
        self.response_to(&json!(id)).await
    }

    /// An id no request of this client has used.
    pub(crate) fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// Wait for the response with `id`; other messages stay queued.
    pub async fn response_to(&mut self, id: &Value) -> io::Result<Value> {
        let is_it = |m: &Value| m.get("id") == Some(id) && m.get("method").is_none();
        if let Some(at) = self.pending.iter().position(is_it) {
            return Ok(self.pending.remove(at).expect("the position is in range"));
        }
        let mut skipped = Vec::new();
        loop {
            let Some(message) = self.recv_from_server().await? else {
                self.pending.extend(skipped);
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
            };
            if is_it(&message) {
                self.pending.extend(skipped);
                return Ok(message);
            }
            skipped.push(message);
        }
    }

    /// The notifications that arrived while waiting for responses, oldest
    /// first, taken out of the queue. Everything the server sent before the
    /// last response it answered is here (the server writes in order), so
    /// a `ping` after a call collects that call's progress and log
    /// messages.
    pub fn take_notifications(&mut self) -> Vec<Value> {
        let (notifications, rest): (VecDeque<Value>, VecDeque<Value>) =
            self.pending.drain(..).partition(|m| m.get("method").is_some() && m.get("id").is_none());
        self.pending = rest;
        notifications.into()
    }

    /// Send a notification.
    pub async fn notify(&mut self, method: &str, params: Value) -> io::Result<()> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params})).await
    }

    /// Perform the handshake with the newest handshake version and return
    /// the `initialize` result.
    pub async fn initialize(&mut self) -> io::Result<Value> {
        let params = json!({
            "protocolVersion": ProtocolVersion::LATEST_HANDSHAKE.as_str(),
            "capabilities": {},
            "clientInfo": {"name": "in-memory-client", "version": env!("CARGO_PKG_VERSION")}
        });
        let response = self.request(methods::INITIALIZE, params).await?;
        self.notify(methods::INITIALIZED, json!({})).await?;
        response.get("result").cloned().ok_or_else(|| io::Error::other(format!("initialize failed: {response}")))
    }

    /// Close the client's side and wait for the server to finish: it
    /// completes running calls, flushes its responses and returns.
    pub async fn close(mut self) -> io::Result<Vec<Value>> {
        self.writer = None;
        let mut rest: Vec<Value> = self.pending.drain(..).collect();
        while let Some(message) = self.recv_from_server().await? {
            rest.push(message);
        }
        if let Some(server) = self.server {
            server.await.map_err(io::Error::other)??;
        }
        Ok(rest)
    }

    async fn recv_from_server(&mut self) -> io::Result<Option<Value>> {
        match self.reader.recv().await {
            None => Ok(None),
            Some(message) => serde_json::from_slice(&message).map(Some).map_err(|e| {
                io::Error::new(io::ErrorKind::InvalidData, format!("server sent a message that is not JSON: {e}"))
            }),
        }
    }
}
