//! News every replica hears: a list that changed and a resource that was
//! updated reach the clients of every replica, not only those connected
//! to the one where the change happened; a session ended on one replica
//! ends on all.

use std::sync::{Arc, Weak};

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use super::{StoreFuture, ready};
pub(crate) use crate::component::announce::Announcement;
use crate::component::announce::{Announcer, ListKind};
use crate::transport::http::sessions::Sessions;

/// How replicas tell each other of changes: a channel every replica
/// publishes to and hears (Redis pub/sub in `RedisStore`, with the `redis`
/// feature).
/// A replica hears its own messages too; the runtime skips them.
///
/// Announcements fan out; lists do not. A list changed at run time must be
/// changed on every replica (say, by each one from a shared database) for
/// them to answer alike; the fan-out makes sure every client hears of it.
pub trait Fanout: Send + Sync + 'static {
    /// Send `message` to every replica.
    fn publish<'a>(&'a self, message: &'a [u8]) -> StoreFuture<'a, ()>;

    /// Every message published from now on, until the stream ends (the
    /// connection to the channel dropped: the runtime subscribes again).
    fn subscribe(&self) -> StoreFuture<'_, BoxStream<'static, Vec<u8>>>;
}

/// A [`Fanout`] within one process: for several endpoints in one process
/// (and tests of what replicas do). Its clones share one channel.
#[derive(Clone, Debug)]
pub struct LocalFanout(broadcast::Sender<Vec<u8>>);

impl Default for LocalFanout {
    fn default() -> Self {
        LocalFanout(broadcast::channel(1024).0)
    }
}

impl Fanout for LocalFanout {
    fn publish<'a>(&'a self, message: &'a [u8]) -> StoreFuture<'a, ()> {
        let _ = self.0.send(message.to_vec());
        ready(())
    }

    fn subscribe(&self) -> StoreFuture<'_, BoxStream<'static, Vec<u8>>> {
        let receiver = self.0.subscribe();
        let messages = futures_util::stream::unfold(receiver, |mut receiver| async move {
            loop {
                match receiver.recv().await {
                    Ok(message) => return Some((message, receiver)),
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        });
        ready(messages.boxed())
    }
}

/// What one replica tells the others.
pub(crate) enum News {
    /// A change its server announced.
    Announced(Announcement),
    /// A session ended there (DELETE): it must not go on elsewhere.
    Ended(String),
}

/// News on the wire: who sent it, and what happened.
#[derive(Default, Serialize, Deserialize)]
struct Wire {
    from: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    list: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ended: Option<String>,
}

fn list_name(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tools",
        ListKind::Resources => "resources",
        ListKind::Prompts => "prompts",
    }
}

fn list_kind(name: &str) -> Option<ListKind> {
    ListKind::ALL.into_iter().find(|kind| list_name(*kind) == name)
}

/// Connect this replica to the others through `fanout`: what its
/// `announcer` announces is published, and what others publish reaches its
/// listeners and `sessions`. Returns where to send news of its own. Runs
/// as long as the announcer lives.
pub(crate) fn connect(
    announcer: &Arc<Announcer>,
    sessions: Weak<Sessions>,
    fanout: Arc<dyn Fanout>,
) -> mpsc::UnboundedSender<News> {
    let me = uuid::Uuid::new_v4().simple().to_string();
    let (news, mut outbox) = mpsc::unbounded_channel::<News>();
    let relay = news.clone();
    announcer.relay_to(Box::new(move |announcement| {
        let _ = relay.send(News::Announced(announcement));
    }));
    let from = me.clone();
    let publisher = fanout.clone();
    tokio::spawn(async move {
        while let Some(news) = outbox.recv().await {
            let mut wire = Wire { from: from.clone(), ..Wire::default() };
            match news {
                News::Announced(Announcement::List(kind)) => wire.list = Some(list_name(kind).into()),
                News::Announced(Announcement::Updated(uri)) => wire.updated = Some(uri),
                News::Ended(id) => wire.ended = Some(id),
            }
            let bytes = serde_json::to_vec(&wire).expect("news serializes");
            if let Err(error) = publisher.publish(&bytes).await {
                tracing::warn!(%error, "could not tell the other replicas of a change");
            }
        }
    });
    let announcer = Arc::downgrade(announcer);
    tokio::spawn(async move {
        let mut delay = std::time::Duration::from_millis(100);
        loop {
            match fanout.subscribe().await {
                Ok(mut messages) => {
                    delay = std::time::Duration::from_millis(100);
                    while let Some(message) = messages.next().await {
                        let Some(announcer) = announcer.upgrade() else { return };
                        let Ok(wire) = serde_json::from_slice::<Wire>(&message) else { continue };
                        if wire.from == me {
                            continue;
                        }
                        if let Some(kind) = wire.list.as_deref().and_then(list_kind) {
                            announcer.deliver(&Announcement::List(kind));
                        }
                        if let Some(uri) = wire.updated {
                            announcer.deliver(&Announcement::Updated(uri));
                        }
                        if let Some((id, sessions)) = wire.ended.zip(sessions.upgrade()) {
                            sessions.remove(&id);
                        }
                    }
                }
                Err(error) => tracing::warn!(%error, "could not hear the other replicas' news; retrying"),
            }
            if announcer.strong_count() == 0 {
                return;
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(std::time::Duration::from_secs(5));
        }
    });
    news
}
