//! Which session created which tasks, for 2025-11-25's `tasks/list` (a
//! client lists its own tasks only): kept in memory, by
//! [`MemoryTaskStore`](super::MemoryTaskStore) for every server sharing it,
//! and by the runtime itself for a store that keeps no owners.

use std::collections::{BTreeMap, HashMap, HashSet};

/// Each owner's task ids in the order they were noted, under positions
/// that only grow, so a `tasks/list` cursor (a position) still points at
/// the right place after tasks before it are gone.
#[derive(Debug, Default)]
pub(crate) struct Owners {
    /// The last position given out, across owners.
    last: u64,
    lists: HashMap<String, BTreeMap<u64, String>>,
}

impl Owners {
    /// Note `task_id` as `owner`'s newest task: its position, and how many
    /// tasks `owner` has noted now.
    pub(crate) fn own(&mut self, owner: &str, task_id: &str) -> (u64, usize) {
        self.last += 1;
        let list = match self.lists.get_mut(owner) {
            Some(list) => list,
            None => self.lists.entry(owner.to_owned()).or_default(),
        };
        list.insert(self.last, task_id.to_owned());
        (self.last, list.len())
    }

    /// How many tasks `owner` has noted.
    pub(crate) fn count(&self, owner: &str) -> usize {
        self.lists.get(owner).map_or(0, BTreeMap::len)
    }

    /// Up to `limit` of `owner`'s tasks after position `after`, oldest
    /// first, with their positions.
    pub(crate) fn owned(&self, owner: &str, after: Option<u64>, limit: usize) -> super::OwnedTasks {
        let Some(list) = self.lists.get(owner) else { return Vec::new() };
        let from = after.map_or(0, |after| after.saturating_add(1));
        list.range(from..).take(limit).map(|(position, id)| (*position, id.clone())).collect()
    }

    /// Forget the tasks `task_ids` of `owner` (they are gone).
    pub(crate) fn disown(&mut self, owner: &str, task_ids: &[String]) {
        // A pruning may name thousands: no scan of them per task.
        let gone: HashSet<&str> = task_ids.iter().map(String::as_str).collect();
        self.change(owner, |list| list.retain(|_, id| !gone.contains(id.as_str())));
    }

    /// Forget the task at `position` of `owner`'s list.
    pub(crate) fn remove(&mut self, owner: &str, position: u64) {
        self.change(owner, |list| _ = list.remove(&position));
    }

    /// Take tasks off `owner`'s list, and forget `owner` once it has none.
    fn change(&mut self, owner: &str, take: impl FnOnce(&mut BTreeMap<u64, String>)) {
        if let Some(list) = self.lists.get_mut(owner) {
            take(list);
            if list.is_empty() {
                self.lists.remove(owner);
            }
        }
    }

    /// Forget all of `owner`'s tasks.
    pub(crate) fn forget(&mut self, owner: &str) {
        self.lists.remove(owner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_keep_their_place_when_tasks_before_them_go() {
        let mut owners = Owners::default();
        let (first, _) = owners.own("a", "t1");
        owners.own("b", "u1");
        let (second, count) = owners.own("a", "t2");
        owners.own("a", "t3");
        assert_eq!(count, 2);
        assert_eq!(owners.owned("a", None, 2), [(first, "t1".to_owned()), (second, "t2".to_owned())]);
        // The page's cursor is `second`; `t1` going does not move `t3`.
        owners.disown("a", &["t1".to_owned()]);
        let rest = owners.owned("a", Some(second), 10);
        assert_eq!(rest.iter().map(|(_, id)| id.as_str()).collect::<Vec<_>>(), ["t3"]);
        assert_eq!(owners.owned("b", None, 10).len(), 1, "owners are apart");
        owners.disown("a", &["t2".to_owned(), "t3".to_owned()]);
        assert!(!owners.lists.contains_key("a"), "an owner with no tasks is forgotten");
        owners.forget("b");
        assert!(owners.lists.is_empty());
    }
}
