//! Per-caller views of the catalog: what one caller (a user, or a session
//! without a user) sees besides or instead of what the server offers
//! everyone. A handler changes its caller's view through the [`View`]
//! extractor (a tool that unlocks others, for this caller only); lists,
//! calls, reads and tool search consult it; only the callers whose view
//! changed are told their lists changed.
//!
//! Every view has an owner (the token's subject, else the session), a
//! deadline (an hour after the caller last used it; a session's ends with
//! the session) and bounds ([`MAX_VIEW_RULES`] rules and [`MAX_VIEW_BYTES`]
//! a caller, [`MAX_VIEWS`]
//! callers a server).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::component::Kind;
use crate::component::announce::{Announcer, Kinds};
use crate::request::claims::Claims;
use crate::request::{FromRequest, Needs, Rejection, RequestParts};

/// The most rules (names and tags turned on or off) one caller's view holds.
pub const MAX_VIEW_RULES: usize = 256;
/// The most bytes of names and tags one caller's view holds (a caller
/// that passes what it likes to `disable` cannot grow a view past it).
pub const MAX_VIEW_BYTES: usize = 16 * 1024;
/// The most callers with a view of their own a server keeps at once.
pub const MAX_VIEWS: usize = 10_000;
/// How long a view lives after its caller last used it.
pub const VIEW_IDLE: Duration = Duration::from_secs(3600);

/// Who a view belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Owner {
    /// The access token's subject (with its issuer): every session and
    /// stream of that user shares the view.
    Subject(String),
    /// A connection or handshake session without a token (its key, unique
    /// in the process).
    Session(u64),
}

impl Owner {
    /// The owner of a request's view: its token's subject, else its
    /// connection or session if it lasts past the request (stdio, a
    /// handshake HTTP session); a stateless HTTP request without a token
    /// has none.
    pub(crate) fn of(claims: Option<&Claims>, session: Option<u64>) -> Option<Owner> {
        match (claims, session) {
            (Some(claims), _) => Some(Owner::Subject(claims.principal())),
            (None, session) => session.map(Owner::Session),
        }
    }
}

/// What a rule names: a component's key (a tool's or prompt's name, a
/// resource's URI or a template's URI template) or a tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Key(String),
    Tag(String),
}

/// One caller's rules. Its own rule for a name beats its rules for tags,
/// which beat the server's setting; among its tag rules, off beats on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rules {
    keys: BTreeMap<String, bool>,
    tags: BTreeMap<String, bool>,
}

impl Rules {
    /// Whether a caller with `view` (none: no rules of its own) sees
    /// `entry`, which the server offers everyone if `enabled`.
    pub(crate) fn sees<K: Kind>(view: Option<&Rules>, entry: &K::Entry, enabled: bool) -> bool {
        view.map_or(enabled, |view| view.keeps::<K>(entry, enabled))
    }

    /// Whether a caller with these rules sees `entry`, which the server
    /// offers everyone if `enabled`.
    pub(crate) fn keeps<K: Kind>(&self, entry: &K::Entry, enabled: bool) -> bool {
        if let Some(on) = self.keys.get(K::key(entry)) {
            return *on;
        }
        if self.tags.is_empty() {
            return enabled;
        }
        let mut on = enabled;
        for tag in K::tags(entry) {
            match self.tags.get(&tag) {
                Some(false) => return false,
                Some(true) => on = true,
                None => {}
            }
        }
        on
    }

    fn len(&self) -> usize {
        self.keys.len() + self.tags.len()
    }

    fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.tags.is_empty()
    }

    fn bytes(&self) -> usize {
        self.keys.keys().chain(self.tags.keys()).map(String::len).sum()
    }

    fn set(&mut self, target: &Target, on: bool) -> bool {
        let (map, name) = match target {
            Target::Key(key) => (&mut self.keys, key),
            Target::Tag(tag) => (&mut self.tags, tag),
        };
        map.insert(name.clone(), on) != Some(on)
    }

    fn targets(&self) -> impl Iterator<Item = Target> + '_ {
        let keys = self.keys.keys().map(|k| Target::Key(k.clone()));
        keys.chain(self.tags.keys().map(|t| Target::Tag(t.clone())))
    }
}

