//! [`StateHandle`]: an explicit address for per-user state, minted by the
//! server, unguessable (128 random bits) and bound to the user it was
//! minted for by an HMAC-SHA256 tag over its id and that user, so a handle
//! shown by another user is refused without a look-up.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;
use serde::{Deserialize, Serialize};

use super::StateError;
use crate::client::seal;

/// Marks the format, so a later one can be told apart.
const PREFIX: &str = "st1.";
const ID_LEN: usize = 16;
const TAG_LEN: usize = 16;

/// The key handles are signed with (under the rules of `requestState`'s keys).
pub(crate) struct Key(Vec<u8>);

impl Key {
    pub(crate) fn random() -> Key {
        Key(seal::random_key())
    }

    pub(crate) fn new(secret: &[u8]) -> Result<Key, crate::Error> {
        match seal::too_short(format_args!("user state key"), secret) {
            Some(why) => Err(crate::Error::InvalidUserStateKey(why)),
            None => Ok(Key(secret.to_vec())),
        }
    }

    /// The MAC over a handle's id and the owner it is bound to.
    fn mac(&self, id: &[u8], owner: &str) -> seal::HmacSha256 {
        let mut mac = seal::mac(&self.0);
        mac.update(id);
        mac.update(b"\0");
        mac.update(owner.as_bytes());
        mac
    }

    fn tag(&self, id: &[u8], owner: &str) -> [u8; TAG_LEN] {
        let full = self.mac(id, owner).finalize().into_bytes();
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&full[..TAG_LEN]);
        tag
    }

    /// A new handle bound to `owner` (`""` for a caller with no user: the
    /// handle is then a bearer capability).
    pub(crate) fn mint(&self, owner: &str) -> StateHandle {
        let mut id = [0u8; ID_LEN];
        getrandom::fill(&mut id).expect("the operating system's random number generator failed");
        let tag = self.tag(&id, owner);
        StateHandle(format!("{PREFIX}{}.{}", URL_SAFE_NO_PAD.encode(id), URL_SAFE_NO_PAD.encode(tag)))
    }

    /// The owner key of `handle`'s slots, if it was minted for `owner`.
    pub(crate) fn open(&self, handle: &StateHandle, owner: &str) -> Result<String, StateError> {
        let rest = handle.0.strip_prefix(PREFIX).ok_or(StateError::Refused)?;
        let (id, tag) = rest.split_once('.').ok_or(StateError::Refused)?;
        let id_bytes = URL_SAFE_NO_PAD.decode(id).map_err(|_| StateError::Refused)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| StateError::Refused)?;
        if id_bytes.len() != ID_LEN || tag.len() != TAG_LEN {
            return Err(StateError::Refused);
        }
        // Constant time: the tag is what makes a handle hard to forge.
        self.mac(&id_bytes, owner).verify_truncated_left(&tag).map_err(|_| StateError::Refused)?;
        Ok(format!("h:{id}"))
    }
}

/// An explicit address for per-user state: minted by
/// [`UserState::mint`](super::UserState::mint), returned to the client, and
/// passed back as a tool argument (it is a string in the input schema).
/// Only the user it was minted for can open it.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
#[schemars(description = "A state handle a tool returned earlier")]
pub struct StateHandle(String);

impl StateHandle {
    /// The handle as the client sees it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for StateHandle {
    fn from(text: String) -> Self {
        StateHandle(text)
    }
}

impl fmt::Display for StateHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A handle is a capability: only its id part is shown.
impl fmt::Debug for StateHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.0.strip_prefix(PREFIX).and_then(|r| r.split_once('.')).map_or("?", |(id, _)| id);
        f.debug_tuple("StateHandle").field(&id).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_opens_for_its_owner_only() {
        let key = Key::random();
        let handle = key.mint("alice");
        assert!(key.open(&handle, "alice").is_ok());
        assert!(matches!(key.open(&handle, "bob"), Err(StateError::Refused)));
        assert!(matches!(key.open(&handle, ""), Err(StateError::Refused)));
        assert!(matches!(Key::random().open(&handle, "alice"), Err(StateError::Refused)));
        assert_ne!(key.mint("alice"), handle);
    }

    #[test]
    fn malformed_handles_are_refused() {
        let key = Key::random();
        let good = key.mint("a").0;
        let truncated = good[..good.len() - 2].to_owned();
        for bad in ["", "st1.", "st1.a.b", "st2.xx.yy", &truncated, "st1.!!!.???"] {
            assert!(matches!(key.open(&StateHandle(bad.to_owned()), "a"), Err(StateError::Refused)), "{bad}");
        }
    }

    #[test]
    fn a_short_key_is_refused() {
        assert!(Key::new(&[1; 31]).is_err());
        assert!(Key::new(&[1; 32]).is_ok());
    }
}
