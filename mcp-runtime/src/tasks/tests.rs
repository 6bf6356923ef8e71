use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_core::task::{DetailedTask, TaskStatus};

use super::*;
use crate::tasks::store::{MemoryTaskStore, TaskStoreError};
use crate::tools::BoxFuture;

/// A memory store that counts its reads.
#[derive(Default)]
struct Counting {
    store: MemoryTaskStore,
    gets: AtomicUsize,
}

impl TaskStore for Counting {
    fn create(&self, task: DetailedTask) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        self.store.create(task)
    }
    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>> {
        self.gets.fetch_add(1, Ordering::Relaxed);
        self.store.get(task_id)
    }
    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        self.store.update(task)
    }
}

fn working(id: &str) -> DetailedTask {
    crate::tasks::store::tests::task(id, TaskStatus::Working)
}

#[tokio::test]
async fn a_session_with_many_live_tasks_is_not_rescanned_on_every_create() {
    let store = Arc::new(Counting::default());
    let tasks = Tasks::new(store.clone(), Duration::from_secs(60), Duration::from_millis(100), 10);
    let count = 4 * OWNED_PRUNE_AT;
    for n in 0..count {
        let id = format!("t{n}");
        store.create(working(&id)).await.unwrap();
        tasks.own(&Arc::from("7"), &id).await;
    }
    assert_eq!(tasks.owned("7", None, usize::MAX).await.unwrap().len(), count, "live tasks stay listed");
    // Pruned at 1024, 2048 and 4096 ids at most: each scan reads every
    // id once, so the reads stay within twice the count (a scan on
    // every create past 1024 would read millions).
    let reads = store.gets.load(Ordering::Relaxed);
    assert!(reads <= 2 * count, "{reads} reads for {count} creates");
    assert!(reads >= OWNED_PRUNE_AT, "the list was pruned at least once ({reads} reads)");
}

#[tokio::test]
async fn expired_tasks_leave_a_list_the_replica_keeps_when_it_is_pruned() {
    // `Counting` keeps no owners: the replica keeps the list.
    let store = Arc::new(Counting::default());
    let tasks = Tasks::new(store.clone(), Duration::from_secs(60), Duration::from_millis(100), 10);
    let owner = Arc::from("1");
    for n in 0..OWNED_PRUNE_AT - 1 {
        let id = format!("t{n}");
        let mut task = working(&id);
        store.create(task.clone()).await.unwrap();
        // Finished with no time to live: expired at once.
        task.task.status = TaskStatus::Completed;
        task.task.ttl_ms = Some(0);
        store.update(task).await.unwrap();
        tasks.own(&owner, &id).await;
    }
    assert_eq!(tasks.owned("1", None, usize::MAX).await.unwrap().len(), OWNED_PRUNE_AT - 1);
    store.create(working("live")).await.unwrap();
    tasks.own(&owner, "live").await;
    let owned = tasks.owned("1", None, usize::MAX).await.unwrap();
    assert_eq!(owned.into_iter().map(|(_, id)| id).collect::<Vec<_>>(), ["live"]);
    assert_eq!(store.store.len(), 1, "the store dropped the expired tasks when the next was created");
    tasks.forget_session("1");
    assert!(tasks.owned("1", None, usize::MAX).await.unwrap().is_empty());
}
