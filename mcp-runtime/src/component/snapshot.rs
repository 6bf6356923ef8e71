//! The immutable snapshot of one kind's components that requests read:
//! the enabled ones and the disabled ones a caller's view may turn on
//! again, each sorted by key and indexed, paged by cursors that stay right
//! across changes.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_core::ErrorObject;

use super::Kind;
use super::versions::{self, Pins, Table};
use crate::catalog::views::{Rules, Target};
use crate::error::Error;

/// One page of a list, and the cursor of the next page.
pub(crate) type Page<'a, K> = (Vec<&'a Arc<<K as Kind>::Entry>>, Option<String>);

/// What a cursor starts with; anything else is not ours.
pub(crate) const CURSOR_PREFIX: &str = "after:";

/// The components of one kind, sorted by key (so a list is the same on
/// every connection and every run), immutable once built: the enabled
/// ones, which every caller sees, and the disabled ones, which only a
/// caller whose view turns them on sees.
pub(crate) struct Snapshot<K: Kind> {
    entries: Vec<Arc<K::Entry>>,
    index: HashMap<String, usize>,
    /// Disabled server-wide, with no enabled entry of the same key.
    dormant: Vec<Arc<K::Entry>>,
    dormant_index: HashMap<String, usize>,
    /// Every version of each key that has versions, the current ones
    /// included, oldest first: what a call that names a version reaches.
    versions: Table<K>,
}

fn sort_and_index<K: Kind>(entries: &mut [Arc<K::Entry>]) -> HashMap<String, usize> {
    entries.sort_by(|a, b| K::key(a).cmp(K::key(b)));
    entries.iter().enumerate().map(|(i, e)| (K::key(e).to_owned(), i)).collect()
}

impl<K: Kind> Snapshot<K> {
    pub(super) fn empty() -> Self {
        Snapshot {
            entries: Vec::new(),
            index: HashMap::new(),
            dormant: Vec::new(),
            dormant_index: HashMap::new(),
            versions: Table::new(),
        }
    }

    /// The snapshot of `entries` (enabled) and `dormant` (disabled), one
    /// current entry per key (the version `pins` names, else the newest;
    /// the other versions kept aside): two enabled entries with one key and
    /// one version (or none) are an error; a disabled entry whose key an
    /// enabled one has, or an earlier disabled one, is left out of lists.
    pub(super) fn new(entries: Vec<Arc<K::Entry>>, dormant: Vec<Arc<K::Entry>>, pins: &Pins) -> Result<Self, Error> {
        let mut versions = Table::new();
        let mut entries = versions::choose::<K>(entries, pins, true, true, &mut versions)?;
        let index = sort_and_index::<K>(&mut entries);
        K::check_set(&entries)?;
        let mut dormant = versions::choose::<K>(dormant, pins, false, false, &mut versions)?;
        dormant.retain(|e| !index.contains_key(K::key(e)));
        let dormant_index = sort_and_index::<K>(&mut dormant);
        Ok(Snapshot { entries, index, dormant, dormant_index, versions })
    }

    /// Whether `key` has versions: a call to it may name one.
    pub(crate) fn versioned(&self, key: &str) -> bool {
        self.versions.contains_key(key)
    }

    /// The version `version` of `key`, if a caller with `view` may reach
    /// it; else the versions it may reach, oldest first.
    pub(crate) fn version(&self, key: &str, version: &str, view: Option<&Rules>) -> Result<&Arc<K::Entry>, Vec<&str>> {
        let all = self.versions.get(key).map(Vec::as_slice).unwrap_or_default();
        let reachable = all.iter().filter(|v| Rules::sees::<K>(view, &v.entry, v.enabled));
        match reachable.clone().find(|v| K::version(&v.entry) == Some(version)) {
            Some(found) => Ok(&found.entry),
            None => Err(reachable.filter_map(|v| K::version(&v.entry)).collect()),
        }
    }

    /// The enabled entries and their other enabled versions, each once
    /// (what a call without a view may reach: to prepare or tend them all).
    pub(crate) fn every_version(&self) -> impl Iterator<Item = &Arc<K::Entry>> {
        let current = |e: &Arc<K::Entry>| self.get(K::key(e)).is_some_and(|c| Arc::ptr_eq(c, e));
        let others = self.versions.values().flatten().filter(|v| v.enabled).map(|v| &v.entry);
        let others = others.filter(move |e| !current(e));
        self.entries.iter().chain(others)
    }

    /// The enabled entry with `key`, as every caller sees it.
    pub(crate) fn get(&self, key: &str) -> Option<&Arc<K::Entry>> {
        self.index.get(key).map(|&i| &self.entries[i])
    }

    /// The entry with `key` as a caller with `view` sees it: an enabled one
    /// the view does not turn off, or a disabled one it turns on.
    pub(crate) fn find(&self, key: &str, view: Option<&Rules>) -> Option<&Arc<K::Entry>> {
        let Some(view) = view else { return self.get(key) };
        if let Some(entry) = self.get(key) {
            return view.keeps::<K>(entry, true).then_some(entry);
        }
        let entry = self.dormant_index.get(key).map(|&i| &self.dormant[i])?;
        view.keeps::<K>(entry, false).then_some(entry)
    }

