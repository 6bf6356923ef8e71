//! Opening a session: what follows the agreement (`initialized` and the
//! server's stream, in the handshake era), on connecting and again after
//! the server forgot a 2025-11-25 session (HTTP 404), when the log level
//! and the resource subscriptions of the old one are sent again. (Nothing
//! is cached in this era: only 2026-07-28 answers carry the hints.)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_core::{ProtocolVersion, methods};
use serde_json::json;

use super::{Negotiated, RequestOptions, Session, lock};
use crate::{Client, Era, Error};

/// The renewals of an expired session, so that the requests that find it
/// expired together open one, and wait for it.
#[derive(Default)]
pub(super) struct Renewal {
    /// How many times the session was opened again.
    opened: AtomicU64,
    /// How many times opening it again failed.
    failed: AtomicU64,
    /// Held while it is opened again.
    lock: tokio::sync::Mutex<()>,
}

impl Renewal {
    /// Which session a request is sent in, to name to
    /// [`Session::renew`] if it finds that session expired.
    pub(super) fn epoch(&self) -> u64 {
        self.opened.load(Ordering::Acquire)
    }
}

impl Session {
    /// Settle what was agreed and, in the handshake era, say
    /// `initialized` and open the server's stream.
    pub(crate) async fn begin(&self, negotiated: Negotiated) -> Result<(), Error> {
        let handshake = negotiated.era == Era::Handshake;
        self.settle(negotiated);
        if handshake {
            self.notify(methods::INITIALIZED, None).await?;
            self.wire().opened().await;
        }
        Ok(())
    }

    /// Open a new session, unless one was opened since `epoch` (by another
    /// request that found the old one expired at the same time). A request
    /// that waited for a renewal that failed is not sent: it ends with
    /// [`Error::SessionExpired`] (each of them trying again in turn would
    /// keep a failing server busy); the next request tries again.
    pub(super) async fn renew(self: &Arc<Self>, epoch: u64) -> Result<(), Error> {
        let renewal = &self.renewal;
        let failed = renewal.failed.load(Ordering::Acquire);
        let _renewing = renewal.lock.lock().await;
        if renewal.opened.load(Ordering::Acquire) != epoch {
            return Ok(());
        }
        if renewal.failed.load(Ordering::Acquire) != failed {
            return Err(Error::SessionExpired);
        }
        let version = self
            .negotiated()
            .and_then(|n| ProtocolVersion::parse(&n.version))
            .filter(|v| v.uses_handshake())
            .ok_or(Error::SessionExpired)?;
        tracing::info!("the server forgot the session (HTTP 404); opening a new one");
        let client = Client { session: self.clone() };
        let opened = match crate::lifecycle::initialize(&client, version).await {
            Ok(negotiated) => self.begin(negotiated).await,
            Err(error) => Err(error),
        };
        if let Err(error) = opened {
            tracing::warn!(%error, "the session could not be opened again; the next request tries again");
            renewal.failed.fetch_add(1, Ordering::AcqRel);
            return Err(error);
        }
        // Counted before it is told what the old one was: those waiting
        // send in it even if this caller stops waiting now. And told in a
        // task of its own, which such a caller does not stop half done.
        renewal.opened.fetch_add(1, Ordering::AcqRel);
        let session = self.clone();
        let _ = tokio::spawn(async move { session.restore().await }).await;
        Ok(())
    }

    /// Tell a new session what the old one was told: the log level and
    /// the subscriptions, all at once (the requests waiting for the
    /// renewal wait for this too, at most one request's timeout). A
    /// refusal is logged; the session stays open.
    async fn restore(self: &Arc<Self>) {
        let level = *lock(&self.log_level);
        let subscribed = lock(&self.subscribed).clone();
        let requests = level
            .map(|level| (methods::LOGGING_SET_LEVEL, json!({ "level": level })))
            .into_iter()
            .chain(subscribed.into_iter().map(|uri| (methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri }))));
        let sent = requests.map(|(method, params)| async move {
            let mut params = params.as_object().cloned().unwrap_or_default().into();
            // Not `request`, which would wait for this renewal to end.
            if let Err(error) = self.request_rounds(method, &mut params, &RequestOptions::default()).await {
                tracing::warn!(%error, method, "the new session refused what the old one was told");
            }
        });
        futures_util::future::join_all(sent).await;
    }
}
