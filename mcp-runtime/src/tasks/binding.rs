//! Whose a task is. A task is bound to the authorization context of the
//! request that created it, and only requests of that context can follow
//! it: any other is answered as for an id that never existed.
//!
//! The binding is part of the task's id, not of the store: an id is 32
//! random hex digits and a tag, the truncated SHA-256 of the binding and
//! the random part. A `tasks/*` request recomputes the tag from its own
//! binding and finds no task when it differs, before the store is asked,
//! so every [`TaskStore`](super::TaskStore) (replicas' shared ones too)
//! keeps tasks apart without knowing of owners. No secret is needed: a
//! requester cannot choose its binding, which comes from its verified
//! token or its session, and the random part keeps ids unguessable.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::dispatch::Incoming;
use crate::random::hex;

/// Hex digits of an id's random part.
const RANDOM: usize = 32;
/// Bytes of SHA-256 in an id's tag (as many again in hex digits): a
/// requester trying to reach another's task would need a binding of its
/// own whose tag matches, one in 2¹²⁸.
const TAG: usize = 16;

/// Who may follow a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// Nothing tells requesters apart (stdio, memory, stateless HTTP
    /// without OAuth): whoever knows the id, which cannot be guessed.
    Anyone,
    /// A verified access token's issuer and subject.
    Principal(String),
    /// An HTTP session without OAuth, by its `Mcp-Session-Id`.
    Session(Arc<str>),
}

impl Binding {
    /// The binding of `request`: the token's principal when it carried
    /// one, else its HTTP session, else none.
    pub(crate) fn of(request: &Incoming<'_>) -> Binding {
        if let Some(claims) = &request.claims {
            return Binding::Principal(claims.principal());
        }
        match request.session.http_id() {
            Some(id) => Binding::Session(id.clone()),
            None => Binding::Anyone,
        }
    }

    /// The hash of the binding, under `purpose`, kinds apart (a session id
    /// never reads as a principal).
    fn digest(&self, purpose: &str) -> Sha256 {
        let mut hash = Sha256::new();
        hash.update(b"mcp-runtime task binding\0");
        hash.update(purpose.as_bytes());
        let (kind, text): (u8, &str) = match self {
            Binding::Anyone => (0, ""),
            Binding::Principal(principal) => (1, principal),
            Binding::Session(id) => (2, id),
        };
        hash.update([kind]);
        hash.update(u64::try_from(text.len()).unwrap_or(u64::MAX).to_be_bytes());
        hash.update(text.as_bytes());
        hash
    }

    /// The key its running tasks are counted under: a digest, so neither
    /// the counts nor the logs hold a session id or a subject.
    pub(crate) fn key(&self) -> Arc<str> {
        Arc::from(hex(&self.digest("key").finalize()[..TAG]))
    }

    /// A new task id bound to it.
    pub(crate) fn new_id(&self) -> String {
        let random = crate::random::hex_id::<{ RANDOM / 2 }>();
        let tag = self.tag(&random);
        random + &tag
    }

    /// Whether `id` is an id bound to it (whether or not a task has it).
    pub(crate) fn admits(&self, id: &str) -> bool {
        id.len() == RANDOM + 2 * TAG
            && id.is_char_boundary(RANDOM)
            && id.split_at(RANDOM).1 == self.tag(id.split_at(RANDOM).0)
    }

    fn tag(&self, random: &str) -> String {
        let mut hash = self.digest("id");
        hash.update(random.as_bytes());
        hex(&hash.finalize()[..TAG])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_admits_its_own_binding_only() {
        let bindings = [
            Binding::Anyone,
            Binding::Principal("https://issuer\nann".into()),
            Binding::Principal("https://issuer\nbob".into()),
            Binding::Session(Arc::from("0123456789abcdef0123456789abcdef")),
        ];
        for (n, binding) in bindings.iter().enumerate() {
            let id = binding.new_id();
            assert_eq!(id.len(), 64);
            assert!(binding.admits(&id));
            for (m, other) in bindings.iter().enumerate() {
                assert_eq!(other.admits(&id), n == m, "{binding:?} {other:?}");
            }
            assert_ne!(id, binding.new_id());
        }
        let anyone = &bindings[0];
        for id in ["", "nope", &format!("{}a", "aé".repeat(21)), &anyone.new_id()[1..]] {
            assert!(!anyone.admits(id), "{id}");
        }
        // A session id and a principal with the same text stay apart.
        let same = "0123456789abcdef0123456789abcdef";
        assert_ne!(Binding::Session(Arc::from(same)).key(), Binding::Principal(same.into()).key());
    }
}
