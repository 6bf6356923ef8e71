//! Transports: how a server's messages travel. A message transport is one
//! trait ([`Transport`]: a reader and a writer of whole messages), served
//! by one connection loop that owns everything else (parsing, running
//! calls, backpressure, cancellation, draining); stdio and pipes are
//! [`Lines`] over a byte stream, and the in-memory transport carries whole
//! messages over channels (to a raw [`InMemoryClient`], or to the client
//! crate's message wire under the `TestClient` and an in-process mount).
//! Streamable HTTP (`http/`) serves sessions and stateless requests.

pub(crate) mod connection;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod keepalive;
pub(crate) mod lines;
pub(crate) mod memory;
mod message;
#[cfg(unix)]
mod pipe;
pub(crate) mod stdio;

#[cfg(feature = "oauth")]
pub use http::{Dpop, Introspection, MemoryProxyStore, OAuth, OAuthProxy, ProxyStore, TrustedIdp, Upstream};
#[cfg(feature = "http")]
pub use http::{HttpOptions, ServerCard};
pub use lines::{LineReader, LineWriter, Lines};
pub use memory::InMemoryClient;
pub use message::{ReadMessages, Received, Transport, WriteMessages};
