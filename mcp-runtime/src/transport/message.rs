//! The one trait a message transport implements: whole JSON-RPC messages
//! in, whole messages out. Everything else of a connection (parsing,
//! running calls, refusing an id in use, backpressure, cancellation,
//! draining at the end) is the server's, so a new transport is this trait
//! and nothing more.
//!
//! ```
//! use std::io;
//!
//! use mcp_runtime::transport::{ReadMessages, Received, Transport, WriteMessages};
//! use tokio::sync::mpsc;
//!
//! /// Messages over a pair of channels (a WebSocket's would look the same).
//! struct Channels {
//!     from_client: mpsc::Receiver<Vec<u8>>,
//!     to_client: mpsc::Sender<Vec<u8>>,
//! }
//!
//! struct Reader(mpsc::Receiver<Vec<u8>>);
//! struct Writer(mpsc::Sender<Vec<u8>>);
//!
//! impl Transport for Channels {
//!     type Reader = Reader;
//!     type Writer = Writer;
//!     fn split(self) -> (Reader, Writer) {
//!         (Reader(self.from_client), Writer(self.to_client))
//!     }
//! }
//!
//! impl ReadMessages for Reader {
//!     async fn read(&mut self, message: &mut Vec<u8>, limit: usize) -> io::Result<Received> {
//!         Ok(match self.0.recv().await {
//!             None => Received::Closed,
//!             Some(bytes) if bytes.len() > limit => Received::TooLarge(bytes.len()),
//!             Some(bytes) => {
//!                 *message = bytes;
//!                 Received::Message
//!             }
//!         })
//!     }
//! }
//!
//! impl WriteMessages for Writer {
//!     async fn write(&mut self, messages: Vec<Vec<u8>>) -> io::Result<()> {
//!         for message in messages {
//!             self.0.send(message).await.map_err(|_| io::ErrorKind::BrokenPipe)?;
//!         }
//!         Ok(())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_runtime::Error> {
//! let (client_tx, from_client) = mpsc::channel(16);
//! let (to_client, mut client_rx) = mpsc::channel(16);
//! let server = tokio::spawn(
//!     mcp_runtime::Server::empty("demo", "1.0.0").serve_transport(Channels { from_client, to_client }),
//! );
//! client_tx.send(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec()).await.unwrap();
//! let answer = client_rx.recv().await.unwrap();
//! assert_eq!(answer, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
//! drop(client_tx);
//! server.await.unwrap()?;
//! # Ok(())
//! # }
//! ```

use std::future::Future;
use std::io;

/// What one [`ReadMessages::read`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// One message's JSON text is in the buffer (a request, notification,
    /// response, or a batch array; the server parses it).
    Message,
    /// A message longer than the limit arrived, of this many bytes; it was
    /// dropped, and the server answers it with an error and reads on.
    TooLarge(usize),
    /// The client closed its side: no more messages will come. The server
    /// lets running calls finish and sends their answers.
    Closed,
}

/// A transport: a client's messages come in through its reader and the
/// server's go out through its writer, at the same time.
pub trait Transport: Send {
    /// The half that reads the client's messages.
    type Reader: ReadMessages;
    /// The half that writes the server's messages.
    type Writer: WriteMessages;

    /// The two halves, used at once (one reads while the other writes).
    fn split(self) -> (Self::Reader, Self::Writer);
}

/// Reads the client's messages, one at a time.
pub trait ReadMessages: Send {
    /// Wait for the next message and put its bytes (one JSON text, no
    /// framing) in `message`, replacing what was there. A message longer
    /// than `limit` bytes must not be kept: say [`Received::TooLarge`].
    /// An error ends the connection as [`Received::Closed`] does, and is
    /// logged.
    fn read(&mut self, message: &mut Vec<u8>, limit: usize) -> impl Future<Output = io::Result<Received>> + Send;
}

/// Writes the server's messages, in order.
pub trait WriteMessages: Send + 'static {
    /// Send these messages (each one JSON text, no framing), in this
    /// order. Messages that were ready together come in one call, so a
    /// byte stream can send them in one write. An error means the client
    /// is gone: the server stops.
    fn write(&mut self, messages: Vec<Vec<u8>>) -> impl Future<Output = io::Result<()>> + Send;

    /// Nothing more will be written: flush, and close the client's side
    /// if the transport has one. The default does nothing.
    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send {
        std::future::ready(Ok(()))
    }
}
