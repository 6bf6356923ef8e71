//! What every listable kind of thing (tools, resources, templates and
//! prompts) shares: the catalog of what was registered and what is
//! disabled, changes at run time, the immutable snapshot requests read
//! (sorted, paged by cursors that stay right across changes), and the
//! `list_changed` announcements.

pub(crate) mod announce;
mod handle;
pub(crate) mod list;
pub(crate) mod snapshot;
pub(crate) mod tags;
pub(crate) mod versions;

pub(crate) use handle::catalog_handle;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use mcp_core::ProtocolVersion;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::request::state::StateMap;
use announce::{Announcer, ListKind};
pub(crate) use snapshot::Snapshot;

/// One kind of component: how an entry is built from what a user
/// registered, and what names it.
pub(crate) trait Kind: Send + Sync + Sized + 'static {
    /// What users register (`dyn Tool`).
    type Source: ?Sized + Send + Sync;
    /// One registered thing, built and ready to serve.
    type Entry: Send + Sync;
    /// How the server presents this kind (set before it starts).
    type Options: Send;

    /// The list whose changes are announced.
    const LIST: ListKind;

    /// The key (a tool's name) of a source not yet built.
    fn source_key(source: &Self::Source) -> String;

    /// Build one entry: check it against the server's state, shape and
    /// project it.
    fn build(source: &Arc<Self::Source>, options: &Self::Options, states: &StateMap) -> Result<Self::Entry, Error>;

    /// An entry's key: unique in a server, and the list's sort order.
    fn key(entry: &Self::Entry) -> &str;

    /// The error for two entries with one key.
    fn duplicate(first: &Self::Entry, second: &Self::Entry) -> Error;

    /// The entry as `version` lists it, serialized when it was built.
    fn listed(entry: &Self::Entry, version: mcp_core::ProtocolVersion) -> &serde_json::value::RawValue;

    /// The scopes an access token needs to see and use the entry.
    fn scopes(entry: &Self::Entry) -> &[String];

    /// The entry's tags (`_meta.tags`).
    fn tags(entry: &Self::Entry) -> Vec<String>;

    /// The entry's version (`_meta.version`), if it has one: entries with
    /// one key and different versions are served side by side.
    fn version(entry: &Self::Entry) -> Option<&str> {
        let _ = entry;
        None
    }

    /// The version of a source not yet built.
    fn source_version(source: &Self::Source) -> Option<String> {
        let _ = source;
        None
    }

    /// Whether `request` may see the entry: its token grants the scopes (a
    /// kind may hide more, such as tools for views from clients without
    /// them).
    fn visible(entry: &Self::Entry, request: &crate::dispatch::Incoming<'_>) -> bool {
        request.may_use(Self::scopes(entry))
    }

    /// Whether a list shows the entry to `request` (what it may see, less
    /// what a catalog transform keeps out of lists).
    fn listed_to(entry: &Self::Entry, request: &crate::dispatch::Incoming<'_>) -> bool {
        Self::visible(entry, request)
    }

    /// Check the whole set, sorted by key (nothing to check by default).
    fn check_set(entries: &[Arc<Self::Entry>]) -> Result<(), Error> {
        let _ = entries;
        Ok(())
    }
}

/// One registration, and its entry once built (kept across changes, so a
/// change rebuilds nothing else: rate-limit allowances and computed schemas
/// of the others survive).
struct Item<K: Kind> {
    source: Arc<K::Source>,
    built: Option<Arc<K::Entry>>,
    /// The mount it came from, by its place among the server's mounts;
    /// `None` for the server's own.
    rank: Option<usize>,
}

impl<K: Kind> Clone for Item<K> {
    fn clone(&self) -> Self {
        Item { source: self.source.clone(), built: self.built.clone(), rank: self.rank }
    }
}

impl<K: Kind> Item<K> {
    fn key(&self) -> String {
        match &self.built {
            Some(entry) => K::key(entry).to_owned(),
            None => K::source_key(&self.source),
        }
    }

