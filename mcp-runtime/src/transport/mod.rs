//! Transports: how a server's messages travel.
//!
//! Every transport here is a byte stream of newline-delimited JSON-RPC
//! served by one connection loop; they differ only in where the bytes go.

pub(crate) mod connection;
pub(crate) mod lines;
pub mod memory;
pub(crate) mod stdio;
