//! Tasks in the Redis replicas share (`RedisStore` as a [`TaskStore`]):
//! each task a hash beside a lease its replica renews, signals on a
//! pub/sub channel. A task whose lease ran out is `failed`: the replica
//! running it stopped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use mcp_core::ErrorObject;
use mcp_core::task::{DetailedTask, TaskStatus};
use redis::AsyncCommands;
use redis::aio::ConnectionManager;

use super::{OwnedTasks, TaskSignal, TaskStore, TaskStoreError};
use crate::tools::BoxFuture;
use crate::transport::http::RedisStore;
use crate::transport::http::redis_within as within;

/// Why a task whose lease ran out failed.
const STOPPED: &str = "the server running this task stopped";

/// Replace a task unless it is terminal or gone; when asked, only if its
/// lease ran out (a reader failing a task its replica abandoned).
/// KEYS: task, lease. ARGV: json, terminal (0|1), ttl ms, leaseless (0|1).
const UPDATE: &str = r"
if redis.call('HGET', KEYS[1], 'terminal') ~= '0' then return 0 end
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'terminal', ARGV[2])
if ARGV[2] == '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('DEL', KEYS[2])
end
return 1
";

/// Renew a running task's lease, and keep its record while it is renewed.
/// KEYS: task, lease. ARGV: lease ms, record ms.
const RENEW: &str = r"
if redis.call('HGET', KEYS[1], 'terminal') ~= '0' then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
";

/// Note a task as its owner's newest, under a position that only grows.
/// KEYS: owner's list, the positions' counter. ARGV: task id, list ms.
const OWN: &str = r"
local position = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], position, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
";

/// How long a session's list of its tasks is kept after a task was last
/// put on it or it was last read.
const OWNED_KEPT: Duration = Duration::from_secs(24 * 3600);

/// The leases of the tasks this process runs, renewed every third of a
/// lease while they run.
pub(crate) struct Leases {
    lease: Duration,
    /// Task id → how long its record is kept past a renewal, in ms.
    held: Mutex<HashMap<String, u64>>,
    renewing: OnceLock<()>,
}

impl Leases {
    pub(crate) fn new(lease: Duration) -> Arc<Leases> {
        Arc::new(Leases { lease, held: Mutex::default(), renewing: OnceLock::new() })
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, u64>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lease_ms(&self) -> u64 {
        millis(self.lease)
    }
}

impl RedisStore {
    /// How long a task's lease lasts (10 seconds by default): the replica
    /// running a task renews it every third of that, and a task whose
    /// lease ran out (its replica stopped) is `failed` to whoever reads
    /// it. Replicas sharing tasks should agree on it.
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.leases = Leases::new(lease.max(Duration::from_millis(30)));
        self
    }

    fn task_key(&self, id: &str) -> String {
        format!("{}:task:{id}", self.prefix)
    }

    fn lease_key(&self, id: &str) -> String {
        format!("{}:task-lease:{id}", self.prefix)
    }

    fn owner_key(&self, owner: &str) -> String {
        format!("{}:task-owner:{owner}", self.prefix)
    }

    fn task_channel(&self) -> String {
        format!("{}:tasks", self.prefix)
    }

    /// Renew this process's leases from now on (once).
    fn renew_leases(&self) {
        self.leases.renewing.get_or_init(|| {
            let (leases, connection, prefix) =
                (Arc::downgrade(&self.leases), self.connection.clone(), self.prefix.clone());
            tokio::spawn(renew(leases, connection, prefix, self.timeout));
        });
    }

    /// `UPDATE` for `task`; whether it was written.
    async fn replace(&self, task: &DetailedTask, leaseless: bool) -> Result<bool, TaskStoreError> {
        let id = &task.task.task_id;
        let terminal = task.task.status.is_terminal();
        let mut update = redis::cmd("EVAL");
        update
            .arg(UPDATE)
            .arg(2)
            .arg(self.task_key(id))
            .arg(self.lease_key(id))
            .arg(json(task)?)
            .arg(u8::from(terminal))
            .arg(task.task.ttl_ms.unwrap_or(0).max(1))
            .arg(u8::from(leaseless));
        let written: i64 = self.within(update.query_async(&mut self.connection.clone())).await.map_err(unavailable)?;
        if terminal {
            self.leases.held().remove(id);
        }
        Ok(written == 1)
    }

