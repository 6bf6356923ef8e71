//! Versions: one name served in several versions side by side
//! (`#[tool(version = "2")]`), carried in `_meta.version` so that a
//! mounted server's versions read the same. Per name a snapshot keeps one
//! current entry (the pinned version, else the newest), which lists, calls
//! and searches see; the others wait in a side table for a call that names
//! its version.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use mcp_core::{ErrorObject, JsonObject};

use super::{Catalog, Item, Kind, Sources};
use crate::error::Error;

/// The key of a component's version under `_meta`.
pub(crate) const META_KEY: &str = "version";

/// Set `meta`'s `_meta.version`.
pub(crate) fn set(meta: &mut Option<JsonObject>, version: &str) {
    meta.get_or_insert_with(JsonObject::new).insert(META_KEY.to_owned(), version.into());
}

/// A component's version: `_meta.version` when it is a string that is not
/// blank; none otherwise.
pub(crate) fn of(meta: Option<&JsonObject>) -> Option<String> {
    let version = meta?.get(META_KEY)?.as_str()?;
    (!version.trim().is_empty()).then(|| version.to_owned())
}

/// The version a call's `_meta.version` names, if it names one; an error
/// if it is not a string. The one reading of a call's version: admission
/// refuses the error, and a proxied tool passes the version on.
pub(crate) fn named(meta: Option<&JsonObject>) -> Option<Result<&str, ErrorObject>> {
    let version = meta?.get(META_KEY)?;
    Some(version.as_str().ok_or_else(|| {
        let kind = mcp_core::jsonrpc::kind_of(version);
        ErrorObject::invalid_params(format!(
            "`_meta.version` names a tool's version as a string, such as \"2\", not {kind}"
        ))
    }))
}

/// One part of a version: a number, or text (after every number).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Part<'a> {
    Number(u64),
    Text(&'a str),
}

fn parts(version: &str) -> Vec<Part<'_>> {
    version.split('.').map(|part| part.parse().map_or(Part::Text(part), Part::Number)).collect()
}

/// Which of two versions is newer: dotted numbers compare as numbers, part
/// by part ("10" > "9", "1.10" > "1.9", "2" < "2.1"); a part that is not a
/// number compares as text, after any number; two versions equal so far
/// compare as text, so the order is total. No version is older than any.
pub(crate) fn compare(a: Option<&str>, b: Option<&str>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => parts(a).cmp(&parts(b)).then_with(|| a.cmp(b)),
    }
}

/// A name's version that a call may name, and whether the server offers
/// it (a caller's view may still turn it on or off).
pub(crate) struct Versioned<K: Kind> {
    pub(crate) entry: Arc<K::Entry>,
    pub(crate) enabled: bool,
}

/// Every versioned entry, enabled or not, by key, oldest first.
pub(crate) type Table<K> = HashMap<String, Vec<Versioned<K>>>;

/// Pinned versions: the version to make current, by key.
pub(crate) type Pins = BTreeMap<String, String>;

/// One entry per key from `list`: the pinned version if `pins` names one
/// it has, else the newest. The rest are added to `table` (as `enabled`),
/// with the chosen ones if they have a version. Two entries with one key
/// and one version (or none) are an error when `strict`; otherwise the
/// later is left out.
pub(crate) fn choose<K: Kind>(
    mut list: Vec<Arc<K::Entry>>,
    pins: &Pins,
    enabled: bool,
    strict: bool,
    table: &mut Table<K>,
) -> Result<Vec<Arc<K::Entry>>, Error> {
    // Stable: of two with one key and version, the first registered stays.
    list.sort_by(|a, b| K::key(a).cmp(K::key(b)).then_with(|| compare(K::version(a), K::version(b))));
    let mut chosen = Vec::with_capacity(list.len());
    let mut group: Vec<Arc<K::Entry>> = Vec::new();
    let mut rest = list.into_iter().peekable();
    while let Some(entry) = rest.next() {
        match group.last() {
            Some(last) if K::version(last) == K::version(&entry) => {
                if strict {
                    return Err(K::duplicate(last, &entry));
                }
            }
            _ => group.push(entry),
        }
        if rest.peek().is_none_or(|next| K::key(next) != K::key(&group[0])) {
            let key = K::key(&group[0]).to_owned();
            let pinned = pins.get(&key).and_then(|pin| group.iter().position(|e| K::version(e) == Some(pin)));
            let current = pinned.unwrap_or(group.len() - 1);
            chosen.push(group[current].clone());
            let mut versioned = group.drain(..).filter(|e| K::version(e).is_some()).peekable();
            if versioned.peek().is_some() {
                let versions = table.entry(key).or_default();
                versions.extend(versioned.map(|entry| Versioned { entry, enabled }));
                versions.sort_by(|a, b| compare(K::version(&a.entry), K::version(&b.entry)));
            }
        }
    }
    Ok(chosen)
}

