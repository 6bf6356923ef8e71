//! The lifecycle methods: `initialize` (which starts the handshake era on
//! a connection), `ping`, `logging/setLevel`, and `server/discover` (the
//! 2026-07-28 description of the server).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_core::{
    ErrorObject, InitializeParams, InitializeResult, JsonObject, ProtocolVersion, ServerCapabilities, SetLevelParams,
    envelope,
};
use serde::Serialize;
use serde_json::Value;

use super::reply::{Empty, ResultBody};
use super::table::Capability;
use super::{Action, Incoming, Negotiated, parse};
use crate::client::Peer;
use crate::request::context::level_index;

pub(crate) fn initialize(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let params: InitializeParams = parse(params)?;
    let version = mcp_core::ProtocolVersion::negotiate(&params.protocol_version);
    request.span.record("mcp.protocol.version", version.as_str());
    // A connection's one client is news; an HTTP server's sessions come
    // and go by the thousand (some clients open one per call), so there
    // each is a debug line.
    macro_rules! connected {
        ($level:expr) => {
            tracing::event!(
                $level,
                client = %params.client_info.name,
                client_version = %params.client_info.version,
                requested = %params.protocol_version,
                protocol = %version,
                "client connected"
            )
        };
    }
    let session = request.session;
    if session.transport == Some("tcp") {
        connected!(tracing::Level::DEBUG);
    } else {
        connected!(tracing::Level::INFO);
    }
    let peer = Peer::new(
        session.log_level.clone(),
        Some(params.client_info),
        params.capabilities,
        Some(session.requests.clone()),
    );
    session
        .negotiated
        .set(Negotiated { version, peer: Arc::new(peer) })
        .map_err(|_| ErrorObject::invalid_request("`initialize` was already received on this connection"))?;
    let shared = request.shared();
    let mut capabilities = shared.capabilities();
    if session.request_scoped() {
        // An endpoint that issues no session ids: nothing the client does
        // after this answer can reach a session, so what needs one is not
        // declared (and is refused if asked for).
        capabilities = without_session(capabilities);
    } else {
        session.listen_for_changes(request.claims.as_ref().map(|c| c.principal()));
        // Tasks were in the core protocol in 2025-11-25 only (the
        // extension, declared in every era, is the one that lasted).
        if version == ProtocolVersion::V2025_11_25 && shared.serves(Capability::Tasks) {
            capabilities.other.insert("tasks".into(), mcp_core::task::capability_2025_11_25());
        }
    }
    Ok(request.reply(InitializeResult {
        protocol_version: version,
        capabilities,
        server_info: shared.info.for_version(version),
        instructions: shared.instructions.clone(),
        meta: None,
    }))
}

/// What a handshake-era server without sessions can keep of its
/// capabilities: no `listChanged` (no stream to send it on), no resource
/// subscriptions, no tasks to come back for. Logging stays: a call's own
/// messages still reach its client on the call's stream, at the default
/// level.
fn without_session(mut capabilities: ServerCapabilities) -> ServerCapabilities {
    if let Some(tools) = &mut capabilities.tools {
        tools.list_changed = None;
    }
    if let Some(prompts) = &mut capabilities.prompts {
        prompts.list_changed = None;
    }
    if let Some(resources) = &mut capabilities.resources {
        resources.list_changed = None;
        resources.subscribe = None;
    }
    if let Some(Value::Object(extensions)) = capabilities.other.get_mut("extensions") {
        extensions.remove(mcp_core::task::EXTENSION);
        if extensions.is_empty() {
            capabilities.other.remove("extensions");
        }
    }
    capabilities
}

pub(crate) fn ping(request: &Incoming<'_>, _: Option<JsonObject>) -> Result<Action, ErrorObject> {
    Ok(request.reply(Empty {}))
}

pub(crate) fn set_level(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let SetLevelParams { level } = parse(params)?;
    request.session.log_level.store(level_index(level), Ordering::Relaxed);
    Ok(request.reply(Empty {}))
}

/// What `server/discover` says: the versions, capabilities and
/// instructions (the server's name is stamped on every result).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Discovered<'a> {
    supported_versions: Vec<&'static str>,
    capabilities: mcp_core::ServerCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

impl ResultBody for Discovered<'_> {}

pub(crate) fn discover(request: &Incoming<'_>, _: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let shared = request.shared();
    Ok(request.reply(Discovered {
        supported_versions: envelope::supported_versions(),
        capabilities: shared.capabilities(),
        instructions: shared.instructions.as_deref(),
    }))
}

impl super::Session {
    /// Settle the session as if a client of `version` that declared no
    /// capabilities had initialized it, without listening for changes:
    /// the session that handshake-era requests share on an HTTP endpoint
    /// that issues no session ids (each answered from the request alone).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn assume(self, version: ProtocolVersion) -> Self {
        let peer = Peer::new(self.log_level.clone(), None, Default::default(), Some(self.requests.clone()));
        let _ = self.negotiated.set(Negotiated { version, peer: Arc::new(peer) });
        self
    }
}
