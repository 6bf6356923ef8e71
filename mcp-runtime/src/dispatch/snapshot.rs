//! A handshake session as a record another replica can pick up: what the
//! handshake settled and what the client changed since (log level,
//! resource subscriptions). Calls and pending requests stay behind.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_core::{ClientCapabilities, Implementation, ProtocolVersion};
use serde::{Deserialize, Serialize};

use super::{Negotiated, Session};
use crate::client::Peer;

/// A session's state, as saved for other replicas.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Snapshot {
    version: ProtocolVersion,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_info: Option<Implementation>,
    capabilities: ClientCapabilities,
    log_level: u8,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    subscriptions: Vec<String>,
    /// Who the session belongs to (the token subject), when tokens are
    /// checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) owner: Option<String>,
}

impl Session {
    /// The session as a record, once `initialize` settled it.
    pub(crate) fn snapshot(&self, owner: Option<String>) -> Option<Snapshot> {
        let negotiated = self.negotiated.get()?;
        let mut subscriptions: Vec<String> =
            self.resource_subscriptions.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect();
        subscriptions.sort_unstable();
        Some(Snapshot {
            version: negotiated.version,
            client_info: negotiated.peer.client_info.clone(),
            capabilities: negotiated.peer.capabilities.clone(),
            log_level: self.log_level.load(Ordering::Relaxed),
            subscriptions,
            owner,
        })
    }

    /// Take up a session saved by another replica: as if its `initialize`
    /// (and what followed) had come here.
    pub(crate) fn restore(&self, snapshot: Snapshot) {
        self.log_level.store(snapshot.log_level, Ordering::Relaxed);
        self.resource_subscriptions.lock().unwrap_or_else(|e| e.into_inner()).extend(snapshot.subscriptions);
        let peer =
            Peer::new(self.log_level.clone(), snapshot.client_info, snapshot.capabilities, Some(self.requests.clone()));
        let _ = self.negotiated.set(Negotiated { version: snapshot.version, peer: Arc::new(peer) });
        self.listen_for_changes(snapshot.owner);
    }
}

/// Whether a request with this method changes what a [`Snapshot`] holds.
pub(crate) fn changes_snapshot(method: &str) -> bool {
    matches!(
        method,
        mcp_core::methods::LOGGING_SET_LEVEL
            | mcp_core::methods::RESOURCES_SUBSCRIBE
            | mcp_core::methods::RESOURCES_UNSUBSCRIBE
    )
}
