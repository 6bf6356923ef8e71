//! Opening a 2025-11-25 session again after the server forgot it (HTTP
//! 404): `initialize` at the version agreed before, `initialized`, the
//! server's stream. (Nothing is cached in this era: only 2026-07-28
//! answers carry the hints.)

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_core::{ProtocolVersion, methods};

use super::Session;
use crate::{Client, Error};

impl Session {
    /// Open a new session, unless one was opened since `epoch` (by another
    /// request that found the old one expired at the same time).
    pub(super) async fn renew(self: &Arc<Self>, epoch: u64) -> Result<(), Error> {
        let _renewing = self.renewing.lock().await;
        if self.epoch.load(Ordering::Acquire) != epoch {
            return Ok(());
        }
        let version = self
            .negotiated()
            .and_then(|n| ProtocolVersion::parse(&n.version))
            .filter(|v| v.uses_handshake())
            .ok_or(Error::SessionExpired)?;
        tracing::info!("the server forgot the session (HTTP 404); opening a new one");
        let client = Client { session: self.clone() };
        let negotiated = crate::lifecycle::initialize(&client, version).await?;
        *self.negotiated.write().unwrap_or_else(|e| e.into_inner()) = Some(negotiated);
        self.notify(methods::INITIALIZED, None).await?;
        self.wire().opened().await;
        self.epoch.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}
