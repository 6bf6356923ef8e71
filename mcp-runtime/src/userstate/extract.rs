//! [`UserState<T>`]: the extractor through which a handler reads and
//! writes its caller's state, and mints and opens handles.

use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use super::{StateError, StateHandle, UserStore};
use crate::random::hex;
use crate::request::{FromRequest, Needs, Rejection, RequestParts};

/// The caller's state of type `T`, kept by the server's [`UserStore`]
/// between requests. Take it as a parameter (it never appears in an input
/// schema); a server whose handlers take one without
/// [`Server::user_state`](crate::Server::user_state) does not start.
///
/// Whose state it is: the subject of the request's access token (over HTTP
/// with OAuth); else, in a 2025-11-25 (or older) session, that session (not
/// on an endpoint that issues no session ids);
/// else nobody, and only a handle addresses state: [`mint`](Self::mint)
/// one, return it to the client, and take it back as a [`StateHandle`]
/// argument to [`open`](Self::open). A handle opens only for the user it
/// was minted for.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::userstate::{StateLimits, UserState, UserStore};
///
/// /// Add an item to your cart; returns the cart.
/// #[tool]
/// async fn add(item: String, cart: UserState<Vec<String>>) -> Result<String, ToolError> {
///     let items = cart.update(|items| { items.push(item); items.join(", ") }).await?;
///     Ok(items)
/// }
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::empty("shop", "1").tool(add::Tool).user_state(UserStore::memory(StateLimits::default()));
/// server.tool_definitions()?; // the start-up check
/// # Ok(())
/// # }
/// ```
///
/// The slot is named after `T` (its Rust type name): one value of each
/// type per owner, and renaming the type forgets what was kept.
/// [`update`](Self::update) reads and writes in two steps, so two calls of
/// one user racing each other may lose one write.
pub struct UserState<T> {
    store: UserStore,
    /// The caller's owner key, if the request has a user.
    caller: Option<String>,
    /// The slot's owner: the caller's, or a handle's once opened.
    owner: Option<String>,
    _value: PhantomData<fn() -> T>,
}

impl<T> Clone for UserState<T> {
    fn clone(&self) -> Self {
        UserState {
            store: self.store.clone(),
            caller: self.caller.clone(),
            owner: self.owner.clone(),
            _value: PhantomData,
        }
    }
}

impl<T> fmt::Debug for UserState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserState").field("type", &std::any::type_name::<T>()).finish_non_exhaustive()
    }
}

/// A subject, hashed: the store's keys name no user.
fn subject_key(principal: &str) -> String {
    format!("u:{}", hex(&Sha256::digest(principal.as_bytes())))
}

/// A session's owner key: over HTTP, a hash of its `Mcp-Session-Id`, so
/// any replica that takes the session up finds its state (and the store's
/// keys do not hold the id, which lets one use the session); elsewhere
/// (stdio, in memory) the connection's random id.
fn session_key(request: &RequestParts, peer: &crate::client::Peer) -> String {
    match &request.http_session {
        Some(id) => format!("s:{}", hex(&Sha256::digest(id.as_bytes()))),
        None => format!("s:{}", peer.state_key()),
    }
}

impl<T: Serialize + DeserializeOwned> UserState<T> {
    fn name() -> &'static str {
        std::any::type_name::<T>()
    }

    fn owner(&self) -> Result<&str, StateError> {
        self.owner.as_deref().ok_or(StateError::NoUser)
    }

    /// The value kept, if one was set and has not expired.
    pub async fn get(&self) -> Result<Option<T>, StateError> {
        let bytes = self.store.backend.get(self.owner()?, Self::name()).await?;
        bytes.map(|b| serde_json::from_slice(&b).map_err(|e| StateError::Corrupt(e.to_string()))).transpose()
    }

    /// Keep `value` (for the store's TTL from now), unless it is larger
    /// than the store allows or the owner or the store is full.
    pub async fn set(&self, value: &T) -> Result<(), StateError> {
        let owner = self.owner()?;
        let bytes = serde_json::to_vec(value).map_err(|e| StateError::Corrupt(e.to_string()))?;
        let limit = self.store.limits.max_value_bytes;
        if bytes.len() > limit {
            return Err(StateError::ValueTooLarge { size: bytes.len(), limit });
        }
        self.store.backend.put(owner, Self::name(), bytes, &self.store.limits).await
    }

    /// Change the value kept (starting from `T::default()`), keep it, and
    /// return what `change` returned.
    pub async fn update<R>(&self, change: impl FnOnce(&mut T) -> R) -> Result<R, StateError>
    where
        T: Default,
    {
        let mut value = self.get().await?.unwrap_or_default();
        let result = change(&mut value);
        self.set(&value).await?;
        Ok(result)
    }

    /// Forget the value kept.
    pub async fn remove(&self) -> Result<(), StateError> {
        self.store.backend.remove(self.owner()?, Self::name()).await
    }

    /// A new, empty address for state, bound to the caller (for a request
    /// without a user, to no user: any request without a user that holds
    /// it may open it, and no request with one). Return it to the client;
    /// it comes back as a [`StateHandle`] argument.
    pub fn mint(&self) -> StateHandle {
        self.store.key.mint(self.caller.as_deref().unwrap_or_default())
    }

    /// The state at `handle`, if it was minted for the caller; a handle of
    /// another user, or a forged or altered one, is refused.
    pub fn open(&self, handle: &StateHandle) -> Result<UserState<T>, StateError> {
        let owner = self.store.key.open(handle, self.caller.as_deref().unwrap_or_default())?;
        Ok(UserState { owner: Some(owner), ..self.clone() })
    }

    /// Whether the request has a user of its own (else only handles address state).
    pub fn has_user(&self) -> bool {
        self.caller.is_some()
    }
}

impl<T: Send + Sync + 'static> FromRequest for UserState<T> {
    fn describe(needs: &mut Needs) {
        needs.state::<UserStore>();
    }

    fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
        let store = request
            .state
            .get::<UserStore>()
            .ok_or_else(|| Rejection::internal("no `UserStore` is registered on this server (`Server::user_state`)"))?;
        // A session owns state only if it outlives the request (not the
        // one an endpoint without session ids shares among its requests).
        let caller = match (&request.claims, &request.peer) {
            (Some(claims), _) => Some(subject_key(&claims.principal())),
            (None, Some(peer)) if request.session_lasts && request.protocol_version.uses_handshake() => {
                Some(session_key(request, peer))
            }
            _ => None,
        };
        Ok(UserState { store: (*store).clone(), owner: caller.clone(), caller, _value: PhantomData })
    }
}