    async fn read(&self, id: &str) -> Result<Option<(DetailedTask, bool)>, TaskStoreError> {
        let mut pipe = redis::pipe();
        pipe.hget(self.task_key(id), "json").hget(self.task_key(id), "terminal").exists(self.lease_key(id));
        let (json, terminal, leased): (Option<Vec<u8>>, Option<String>, bool) =
            self.within(pipe.query_async(&mut self.connection.clone())).await.map_err(unavailable)?;
        let Some(json) = json else { return Ok(None) };
        let task = serde_json::from_slice(&json)
            .map_err(|e| TaskStoreError::Unavailable(format!("a kept task is not a task: {e}")))?;
        Ok(Some((task, terminal.as_deref() == Some("0") && !leased)))
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn unavailable(error: redis::RedisError) -> TaskStoreError {
    TaskStoreError::Unavailable(error.to_string())
}

fn json(task: &DetailedTask) -> Result<Vec<u8>, TaskStoreError> {
    serde_json::to_vec(task).map_err(|e| TaskStoreError::Unavailable(e.to_string()))
}

/// `task`, failed because the replica running it stopped.
fn abandoned(mut task: DetailedTask) -> DetailedTask {
    task.task.status = TaskStatus::Failed;
    task.task.status_message = Some(STOPPED.to_owned());
    task.task.last_updated_at = super::now();
    task.input_requests = None;
    task.error = Some(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, STOPPED));
    task
}

/// Renew the leases of the tasks this process runs, while its stores live;
/// a task found terminal (ended, or cancelled elsewhere) is let go.
async fn renew(leases: Weak<Leases>, mut connection: ConnectionManager, prefix: String, timeout: Duration) {
    loop {
        let (lease, held) = {
            let Some(leases) = leases.upgrade() else { return };
            (leases.lease_ms(), leases.held().clone())
        };
        tokio::time::sleep(Duration::from_millis(lease / 3)).await;
        let mut ended = Vec::new();
        for (id, record) in held {
            let mut renewal = redis::cmd("EVAL");
            renewal
                .arg(RENEW)
                .arg(2)
                .arg(format!("{prefix}:task:{id}"))
                .arg(format!("{prefix}:task-lease:{id}"))
                .arg(lease)
                .arg(record);
            // Bounded, so one Redis outage does not hold up the renewals
            // after it for the whole reconnection.
            let renewed: Result<i64, _> = within(timeout, renewal.query_async(&mut connection)).await;
            match renewed {
                Ok(0) => ended.push(id),
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "a running task's lease could not be renewed"),
            }
        }
        if let Some(leases) = leases.upgrade() {
            let mut held = leases.held();
            ended.iter().for_each(|id| _ = held.remove(id));
        }
    }
}

