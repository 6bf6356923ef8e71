//! An MCP (Model Context Protocol) client: connect to any MCP server and
//! use what it offers as typed calls.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime_client::Error> {
//! use mcp_runtime_client::Client;
//!
//! let client = Client::command("my-server", ["--stdio"]).await?;
//! for tool in client.list_tools().await? {
//!     println!("{}: {}", tool.name, tool.description.unwrap_or_default());
//! }
//! let sum: f64 = client.call_structured("add", serde_json::json!({ "a": 1, "b": 2 })).await?;
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! - **Transports**: a spawned command over stdio ([`Client::command`]),
//!   any reader and writer ([`Client::io`]), whole messages over channels
//!   to a server in the same process ([`ClientBuilder::messages`]), Streamable HTTP
//!   ([`Client::http`]: JSON and event-stream answers, resumed streams,
//!   sessions).
//! - **Eras**: [`EraChoice::Auto`] asks `server/discover` (2026-07-28) and
//!   falls back to `initialize`; 2026-07-28 requests carry their `_meta`
//!   envelope and mirroring headers, and input-required results are
//!   answered and retried by themselves.
//! - **Caching** ([`ClientBuilder::cache`]): lists and reads a 2026-07-28
//!   server allows to be kept (`ttlMs`, SEP-2549) are served from a
//!   [`cache::CacheStore`] (in memory, or Redis with the `redis` feature)
//!   until their time runs out or the server says they changed.
//! - **Expired sessions**: a 2025-11-25 HTTP session the server forgot
//!   (404) is opened again, and the request sent once more.
//! - **Skills** (the `io.modelcontextprotocol/skills` extension):
//!   [`Client::list_skills`] reads the entries only; [`Client::load_skill`]
//!   reads a skill's `SKILL.md` and checks its size, digest and
//!   frontmatter against the entry, and [`LoadedSkill::read`] each other
//!   file the entry lists, checked the same way.
//! - **Progress**: [`Call::on_progress`] hears a call's updates in order,
//!   every one the server sent before its answer heard before the call's
//!   `.await` returns.
//! - **Tasks**: [`Client::call_as_task`], [`Client::get_task`],
//!   [`Client::task_result`], [`Client::cancel_task`],
//!   [`Client::list_tasks`], and [`Client::run_as_task`], which creates,
//!   waits and gives the result; 2025-11-25's core tasks or the tasks
//!   extension ([`ClientBuilder::tasks`]), as negotiated.
//! - **The server's questions** (sampling, elicitation, roots) are
//!   answered by closures given to the [`ClientBuilder`], in both eras.
//! - **Authorization** (feature `oauth`): `auth::OAuth` is the MCP
//!   spec's OAuth 2.1 client (the user's authorization with PKCE,
//!   registration, refresh, step-up), and for machines and companies the
//!   client credentials grant with a secret or a private key
//!   (`private_key_jwt`, `client_secret_jwt`), workload identity
//!   federation with a platform token, enterprise-managed authorization
//!   (an ID-JAG from the company's identity provider) and DPoP-bound
//!   tokens. URLs a server names are fetched on public addresses only
//!   unless allowed.

mod api;
#[cfg(feature = "oauth")]
pub mod auth;
pub mod cache;
mod call;
mod client;
mod error;
mod handlers;
mod lifecycle;
mod params;
mod progress;
mod session;
mod skills;
#[cfg(feature = "http")]
pub mod ssrf;
mod tasks;
mod wire;

pub use call::{Call, Forward};
pub use client::{Client, ClientBuilder, EraChoice};
pub use error::{Error, redact_url};
pub use session::{Era, Negotiated};
pub use skills::LoadedSkill;
pub use tasks::TaskCall;
pub use wire::child::Stderr;
#[cfg(feature = "http")]
pub use wire::http::Authorization;

/// The future an [`Authorization`] returns.
pub use futures_util::future::BoxFuture;
/// The protocol's types, as this client reads and writes them.
pub use mcp_core as protocol;
