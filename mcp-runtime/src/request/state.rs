//! [`State<T>`]: values registered on the server and shared by every call
//! of every tool, checked at start-up.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::{FromRequest, Needs, Rejection, RequestParts};

/// The values registered with [`Server::with_state`](crate::Server::with_state), one per type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.0.contains_key(&id)
    }

    /// Take `other`'s values of the types this map has none of.
    #[cfg(feature = "proxy")]
    pub(crate) fn absorb(&mut self, other: StateMap) {
        for (id, value) in other.0 {
            self.0.entry(id).or_insert(value);
        }
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0.get(&TypeId::of::<T>()).cloned().and_then(|value| value.downcast::<T>().ok())
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap").field("values", &self.0.len()).finish()
    }
}

/// A shared value of type `T`, registered on the server with
/// [`Server::with_state`](crate::Server::with_state). Take it as a
/// parameter; it derefs to `T`, and never appears in the input schema. A
/// server whose tools ask for a `State<T>` that was never registered does
/// not start, and the error names the tool and the type.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// use mcp_runtime::prelude::*;
/// ///
/// /// Count the calls so far.
/// #[tool]
/// fn hits(counter: State<AtomicU64>) -> u64 {
///     counter.fetch_add(1, Ordering::Relaxed) + 1
/// }
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::empty("counter", "1").tool(hits::Tool).with_state(AtomicU64::new(0));
/// server.tool_definitions()?; // the start-up check
/// # Ok(())
/// # }
/// ```
pub struct State<T>(Arc<T>);

impl<T> State<T> {
    /// The shared value itself, for keeping past the call.
    pub fn arc(&self) -> Arc<T> {
        self.0.clone()
    }
}

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.0).finish()
    }
}

impl<T: Send + Sync + 'static> FromRequest for State<T> {
    fn describe(needs: &mut Needs) {
        needs.state::<T>();
    }

    fn from_request(call: &mut RequestParts) -> Result<Self, Rejection> {
        // The server refuses to start without it, so this is only reachable
        // for a call made by hand.
        call.state.get::<T>().map(State).ok_or_else(|| {
            Rejection::internal(format!("no `State<{}>` is registered on this server", std::any::type_name::<T>()))
        })
    }
}
