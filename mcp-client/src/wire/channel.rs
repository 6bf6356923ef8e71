//! Whole messages over channels: a server in the same process, reached
//! with no framing and no byte stream in between. Each message is one JSON
//! text, sent as the session serialized it and read as the server wrote
//! it; the server's side is any transport that hands it whole messages
//! (the runtime's in-memory one).

use std::sync::Mutex;

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use super::peek::{Kind, Peek};
use super::{Inbound, Inbox, Outbound, Wire};
use crate::{Client, ClientBuilder, Error};

impl ClientBuilder {
    /// Speak to a server through a pair of channels that carry whole
    /// messages, each one JSON text: `to_server` takes the client's,
    /// `from_server` gives the server's. For a server in the same process
    /// (the runtime's in-memory transport is the other end): nothing is
    /// framed, and no byte stream is copied. Dropping the client, or
    /// [`Client::close`], drops `to_server`, which tells the server the
    /// client is gone; `from_server` closing ends the connection.
    pub async fn messages(
        self,
        to_server: mpsc::Sender<Vec<u8>>,
        from_server: mpsc::Receiver<Vec<u8>>,
    ) -> Result<Client, Error> {
        let inbox = Inbox::default();
        let channel = Channel::start(to_server, from_server, inbox.clone(), self.limits.max_message_bytes);
        self.open(Box::new(channel), inbox).await
    }
}

/// A wire whose messages go whole through a channel each way.
pub(crate) struct Channel {
    /// `None` once closed: dropping it is what tells the server the
    /// client is gone.
    to_server: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
}

impl Channel {
    /// Send on `to_server`; what comes on `from_server` goes to `inbox`,
    /// a message over `limit` bytes failing what it answers, as on any
    /// wire.
    pub(crate) fn start(
        to_server: mpsc::Sender<Vec<u8>>,
        from_server: mpsc::Receiver<Vec<u8>>,
        inbox: Inbox,
        limit: usize,
    ) -> Channel {
        tokio::spawn(read(from_server, inbox, limit));
        Channel { to_server: Mutex::new(Some(to_server)) }
    }

    fn sender(&self) -> Result<mpsc::Sender<Vec<u8>>, Error> {
        let sender = self.to_server.lock().unwrap_or_else(|e| e.into_inner());
        sender.clone().ok_or_else(|| Error::Closed("the client closed the connection".into()))
    }
}

fn gone() -> Error {
    Error::Closed("the server closed the connection".into())
}

impl Wire for Channel {
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), Error>> {
        let sender = self.sender();
        Box::pin(async move { sender?.send(message.bytes).await.map_err(|_| gone()) })
    }

    fn try_send(&self, message: Outbound) -> Result<Result<(), Error>, Outbound> {
        let sender = self.to_server.lock().unwrap_or_else(|e| e.into_inner());
        let Some(sender) = sender.as_ref() else {
            return Ok(Err(Error::Closed("the client closed the connection".into())));
        };
        match sender.try_send(message.bytes) {
            Ok(()) => Ok(Ok(())),
            Err(mpsc::error::TrySendError::Closed(_)) => Ok(Err(gone())),
            // A full channel: the caller waits for room.
            Err(mpsc::error::TrySendError::Full(bytes)) => Err(Outbound { bytes, ..message }),
        }
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.to_server.lock().unwrap_or_else(|e| e.into_inner()).take();
        Box::pin(async {})
    }
}

/// Deliver each message from the server until its side closes or the
/// session is gone.
async fn read(mut from_server: mpsc::Receiver<Vec<u8>>, inbox: Inbox, limit: usize) {
    while let Some(message) = from_server.recv().await {
        if message.len() > limit {
            let mut peek = Peek::default();
            peek.feed(&message);
            let kind = peek.kind();
            tracing::warn!(size = message.len(), limit, ?kind, "a message from the server is larger than the limit");
            let error = Error::too_large("a message from the server", message.len(), limit);
            if kind != Kind::Notification && !inbox.deliver(Inbound::Oversized(kind, error)) {
                return;
            }
            continue;
        }
        let mut open = true;
        super::incoming::each(&message, |item| open = open && inbox.deliver(item));
        if !open {
            return;
        }
    }
    inbox.deliver(Inbound::Closed("the server closed the connection".into()));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{Client, EraChoice};

    /// A server that answers `initialize` and echoes each request's params
    /// back as its result, one whole message at a time.
    async fn echo(
        mut from_client: tokio::sync::mpsc::Receiver<Vec<u8>>,
        to_client: tokio::sync::mpsc::Sender<Vec<u8>>,
    ) {
        while let Some(message) = from_client.recv().await {
            let message: serde_json::Value = serde_json::from_slice(&message).unwrap();
            let Some(id) = message.get("id") else { continue };
            let result = match message["method"].as_str() {
                Some("initialize") => json!({
                    "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "echo", "version": "1"}
                }),
                Some("big") => json!({ "text": "x".repeat(4096) }),
                _ => message["params"].clone(),
            };
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
            if to_client.send(serde_json::to_vec(&answer).unwrap()).await.is_err() {
                return;
            }
        }
    }

    #[tokio::test]
    async fn whole_messages_go_both_ways_and_an_oversized_one_fails_its_call() {
        let (to_server, from_client) = tokio::sync::mpsc::channel(8);
        let (to_client, from_server) = tokio::sync::mpsc::channel(8);
        let server = tokio::spawn(echo(from_client, to_client));
        let era = EraChoice::Version(mcp_core::ProtocolVersion::LATEST_HANDSHAKE);
        let client = Client::builder().era(era).max_message_bytes(1024).messages(to_server, from_server).await.unwrap();
        assert_eq!(client.negotiated().server_info.unwrap().name, "echo");
        assert_eq!(client.request("echo", json!({"a": 1})).await.unwrap(), json!({"a": 1}));
        let refused = client.request("big", json!({})).await.unwrap_err();
        assert!(matches!(refused, crate::Error::Limit(_)), "{refused:?}");
        // The connection goes on after it.
        assert_eq!(client.request("echo", json!({"b": 2})).await.unwrap(), json!({"b": 2}));
        client.close().await;
        server.await.unwrap();
    }

    #[tokio::test]
    async fn a_server_that_goes_away_fails_what_waits() {
        let (to_server, mut from_client) = tokio::sync::mpsc::channel::<Vec<u8>>(8);
        let (to_client, from_server) = tokio::sync::mpsc::channel(8);
        let era = EraChoice::Version(mcp_core::ProtocolVersion::LATEST_HANDSHAKE);
        let connecting = tokio::spawn(Client::builder().era(era).messages(to_server, from_server));
        // The server reads the handshake and leaves without a word.
        from_client.recv().await.unwrap();
        drop((from_client, to_client));
        let failed = connecting.await.unwrap().unwrap_err();
        assert!(matches!(failed, crate::Error::Closed(_)), "{failed:?}");
    }
}
