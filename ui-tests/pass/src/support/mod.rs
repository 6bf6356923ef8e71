//! What the cases share: a client connected in memory.

pub mod client;