/// How a call names a version that `key` does not have, or that its
/// caller may not reach: with the versions it may call.
pub(crate) fn unknown(noun: &str, key: &str, version: &str, reachable: &[&str]) -> String {
    if reachable.is_empty() {
        return format!("{noun} `{key}` has no version \"{version}\"; call it without `_meta.version`");
    }
    let list = reachable.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", ");
    format!("{noun} `{key}` has no version \"{version}\"; its versions: {list}")
}

impl<K: Kind> Sources<K> {
    /// Make `version` the current one of `key` (`Server::pin_version`).
    pub(crate) fn pin(&mut self, key: &str, version: &str) {
        self.pins.insert(key.to_owned(), version.to_owned());
    }

    /// Every pin names a version its key has (the key must be registered
    /// unless `later`). Only tools have versions, so only they are pinned.
    fn check_pins(&self, later: bool) -> Result<(), Error> {
        for (key, version) in &self.pins {
            let versions = self.versions(key);
            let registered = self.items.iter().any(|item| &item.key() == key);
            if !versions.contains(version) && (registered || !later) {
                return Err(Error::UnknownVersion { tool: key.clone(), version: version.clone(), versions });
            }
        }
        Ok(())
    }

    /// The versions registered under `key`, oldest first.
    fn versions(&self, key: &str) -> Vec<String> {
        let mut versions: Vec<String> =
            self.items.iter().filter(|item| item.key() == key).filter_map(Item::version).collect();
        versions.sort_by(|a, b| compare(Some(a), Some(b)));
        versions.dedup();
        versions
    }
}

impl<K: Kind> Catalog<K> {
    /// The start-up check of pins: each names a version registered under
    /// its key; one whose key nothing registers yet is an error too,
    /// unless `later` (a mount may bring it). While the server runs, a pin
    /// whose version is gone leaves the newest current.
    pub(crate) fn check_pins(&self, later: bool) -> Result<(), Error> {
        self.sources().check_pins(later)
    }

    /// Make `version` of `key` its current one (listed and called without
    /// a version); `false` if no registration of `key` has that version.
    pub(crate) fn pin_version(&self, key: &str, version: &str) -> bool {
        self.change(|sources| {
            sources.versions(key).iter().any(|v| v == version)
                && sources.pins.insert(key.to_owned(), version.to_owned()).as_deref() != Some(version)
        })
        .unwrap_or(false)
    }

    /// Make the newest version of `key` current again; `false` if it was
    /// not pinned.
    pub(crate) fn unpin_version(&self, key: &str) -> bool {
        self.change(|sources| sources.pins.remove(key).is_some()).unwrap_or(false)
    }

    /// The versions registered under `key`, enabled or not, oldest first.
    pub(crate) fn versions(&self, key: &str) -> Vec<String> {
        self.sources().versions(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_numbers_compare_as_numbers_and_no_version_is_oldest() {
        let newer = |a: &str, b: &str| compare(Some(a), Some(b)) == Ordering::Greater;
        assert!(newer("10", "9"));
        assert!(newer("1.10", "1.9"));
        assert!(newer("2.1", "2"));
        assert!(newer("2", "1.99"));
        assert!(newer("beta", "9"), "text comes after numbers");
        assert!(newer("b", "a"));
        assert!(newer("1.0", "1"));
        assert_eq!(compare(Some("1.0"), Some("1.0")), Ordering::Equal);
        assert_eq!(compare(None, Some("0")), Ordering::Less);
        assert_eq!(compare(None, None), Ordering::Equal);
        // A total order: sorting any mix gives one answer.
        let mut mixed = ["10", "9", "1a", "1.2", "x", "1.10"];
        mixed.sort_by(|a, b| compare(Some(a), Some(b)));
        assert_eq!(mixed, ["1.2", "1.10", "9", "10", "1a", "x"]);
    }

    #[test]
    fn a_version_is_read_back_and_a_blank_one_is_none() {
        let mut meta = None;
        set(&mut meta, "2");
        assert_eq!(of(meta.as_ref()).as_deref(), Some("2"));
        set(&mut meta, " ");
        assert_eq!(of(meta.as_ref()), None);
        assert_eq!(of(None), None);
    }
}
