//! Transports: how a server's messages travel. stdio and in-memory are
//! byte streams of newline-delimited JSON-RPC served by one connection
//! loop; Streamable HTTP (`http/`) serves sessions and stateless requests.

pub(crate) mod connection;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod lines;
pub(crate) mod memory;
#[cfg(unix)]
mod pipe;
pub(crate) mod stdio;

#[cfg(feature = "http")]
pub use http::HttpOptions;
#[cfg(feature = "oauth")]
pub use http::OAuth;
pub use memory::InMemoryClient;
