//! What a transport knows of a request beyond its message: the verified
//! token's claims, the 2026-07-28 envelope it already read to tell the
//! request's era, and the headers that mirror a tool call's arguments.
//! Each travels with the request so that nothing is read twice.

use mcp_core::headers::ParamHeader;
use mcp_core::{Envelope, ErrorObject};
use serde_json::Value;

use crate::request::claims::Claims;

/// What came with one message, besides the message.
#[derive(Default)]
pub(crate) struct Arrival<'a> {
    /// The verified access token's claims: only over HTTP with OAuth.
    pub(crate) claims: Option<Claims>,
    /// The request's 2026-07-28 envelope, when its transport read it (and
    /// found it complete and valid) to tell the request's era; `None`
    /// leaves dispatch to read `_meta` itself.
    pub(crate) envelope: Option<Envelope>,
    /// The transport's mirror of a tool call's arguments, when it has one.
    pub(crate) mirrored: Option<&'a dyn MirroredParams>,
}

impl Arrival<'_> {
    /// A message with the claims of its token, if any.
    #[cfg(feature = "http")]
    pub(crate) fn with_claims(claims: Option<Claims>) -> Self {
        Arrival { claims, ..Arrival::default() }
    }
}

/// A transport that mirrors a tool call's arguments in its own framing
/// (Streamable HTTP's `Mcp-Param-*` headers, SEP-2243). Which arguments are
/// mirrored is the tool's business: the call's admission asks with the
/// tool it found, so the tool is looked up once.
pub(crate) trait MirroredParams: Sync {
    /// The `-32020` error when the framing disagrees with `arguments` on
    /// one of the `declared` parameters, or leaves one out.
    fn mismatch(&self, declared: &[ParamHeader], arguments: Option<&Value>) -> Option<ErrorObject>;
}
