//! OAuth 2.1 for HTTP servers, as the MCP authorization spec has it: the
//! authorization server found from the server's `401` (protected resource
//! metadata, RFC 9728; server metadata, RFC 8414 and OpenID Connect
//! Discovery), the client identified (pre-registered credentials, a client
//! ID metadata document, or dynamic registration, RFC 7591), the user's
//! authorization with PKCE (RFC 7636), `resource` (RFC 8707) and `iss`
//! (RFC 9207) checks, tokens refreshed and stepped up to wider scopes.
//!
//! Beyond the user's authorization, as options of [`OAuthBuilder`]: the
//! client credentials grant with a secret or a private key
//! ([`ClientCredentials::private_key_jwt`], RFC 7523, SEP-1046), workload
//! identity federation with a platform token ([`TokenSource`], SEP-1933),
//! enterprise-managed authorization with an ID-JAG from the company's
//! identity provider ([`EnterpriseIdp`], SEP-990), and DPoP-bound tokens
//! (RFC 9449, SEP-1932). URLs a server names are only fetched on public
//! addresses unless [`OAuthBuilder::allow_private_addresses`] says
//! otherwise.
//!
//! [`OAuth`] is an [`Authorization`](crate::Authorization): build one and
//! give it to the [`ClientBuilder`](crate::ClientBuilder). What only the
//! application can do is given to it: showing the user the authorization
//! page ([`UserAgent`]), keeping tokens ([`TokenStore`]).
//!
//! Authorization servers on `https://` need the crate's `tls` feature too,
//! as servers do. Nothing secret is logged: tokens, codes and client
//! secrets stay out of `tracing` output and `Debug` impls.

mod assertion;
mod challenge;
mod discovery;
mod dpop;
mod enterprise;
mod fetch;
mod guard;
mod oauth;
mod pkce;
mod registration;
mod scope;
mod source;
mod store;
mod token;
mod user_agent;

pub use assertion::PrivateKey;
pub use enterprise::EnterpriseIdp;
pub use oauth::{OAuth, OAuthBuilder};
pub use registration::{ClientCredentials, TokenEndpointAuth};
pub use source::TokenSource;
pub use store::{MemoryTokenStore, StoredTokens, TokenStore};
pub use user_agent::UserAgent;