struct Held {
    rules: Arc<Rules>,
    expires: Instant,
}

/// Which kinds of list have a component a target names.
pub(crate) type Lists = Box<dyn Fn(&Target) -> Kinds + Send + Sync>;

struct Inner {
    /// Whether the server is mounted in another over a connection, which
    /// all the mount's callers share: a view there would be theirs alike.
    mounted: std::sync::atomic::AtomicBool,
    held: Mutex<HashMap<Owner, Held>>,
    /// How many views are held: requests look no further while it is 0.
    count: AtomicUsize,
    announcer: Arc<Announcer>,
    lists: Lists,
}

/// The views of one server's callers.
#[derive(Clone)]
pub(crate) struct Views(Arc<Inner>);

impl fmt::Debug for Views {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Views").field("held", &self.0.count.load(Ordering::Relaxed)).finish()
    }
}

impl Views {
    pub(crate) fn new(announcer: Arc<Announcer>, lists: Lists) -> Views {
        let mounted = std::sync::atomic::AtomicBool::new(false);
        Views(Arc::new(Inner { mounted, held: Mutex::default(), count: AtomicUsize::new(0), announcer, lists }))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<Owner, Held>> {
        self.0.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refuse every change from now on: the server is mounted in another
    /// over a connection (its tools called directly change the mount's
    /// views instead).
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn refuse_changes(&self) {
        self.0.mounted.store(true, Ordering::Release);
    }

    /// Whether no caller has a view of its own.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.count.load(Ordering::Acquire) == 0
    }

    /// `owner`'s rules, if it has a view that has not expired (its
    /// deadline moves on: it was used).
    pub(crate) fn of(&self, owner: Option<&Owner>) -> Option<Arc<Rules>> {
        if self.0.count.load(Ordering::Acquire) == 0 {
            return None;
        }
        let owner = owner?;
        let mut held = self.held();
        let now = Instant::now();
        let view = held.get_mut(owner)?;
        if view.expires <= now {
            held.remove(owner);
            self.0.count.store(held.len(), Ordering::Release);
            return None;
        }
        view.expires = now + VIEW_IDLE;
        Some(view.rules.clone())
    }

    /// Forget `owner`'s view (its session ended).
    pub(crate) fn forget(&self, owner: &Owner) {
        if self.0.count.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut held = self.held();
        held.remove(owner);
        self.0.count.store(held.len(), Ordering::Release);
    }

    /// Change `owner`'s rules with `change` (which says what it changed),
    /// within the bounds; the owner's listeners are told of the lists the
    /// change touches. Whether anything changed.
    fn change(&self, owner: &Owner, change: impl FnOnce(&mut Rules) -> Vec<Target>) -> Result<bool, ViewError> {
        if self.0.mounted.load(Ordering::Acquire) {
            return Err(ViewError::Mounted);
        }
        let mut held = self.held();
        let now = Instant::now();
        let current = held.get(owner).filter(|h| h.expires > now).map(|h| (*h.rules).clone());
        let new_owner = current.is_none();
        let mut rules = current.unwrap_or_default();
        let touched = change(&mut rules);
        if touched.is_empty() {
            return Ok(false);
        }
        if rules.len() > MAX_VIEW_RULES {
            return Err(ViewError::TooManyRules { limit: MAX_VIEW_RULES });
        }
        if rules.bytes() > MAX_VIEW_BYTES {
            return Err(ViewError::TooLarge { limit: MAX_VIEW_BYTES });
        }
        if new_owner && held.len() >= MAX_VIEWS {
            held.retain(|_, h| h.expires > now);
            if held.len() >= MAX_VIEWS {
                self.0.count.store(held.len(), Ordering::Release);
                return Err(ViewError::TooManyCallers);
            }
        }
        if rules.is_empty() {
            held.remove(owner);
        } else {
            held.insert(owner.clone(), Held { rules: Arc::new(rules), expires: now + VIEW_IDLE });
        }
        self.0.count.store(held.len(), Ordering::Release);
        drop(held);
        let kinds = touched.iter().fold(Kinds::default(), |kinds, target| kinds.union((self.0.lists)(target)));
        self.0.announcer.announce_to(kinds, owner);
        Ok(true)
    }
}

/// Why a caller's view could not be changed. Its message is meant for the
/// client (a tool returning it with `?` shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewError {
    /// The request has no caller to keep a view for: a stateless
    /// (2026-07-28) HTTP request without an access token.
    NoCaller,
    /// The caller's view holds as many rules as it may.
    TooManyRules {
        /// The bound.
        limit: usize,
    },
    /// The caller's view would hold more bytes of names and tags than it may.
    TooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
    /// The server keeps as many views as it may.
    TooManyCallers,
    /// The server is mounted in another over a connection all the mount's
    /// callers share, so a view here would be all of theirs.
    Mounted,
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewError::NoCaller => f.write_str(
                "this request has no caller to change the view of (no token, no session): the server's catalog applies",
            ),
            ViewError::TooManyRules { limit } => {
                write!(f, "this caller's view has too many rules: at most {limit}; reset it first")
            }
            ViewError::TooLarge { limit } => {
                write!(f, "this caller's view is too large: at most {limit} bytes of names and tags; reset it first")
            }
            ViewError::TooManyCallers => f.write_str("the server keeps as many callers' views as it can; try later"),
            ViewError::Mounted => f.write_str(
                "this server is mounted in another whose callers share its connection: a view here would be all of theirs",
            ),
        }
    }
}

