//! Which connection serves a request: the shared one for an upstream
//! without sessions; for one with sessions, the shared one for the first
//! client session of each upstream session, one of its own for every
//! other (closed when it ends), and one for callers without a session.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use mcp_core::ErrorObject;
use mcp_runtime_client::{Client, Error as ClientError};

use super::{Conn, Link, lock};
use crate::client::Peer;
use crate::request::Context;

/// Who the shared connection serves, for an upstream with sessions.
pub(super) enum Claim {
    /// No client session yet: the next one to call takes it.
    Free,
    /// This client session, on the upstream session of this generation.
    Held(Weak<Peer>, u64),
    /// The session that held this generation ended: no one else may use
    /// it (it carries that session's state) until it is opened anew.
    Retired(u64),
}

impl Link {
    /// The connection for a request of `ctx`'s client, and its client:
    /// the shared one for an upstream without sessions. For one with
    /// sessions: the shared one for the first client session of each
    /// upstream session, one of its own (up to [`Mount::max_sessions`])
    /// for every other, and the sessionless one for callers without a
    /// session.
    pub(super) async fn connection(self: &Arc<Self>, ctx: &Context) -> Result<(Arc<Conn>, Client), ClientError> {
        let stateful = self.stateful.load(Ordering::Relaxed);
        let Some(session) = ctx.session().filter(|_| stateful) else {
            let conn = if stateful { &self.sessionless } else { &self.shared };
            return Ok((conn.clone(), conn.client(self).await?.0));
        };
        let own = lock(&self.sessions).iter().find(|(peer, _)| peer.ptr_eq(&session)).map(|(_, c)| c.clone());
        if let Some(conn) = own {
            let client = conn.client(self).await?.0;
            return Ok((conn, client));
        }
        let (client, generation) = self.shared.client(self).await?;
        if self.claim(&session, generation) {
            return Ok((self.shared.clone(), client));
        }
        let conn = self.own_connection(&session)?;
        let client = conn.client(self).await?.0;
        Ok((conn, client))
    }

    /// Whether `session` may use the shared connection's upstream session
    /// `generation`: it holds it, or takes it as the first.
    fn claim(self: &Arc<Self>, session: &Weak<Peer>, generation: u64) -> bool {
        let mut claim = lock(&self.claim);
        match &*claim {
            Claim::Held(peer, held) if *held == generation => return peer.ptr_eq(session),
            Claim::Retired(retired) if *retired == generation => return false,
            // Free, or a claim on an upstream session that is gone.
            _ => {}
        }
        let Some(peer) = session.upgrade() else { return false };
        *claim = Claim::Held(session.clone(), generation);
        let (link, ended) = (Arc::downgrade(self), peer.on_end());
        tokio::spawn(async move {
            ended.await;
            if let Some(link) = link.upgrade() {
                link.retire(generation).await;
            }
        });
        true
    }

    /// The client session holding the shared connection's upstream session
    /// `generation` ended: close it, so no other session inherits what the
    /// upstream kept for that one, and mirror from a fresh one.
    async fn retire(&self, generation: u64) {
        {
            let mut claim = lock(&self.claim);
            if matches!(&*claim, Claim::Held(_, held) if *held == generation) {
                *claim = Claim::Retired(generation);
            }
        }
        if self.shared.close(Some(generation)).await {
            self.renew.notify_one();
        }
    }

    /// A connection of `session`'s own, closed when the session ends.
    fn own_connection(self: &Arc<Self>, session: &Weak<Peer>) -> Result<Arc<Conn>, ClientError> {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|(peer, _)| peer.strong_count() > 0);
        if let Some((_, conn)) = sessions.iter().find(|(peer, _)| peer.ptr_eq(session)) {
            return Ok(conn.clone());
        }
        let Some(peer) = session.upgrade() else {
            return Err(ClientError::Transport("the client session ended".into()));
        };
        if sessions.len() >= self.max_sessions {
            return Err(ClientError::Server(ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                format!(
                    "the mounted server `{}` serves at most {} client sessions at once, each on a connection of \
                     its own; try again once one ends",
                    self.label, self.max_sessions
                ),
            )));
        }
        let conn = Arc::new(Conn::default());
        sessions.push((session.clone(), conn.clone()));
        let (link, ended, mine) = (Arc::downgrade(self), peer.on_end(), Arc::downgrade(&conn));
        tokio::spawn(async move {
            ended.await;
            if let Some(link) = link.upgrade() {
                lock(&link.sessions).retain(|(_, conn)| !Weak::ptr_eq(&Arc::downgrade(conn), &mine));
            }
            if let Some(conn) = mine.upgrade() {
                conn.close(None).await;
            }
        });
        Ok(conn)
    }
}