    fn version(&self) -> Option<String> {
        match &self.built {
            Some(entry) => K::version(entry).map(str::to_owned),
            None => K::source_version(&self.source),
        }
    }
}

/// Everything a [`Snapshot`] is built from.
pub(crate) struct Sources<K: Kind> {
    items: Vec<Item<K>>,
    /// What each mount offers, by rank, with the mount's name: the items
    /// of the mounts are made from these in rank order, so a name two
    /// mounts offer goes to the earlier one whichever upstream answers
    /// first.
    #[cfg(feature = "proxy")]
    mounted: std::collections::BTreeMap<usize, (String, Vec<Item<K>>)>,
    disabled: BTreeSet<String>,
    /// Tags whose components are not offered (`disable_tagged`).
    disabled_tags: BTreeSet<String>,
    /// The version each pinned key serves as its current one.
    pins: versions::Pins,
    options: K::Options,
    /// Whether the set may change while the server runs (a handle exists).
    dynamic: bool,
}

impl<K: Kind> Sources<K> {
    fn offered(&self) -> bool {
        self.dynamic || !self.items.is_empty()
    }

    pub(crate) fn push(&mut self, source: Arc<K::Source>) {
        self.items.push(Item { source, built: None, rank: None });
    }

    /// The options, to change before the server starts (every entry is
    /// built again).
    pub(crate) fn options_mut(&mut self) -> &mut K::Options {
        self.items.iter_mut().for_each(|item| item.built = None);
        #[cfg(feature = "proxy")]
        self.mounted.values_mut().flat_map(|(_, items)| items).for_each(|item| item.built = None);
        &mut self.options
    }

    /// The snapshot of these sources; built entries are kept in `items`
    /// when `keep` (the server runs), so later changes reuse them.
    fn snapshot(&mut self, states: &StateMap, keep: bool) -> Result<Snapshot<K>, Error> {
        let mut entries = Vec::with_capacity(self.items.len());
        let mut dormant = Vec::new();
        for item in &mut self.items {
            let entry = match &item.built {
                Some(entry) => entry.clone(),
                None => {
                    let entry = Arc::new(K::build(&item.source, &self.options, states)?);
                    if keep {
                        item.built = Some(entry.clone());
                    }
                    entry
                }
            };
            let tag_off =
                || !self.disabled_tags.is_empty() && K::tags(&entry).iter().any(|t| self.disabled_tags.contains(t));
            if !self.disabled.contains(K::key(&entry)) && !tag_off() {
                entries.push(entry);
            } else {
                dormant.push(entry);
            }
        }
        Snapshot::new(entries, dormant, &self.pins)
    }
}

/// The components of one kind in one server, shared by its connections and
/// its handles.
pub(crate) struct Catalog<K: Kind> {
    sources: Mutex<Sources<K>>,
    /// What requests see; `None` until the server starts.
    published: RwLock<Option<Arc<Snapshot<K>>>>,
    /// The server's shared values, fixed when it starts.
    states: OnceLock<Arc<StateMap>>,
    /// [`offered`](Self::offered), fixed when the server starts.
    offered: OnceLock<bool>,
    announcer: Arc<Announcer>,
}

impl<K: Kind> Catalog<K> {
    pub(crate) fn new(options: K::Options, announcer: Arc<Announcer>) -> Self {
        let sources = Sources {
            items: Vec::new(),
            #[cfg(feature = "proxy")]
            mounted: Default::default(),
            disabled: BTreeSet::new(),
            disabled_tags: BTreeSet::new(),
            pins: versions::Pins::new(),
            options,
            dynamic: false,
        };
        Catalog {
            sources: Mutex::new(sources),
            published: RwLock::default(),
            states: OnceLock::new(),
            offered: OnceLock::new(),
            announcer,
        }
    }

    pub(crate) fn sources(&self) -> MutexGuard<'_, Sources<K>> {
        self.sources.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether this server offers this kind at all: something is registered,
    /// or a handle may register something later. Fixed when the server
    /// starts (a handle is only made before), so requests read a flag
    /// rather than lock the sources.
    pub(crate) fn offered(&self) -> bool {
        match self.offered.get() {
            Some(offered) => *offered,
            None => self.sources().offered(),
        }
    }