impl From<ViewError> for crate::ToolError {
    fn from(error: ViewError) -> Self {
        crate::ToolError::new(error.to_string())
    }
}

/// The caller's view of the server's catalog: take it as a parameter (it
/// never appears in an input schema) to show or hide components for this
/// caller only, such as a tool that unlocks others. Each change reaches
/// only this caller's lists (and its `list_changed` notifications); other
/// callers see the server's catalog as before.
///
/// Whose view it is: the access token's subject (every session and stream
/// of that user), else the connection (stdio, in both eras) or the
/// 2025-11-25 (or older) HTTP session. A stateless (2026-07-28) HTTP
/// request without a token has no caller: a change is refused with
/// [`ViewError::NoCaller`].
///
/// A rule names a component by its key (a tool's or prompt's name, a
/// resource's URI, a template's URI template) or by tag. The caller's rule
/// for a name beats its rules for tags, which beat the server's setting
/// ([`Server::disable_tagged`](crate::Server::disable_tagged) and a
/// handle's `disable`); among its tag rules, off beats on. A view lives an
/// hour after its caller last used it (a session's, at most until the
/// session ends), holds at most [`MAX_VIEW_RULES`] rules of at most
/// [`MAX_VIEW_BYTES`] in all, and a server keeps at most [`MAX_VIEWS`] views; views live in the process that serves the
/// caller (not shared between replicas).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::catalog::View;
///
/// /// Unlock the admin tools, for you only.
/// #[tool]
/// fn unlock_admin(view: View) -> Result<&'static str, ToolError> {
///     view.enable_tagged("admin")?;
///     Ok("the admin tools are listed now")
/// }
///
/// /// Drop every table.
/// #[tool(tags = ["admin"])]
/// fn drop_all() -> &'static str {
///     "dropped"
/// }
///
/// let server = Server::empty("db", "1").tool(unlock_admin::Tool).tool(drop_all::Tool).disable_tagged(["admin"]);
/// ```
#[derive(Clone)]
pub struct View {
    views: Views,
    owner: Option<Owner>,
}

impl fmt::Debug for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View").field("has_caller", &self.owner.is_some()).finish_non_exhaustive()
    }
}

impl View {
    fn set(&self, target: Target, on: bool) -> Result<bool, ViewError> {
        let owner = self.owner.as_ref().ok_or(ViewError::NoCaller)?;
        self.views.change(owner, |rules| if rules.set(&target, on) { vec![target] } else { Vec::new() })
    }

    /// Show the component with this key (name, URI or URI template) to
    /// the caller, even if the server disabled it. Whether it changed.
    pub fn enable(&self, key: impl Into<String>) -> Result<bool, ViewError> {
        self.set(Target::Key(key.into()), true)
    }

