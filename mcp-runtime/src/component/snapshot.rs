//! The immutable snapshot of one kind's enabled components that requests
//! read: sorted by key, indexed, and paged by cursors that stay right
//! across changes.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_core::ErrorObject;

use super::Kind;
use crate::error::Error;

/// One page of a list, and the cursor of the next page.
pub(crate) type Page<'a, K> = (Vec<&'a Arc<<K as Kind>::Entry>>, Option<String>);

/// What a cursor starts with; anything else is not ours.
pub(crate) const CURSOR_PREFIX: &str = "after:";

/// The enabled components of one kind, sorted by key (so a list is the
/// same on every connection and every run), immutable once built.
pub(crate) struct Snapshot<K: Kind> {
    entries: Vec<Arc<K::Entry>>,
    index: HashMap<String, usize>,
}

impl<K: Kind> Snapshot<K> {
    pub(super) fn empty() -> Self {
        Snapshot { entries: Vec::new(), index: HashMap::new() }
    }

    pub(super) fn new(mut entries: Vec<Arc<K::Entry>>) -> Result<Self, Error> {
        entries.sort_by(|a, b| K::key(a).cmp(K::key(b)));
        if let Some(pair) = entries.windows(2).find(|pair| K::key(&pair[0]) == K::key(&pair[1])) {
            return Err(K::duplicate(&pair[0], &pair[1]));
        }
        K::check_set(&entries)?;
        let index = entries.iter().enumerate().map(|(i, e)| (K::key(e).to_owned(), i)).collect();
        Ok(Snapshot { entries, index })
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Arc<K::Entry>> {
        self.index.get(key).map(|&i| &self.entries[i])
    }

    pub(crate) fn entries(&self) -> &[Arc<K::Entry>] {
        &self.entries
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
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        size: Option<usize>,
        visible: impl Fn(&K::Entry) -> bool,
    ) -> Result<Page<'_, K>, ErrorObject> {
        let start = after_cursor(&self.entries, |e| K::key(e), cursor)?;
        let mut rest = self.entries[start..].iter().filter(|e| visible(e)).peekable();
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