    /// Note that the set may change at run time (a handle was made).
    pub(crate) fn make_dynamic(&self) {
        self.sources().dynamic = true;
    }

    /// Build everything without publishing it (the start-up check).
    pub(crate) fn check(&self, states: &StateMap) -> Result<Snapshot<K>, Error> {
        self.sources().snapshot(states, false)
    }

    /// Build and publish; the server is starting.
    pub(crate) fn publish(&self, states: Arc<StateMap>) -> Result<(), Error> {
        let mut sources = self.sources();
        let snapshot = sources.snapshot(&states, true)?;
        let _ = self.offered.set(sources.offered());
        drop(sources);
        let _ = self.states.set(states);
        *self.published.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(snapshot));
        Ok(())
    }

    /// What requests see now.
    pub(crate) fn current(&self) -> Arc<Snapshot<K>> {
        let published = self.published.read().unwrap_or_else(|e| e.into_inner());
        published.clone().unwrap_or_else(|| Arc::new(Snapshot::empty()))
    }

    /// Apply `change` (which says whether it changed anything). While the
    /// server runs, only new registrations are built, the snapshot is
    /// published and listeners are told; a change that leaves the set
    /// unusable (a duplicate key) is undone and reported. Before it runs,
    /// the start-up check covers everything at once.
    pub(crate) fn change(&self, change: impl FnOnce(&mut Sources<K>) -> bool) -> Result<bool, Error> {
        let mut sources = self.sources();
        let undo =
            (sources.items.clone(), sources.disabled.clone(), sources.disabled_tags.clone(), sources.pins.clone());
        let changed = change(&mut sources);
        let Some(states) = self.states.get().filter(|_| changed) else { return Ok(changed) };
        match sources.snapshot(states, true) {
            Ok(snapshot) => {
                *self.published.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(snapshot));
                drop(sources);
                self.announcer.announce(K::LIST);
                Ok(true)
            }
            Err(error) => {
                (sources.items, sources.disabled, sources.disabled_tags, sources.pins) = undo;
                Err(error)
            }
        }
    }

    /// Make `new` what the mount of rank `rank` (named `origin`) offers, in
    /// one change (one announcement). Every mount's items are laid out
    /// again in rank order after the server's own: a key that one of those
    /// or an earlier mount holds is left out, with a warning, so which
    /// mount serves a name depends on the configuration, never on which
    /// upstream answered first; a name an earlier mount drops goes to the
    /// next mount offering it. A source that cannot be built is left out
    /// too. The keys this mount registered now.
    #[cfg(feature = "proxy")]
    pub(crate) fn replace(&self, rank: usize, new: Vec<Arc<K::Source>>, origin: &str) -> BTreeSet<String> {
        let empty = Arc::new(StateMap::default());
        let states = self.states.get().cloned().unwrap_or(empty);
        let mut kept = BTreeSet::new();
        let outcome = self.change(|sources| {
            let mut offered = Vec::with_capacity(new.len());
            for source in new {
                match K::build(&source, &sources.options, &states) {
                    Ok(entry) => offered.push(Item { source, built: Some(Arc::new(entry)), rank: Some(rank) }),
                    Err(error) => {
                        tracing::warn!(origin, key = K::source_key(&source), %error, "left out: it cannot be served")
                    }
                }
            }
            sources.mounted.insert(rank, (origin.to_owned(), offered));
            sources.items.retain(|item| item.rank.is_none());
            let mut taken: BTreeSet<String> = sources.items.iter().map(Item::key).collect();
            let mut laid = Vec::new();
            for (&at, (name, items)) in &sources.mounted {
                for item in items {
                    let key = item.key();
                    if taken.insert(key.clone()) {
                        if at == rank {
                            kept.insert(key);
                        }
                        laid.push(item.clone());
                    } else if at >= rank {
                        tracing::warn!(origin = %name, key, "left out: the server or an earlier mount has this name");
                    }
                }
            }
            sources.items.extend(laid);
            // Entries with the same keys may still differ (a description).
            true
        });
        if let Err(error) = outcome {
            tracing::warn!(origin, %error, "its list was not taken up");
        }
        kept
    }

    /// What is registered and enabled (by key and by tag, a source's tags
    /// read by `tags_of`), as registered (for a server that takes
    /// another's components).
    #[cfg(feature = "proxy")]
    pub(crate) fn registered(&self, tags_of: impl Fn(&K::Source) -> Vec<String>) -> Vec<Arc<K::Source>> {
        let sources = self.sources();
        let tag_off = |item: &Item<K>| {
            !sources.disabled_tags.is_empty() && tags_of(&item.source).iter().any(|t| sources.disabled_tags.contains(t))
        };
        let enabled = |item: &&Item<K>| !sources.disabled.contains(&item.key()) && !tag_off(item);
        sources.items.iter().filter(enabled).map(|item| item.source.clone()).collect()
    }

    /// Register `source`.
    pub(crate) fn add(&self, source: Arc<K::Source>) -> Result<(), Error> {
        self.change(|sources| {
            sources.push(source);
            true
        })
        .map(drop)
    }

    /// Remove the registration with `key`; `false` if there is none.
    pub(crate) fn remove(&self, key: &str) -> bool {
        self.change(|sources| {
            let before = sources.items.len();
            sources.items.retain(|item| item.key() != key);
            sources.disabled.remove(key);
            sources.items.len() != before
        })
        .unwrap_or(false)
    }

    /// Stop offering `key` (kept, to enable again); `false` if it already was.
    pub(crate) fn disable(&self, key: &str) -> bool {
        self.change(|sources| {
            sources.items.iter().any(|item| item.key() == key) && sources.disabled.insert(key.to_owned())
        })
        .unwrap_or(false)
    }

    /// Offer `key` again; `false` if it was not disabled.
    pub(crate) fn enable(&self, key: &str) -> bool {
        self.change(|sources| sources.disabled.remove(key)).unwrap_or(false)
    }

    /// Stop offering every entry tagged `tag`; `false` if it already was.
    pub(crate) fn disable_tagged(&self, tag: &str) -> bool {
        self.change(|sources| sources.disabled_tags.insert(tag.to_owned())).unwrap_or(false)
    }

    /// Offer entries tagged `tag` again (unless disabled otherwise);
    /// `false` if the tag was not disabled.
    pub(crate) fn enable_tagged(&self, tag: &str) -> bool {
        self.change(|sources| sources.disabled_tags.remove(tag)).unwrap_or(false)
    }

    /// Every registered key, enabled or not, sorted.
    pub(crate) fn keys(&self) -> Vec<String> {
        let keys: BTreeSet<String> = self.sources().items.iter().map(Item::key).collect();
        keys.into_iter().collect()
    }
}

/// A definition as each protocol version lists it, serialized the first
/// time a client of that version lists it: a server meets one or two of
/// the versions it speaks, and start-up does no work for the others.
#[derive(Default)]
pub(crate) struct PerVersion([OnceLock<Box<RawValue>>; ProtocolVersion::ALL.len()]);

impl PerVersion {
    /// As `version` lists it: `project(version)`, serialized once.
    pub(crate) fn get<T: serde::Serialize>(
        &self,
        version: ProtocolVersion,
        project: impl FnOnce(ProtocolVersion) -> T,
    ) -> &RawValue {
        let index = ProtocolVersion::ALL.iter().position(|v| *v == version).unwrap_or(0);
        self.0[index].get_or_init(|| serde_json::value::to_raw_value(&project(version)).expect("a definition is JSON"))
    }
}

/// Two Rust paths in order, for an error naming both of two entries with
/// one key (the same message whichever was registered first).
pub(crate) fn in_order(a: &str, b: &str) -> (String, String) {
    if a <= b { (a.to_owned(), b.to_owned()) } else { (b.to_owned(), a.to_owned()) }
}