    /// Hide the component with this key from the caller.
    pub fn disable(&self, key: impl Into<String>) -> Result<bool, ViewError> {
        self.set(Target::Key(key.into()), false)
    }

    /// Show the components tagged `tag` to the caller, even those the
    /// server disabled (unless the caller's own rules hide them).
    pub fn enable_tagged(&self, tag: impl Into<String>) -> Result<bool, ViewError> {
        self.set(Target::Tag(tag.into()), true)
    }

    /// Hide the components tagged `tag` from the caller.
    pub fn disable_tagged(&self, tag: impl Into<String>) -> Result<bool, ViewError> {
        self.set(Target::Tag(tag.into()), false)
    }

    /// Drop the caller's rules: it sees the server's catalog again.
    pub fn reset(&self) -> Result<bool, ViewError> {
        let owner = self.owner.as_ref().ok_or(ViewError::NoCaller)?;
        self.views.change(owner, |rules| std::mem::take(rules).targets().collect())
    }

    /// Whether the request has a caller whose view can change.
    pub fn has_caller(&self) -> bool {
        self.owner.is_some()
    }
}

impl FromRequest for View {
    fn describe(_needs: &mut Needs) {}

    fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
        let views = request.views.clone().ok_or_else(|| Rejection::internal("this request has no server"))?;
        Ok(View { views, owner: request.view_owner.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn views() -> Views {
        Views::new(Arc::new(Announcer::default()), Box::new(|_| Kinds::default()))
    }

    fn unlock(views: &Views, owner: &Owner) -> Result<bool, ViewError> {
        let target = Target::Tag("admin".into());
        views.change(owner, |rules| if rules.set(&target, true) { vec![target.clone()] } else { Vec::new() })
    }

    #[test]
    fn the_callers_bound_refuses_a_new_caller_until_a_view_expires_or_is_forgotten() {
        let views = views();
        for key in 0..MAX_VIEWS as u64 {
            assert_eq!(unlock(&views, &Owner::Session(key)), Ok(true));
        }
        let late = Owner::Subject("late".into());
        assert_eq!(unlock(&views, &late), Err(ViewError::TooManyCallers));
        assert!(views.of(Some(&late)).is_none(), "the refused caller has no view");
        assert_eq!(unlock(&views, &Owner::Session(0)), Ok(false), "a held view changes within the bound");

        views.forget(&Owner::Session(0));
        assert!(views.of(Some(&Owner::Session(0))).is_none());
        assert_eq!(unlock(&views, &late), Ok(true), "a forgotten view made room");
        assert_eq!(unlock(&views, &Owner::Subject("later".into())), Err(ViewError::TooManyCallers));

        // Expired views are swept when a new caller needs room.
        views.held().get_mut(&Owner::Session(1)).unwrap().expires = Instant::now();
        assert_eq!(unlock(&views, &Owner::Subject("later".into())), Ok(true));
        assert_eq!(views.held().len(), MAX_VIEWS);
    }

    #[test]
    fn an_expired_view_is_never_read_and_a_read_moves_its_deadline() {
        let views = views();
        let ann = Owner::Subject("ann".into());
        assert!(views.is_empty());
        unlock(&views, &ann).unwrap();
        assert!(!views.is_empty());
        let soon = Instant::now() + Duration::from_secs(1);
        views.held().get_mut(&ann).unwrap().expires = soon;
        assert!(views.of(Some(&ann)).is_some());
        assert!(views.held()[&ann].expires > soon, "used: its deadline moved on");
        views.held().get_mut(&ann).unwrap().expires = Instant::now();
        assert!(views.of(Some(&ann)).is_none(), "expired");
        assert!(views.is_empty(), "and gone");
        assert!(views.of(None).is_none(), "no owner, no view");
    }

    #[test]
    fn a_reset_drops_the_view_and_an_empty_one_is_not_kept() {
        let views = views();
        let ann = Owner::Session(7);
        unlock(&views, &ann).unwrap();
        let reset = views.change(&ann, |rules| std::mem::take(rules).targets().collect());
        assert_eq!(reset, Ok(true));
        assert!(views.is_empty());
        assert_eq!(views.change(&ann, |rules| std::mem::take(rules).targets().collect()), Ok(false));
    }
}