    /// The enabled entries (what every caller sees).
    pub(crate) fn entries(&self) -> &[Arc<K::Entry>] {
        &self.entries
    }

    /// Every entry, enabled or not, for what must know them all (an index
    /// that each caller's view then filters).
    pub(crate) fn all(&self) -> impl Iterator<Item = &Arc<K::Entry>> {
        self.entries.iter().chain(&self.dormant)
    }

    /// Whether an entry (enabled or not) is what `target` names.
    pub(crate) fn names(&self, target: &Target) -> bool {
        match target {
            Target::Key(key) => self.index.contains_key(key) || self.dormant_index.contains_key(key),
            Target::Tag(tag) => self.all().any(|e| K::tags(e).contains(tag)),
        }
    }

    /// Whether `entry` is on for a caller with `view`.
    pub(crate) fn on_for(&self, entry: &K::Entry, view: Option<&Rules>) -> bool {
        Rules::sees::<K>(view, entry, self.index.contains_key(K::key(entry)))
    }

    /// The entries from `start` (in `entries`) and `dormant_start` (in
    /// `dormant`) on, in key order, that a caller with `view` sees.
    fn seen_from<'a>(
        &'a self,
        start: usize,
        dormant_start: usize,
        view: Option<&'a Rules>,
    ) -> Box<dyn Iterator<Item = &'a Arc<K::Entry>> + 'a> {
        let Some(view) = view else { return Box::new(self.entries[start..].iter()) };
        let mut on = self.entries[start..].iter().filter(move |e| view.keeps::<K>(e, true)).peekable();
        let mut off = self.dormant[dormant_start..].iter().filter(move |e| view.keeps::<K>(e, false)).peekable();
        Box::new(std::iter::from_fn(move || match (on.peek(), off.peek()) {
            (Some(a), Some(b)) if K::key(b) < K::key(a) => off.next(),
            (Some(_), _) => on.next(),
            (None, _) => off.next(),
        }))
    }

    /// Every entry a caller with `view` sees, in key order.
    pub(crate) fn seen<'a>(&'a self, view: Option<&'a Rules>) -> impl Iterator<Item = &'a Arc<K::Entry>> + 'a {
        self.seen_from(0, 0, view)
    }

    /// The error for a `noun` named `key` that is not here, naming the
    /// closest name `visible` keeps when one is near (a model's typo, a
    /// different case); never one the caller may not see.
    pub(crate) fn unknown(&self, noun: &str, key: &str, visible: impl Fn(&K::Entry) -> bool) -> ErrorObject {
        let near = self
            .entries
            .iter()
            .filter(|e| visible(e))
            .map(|e| (strsim::osa_distance(&key.to_lowercase(), &K::key(e).to_lowercase()), K::key(e)))
            .filter(|(d, k)| *d <= (k.len().max(key.len()) / 3).max(1))
            .min_by_key(|(d, _)| *d);
        ErrorObject::invalid_params(match near {
            Some((_, near)) => format!("unknown {noun}: {key} (did you mean `{near}`?)"),
            None => format!("unknown {noun}: {key}"),
        })
    }

    /// The page after `cursor` of the entries `visible` keeps, of at most
    /// `size` entries (all without a size), and the cursor of the next
    /// page. A cursor names the last key of the previous page, so paging
    /// stays right while entries come and go; filtering before paging
    /// keeps pages full when a token may see only some entries.
    /// A caller's `view` adds the disabled entries it turns on, and takes
    /// away the enabled ones it turns off.
    pub(crate) fn page<'a>(
        &'a self,
        cursor: Option<&str>,
        size: Option<usize>,
        view: Option<&'a Rules>,
        visible: impl Fn(&K::Entry) -> bool,
    ) -> Result<Page<'a, K>, ErrorObject> {
        let start = after_cursor(&self.entries, |e| K::key(e), cursor)?;
        let dormant_start = after_cursor(&self.dormant, |e| K::key(e), cursor)?;
        let mut rest = self.seen_from(start, dormant_start, view).filter(|e| visible(e)).peekable();
        let page: Vec<&Arc<K::Entry>> = rest.by_ref().take(size.unwrap_or(usize::MAX)).collect();
        let next = match (page.last(), rest.peek()) {
            (Some(last), Some(_)) => Some(format!("{CURSOR_PREFIX}{}", K::key(last))),
            _ => None,
        };
        Ok((page, next))
    }
}

/// Where the page after `cursor` starts in `items` (sorted by `key`): a
/// cursor names the last key of the previous page.
pub(crate) fn after_cursor<T>(
    items: &[T],
    key: impl Fn(&T) -> &str,
    cursor: Option<&str>,
) -> Result<usize, ErrorObject> {
    let Some(cursor) = cursor else { return Ok(0) };
    let after = cursor
        .strip_prefix(CURSOR_PREFIX)
        .ok_or_else(|| ErrorObject::invalid_params(format!("invalid cursor {cursor:?}")))?;
    Ok(items.partition_point(|item| key(item) <= after))
}