/// Tasks kept in Redis, so every replica sharing it answers for every
/// task. A task is a hash (`<prefix>:task:<id>`) with a lease
/// (`<prefix>:task-lease:<id>`) the replica running it renews (see
/// [`task_lease`](RedisStore::task_lease)); a running task's record is
/// kept while its lease is renewed, and a terminal one for its `ttlMs`.
/// Updates and cancellations that reach another replica are published on
/// `<prefix>:tasks`. Each session's 2025-11-25 tasks are a sorted set
/// (`<prefix>:task-owner:<session id>`), kept a day past its last use.
impl TaskStore for RedisStore {
    fn create(&self, task: DetailedTask) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let id = task.task.task_id.clone();
            let (lease, ttl) = (self.leases.lease_ms(), task.task.ttl_ms.unwrap_or(0).max(1));
            let terminal = task.task.status.is_terminal();
            let record = if terminal { ttl } else { ttl.saturating_add(lease) };
            let mut pipe = redis::pipe();
            pipe.atomic()
                .hset_multiple(
                    self.task_key(&id),
                    &[("json", json(&task)?), ("terminal", vec![b'0' + u8::from(terminal)])],
                )
                .ignore()
                .pexpire(self.task_key(&id), i64::try_from(record).unwrap_or(i64::MAX))
                .ignore();
            if !terminal {
                pipe.pset_ex(self.lease_key(&id), "1", lease).ignore();
            }
            self.within(pipe.query_async::<()>(&mut self.connection.clone())).await.map_err(unavailable)?;
            if !terminal {
                self.leases.held().insert(id, record);
                self.renew_leases();
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>> {
        Box::pin(async move {
            let Some((task, lost)) = self.read(task_id).await? else { return Ok(None) };
            if !lost {
                return Ok(Some(task));
            }
            let failed = abandoned(task);
            if self.replace(&failed, true).await? {
                return Ok(Some(failed));
            }
            // It ended (or its replica renewed late) as we read it.
            Ok(self.read(task_id).await?.map(|(task, _)| task))
        })
    }

    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        Box::pin(async move { self.replace(&task, false).await })
    }

    fn signal(&self, signal: TaskSignal) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let message = serde_json::to_vec(&signal).map_err(|e| TaskStoreError::Unavailable(e.to_string()))?;
            let mut connection = self.connection.clone();
            self.within(connection.publish::<_, _, ()>(self.task_channel(), message)).await.map_err(unavailable)
        })
    }

    fn own<'a>(&'a self, owner: &'a str, task_id: &'a str) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        Box::pin(async move {
            let mut own = redis::cmd("EVAL");
            own.arg(OWN)
                .arg(2)
                .arg(self.owner_key(owner))
                .arg(format!("{}:task-owner-last", self.prefix))
                .arg(task_id)
                .arg(millis(OWNED_KEPT));
            let count: usize = self.within(own.query_async(&mut self.connection.clone())).await.map_err(unavailable)?;
            Ok(Some(count))
        })
    }

    fn owned<'a>(
        &'a self,
        owner: &'a str,
        after: Option<u64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Option<OwnedTasks>, TaskStoreError>> {
        Box::pin(async move {
            let key = self.owner_key(owner);
            let from = after.map_or_else(|| "-inf".to_owned(), |after| format!("({after}"));
            // A negative count is "all of them".
            let count = i64::try_from(limit).unwrap_or(-1);
            let mut pipe = redis::pipe();
            pipe.cmd("ZRANGEBYSCORE")
                .arg(&key)
                .arg(from)
                .arg("+inf")
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(0)
                .arg(count)
                .pexpire(&key, i64::try_from(millis(OWNED_KEPT)).unwrap_or(i64::MAX))
                .ignore();
            let (owned,): (Vec<(String, u64)>,) =
                self.within(pipe.query_async(&mut self.connection.clone())).await.map_err(unavailable)?;
            Ok(Some(owned.into_iter().map(|(id, position)| (position, id)).collect()))
        })
    }

    fn disown<'a>(&'a self, owner: &'a str, task_ids: &'a [String]) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            self.within(connection.zrem::<_, _, ()>(self.owner_key(owner), task_ids)).await.map_err(unavailable)
        })
    }

    fn signals(&self) -> BoxFuture<'_, Result<Option<BoxStream<'static, TaskSignal>>, TaskStoreError>> {
        Box::pin(async move {
            let mut pubsub = self.within(self.client.get_async_pubsub()).await.map_err(unavailable)?;
            self.within(pubsub.subscribe(self.task_channel())).await.map_err(unavailable)?;
            let signals = pubsub
                .into_on_message()
                .filter_map(|message| std::future::ready(serde_json::from_slice(message.get_payload_bytes()).ok()));
            Ok(Some(signals.boxed()))
        })
    }
}
