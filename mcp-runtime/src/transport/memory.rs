//! An in-memory transport: drive a server from the same process, with no
//! subprocess and no pipes, as a client would over stdio.

use std::collections::VecDeque;
use std::io;

use mcp_core::ProtocolVersion;
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

use super::lines::{Line, read_line};

/// The client end of an in-memory connection to a server, speaking raw
/// JSON-RPC. Made by [`Server::connect_in_memory`](crate::Server::connect_in_memory).
pub struct InMemoryClient {
    writer: WriteHalf<DuplexStream>,
    reader: BufReader<ReadHalf<DuplexStream>>,
    /// Messages read while waiting for a particular response.
    pending: VecDeque<Value>,
    next_id: i64,
    server: JoinHandle<io::Result<()>>,
}

impl InMemoryClient {
    pub(crate) fn new(stream: DuplexStream, server: JoinHandle<io::Result<()>>) -> Self {
        let (reader, writer) = tokio::io::split(stream);
        InMemoryClient { writer, reader: BufReader::new(reader), pending: VecDeque::new(), next_id: 1, server }
    }

    /// Send one line as is (it need not be valid JSON).
    pub async fn send_line(&mut self, line: &str) -> io::Result<()> {
        self.writer.write_all(line.as_bytes()).await?;
        self.writer.write_all(b"\n").await?;
        self.writer.flush().await
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
        let response = self.request("initialize", params).await?;
        self.notify("notifications/initialized", json!({})).await?;
        response.get("result").cloned().ok_or_else(|| io::Error::other(format!("initialize failed: {response}")))
    }

    /// Close the client's side and wait for the server to finish: it
    /// completes running calls, flushes its responses and returns.
    pub async fn close(mut self) -> io::Result<Vec<Value>> {
        self.writer.shutdown().await?;
        let mut rest: Vec<Value> = self.pending.drain(..).collect();
        while let Some(message) = self.recv_from_server().await? {
            rest.push(message);
        }
        self.server.await.map_err(io::Error::other)??;
        Ok(rest)
    }

    async fn recv_from_server(&mut self) -> io::Result<Option<Value>> {
        let mut line = Vec::new();
        match read_line(&mut self.reader, &mut line, usize::MAX).await? {
            Line::Eof => Ok(None),
            _ => serde_json::from_slice(&line)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("server sent a non-JSON line: {e}"))),
        }
    }
}
