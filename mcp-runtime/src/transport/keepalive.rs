//! Keep-alive on a long-lived connection: a `ping` to the client every
//! interval once its handshake is done, and the connection ended when one
//! goes unanswered past its deadline. One ping is out at a time, and the
//! watch lives and dies with the connection's loop.

use std::time::Duration;

use crate::client::Client;
use crate::dispatch::Session;

/// How often to ping, and how long an answer may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeepAlive {
    pub(crate) interval: Duration,
    pub(crate) deadline: Duration,
}

/// Resolves when the client of `session` failed to answer a ping in time;
/// never without `keep_alive`, before the handshake, or in an era without
/// `ping`.
pub(crate) async fn watch(keep_alive: Option<KeepAlive>, session: &Session) {
    let Some(KeepAlive { interval, deadline }) = keep_alive else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(interval).await;
        let Some(negotiated) = session.negotiated.get().filter(|n| n.version.uses_handshake()) else {
            continue;
        };
        let client = Client {
            peer: Some(negotiated.peer.clone()),
            stream: None,
            missing_capability: Default::default(),
            rounds: None,
            task: None,
        };
        if !client.ping(session.outgoing.clone(), deadline).await {
            tracing::warn!(?deadline, "the client did not answer a ping in time; ending the connection");
            return;
        }
    }
}
