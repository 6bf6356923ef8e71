//! The sealed `requestState` of a multi-round request (2026-07-28): what a
//! retry needs from earlier rounds, signed with HMAC-SHA256 so a client can
//! echo it but not forge or alter it, bound to one request (the method, its
//! target and a hash of its arguments) and to an expiry.
//!
//! Signed, not encrypted: the client can read what it carries (its own
//! answers, and the values a handler kept with `Context::once`).
//!
//! Its keys' rules (length, random making, the MAC) serve every value the
//! server signs for clients to hand back: state handles use them too.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use mcp_core::JsonObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The MAC everything the server signs for clients is tagged with.
pub(crate) type HmacSha256 = Hmac<Sha256>;

/// The shortest key accepted: HMAC-SHA256 is as strong as its key, up to
/// the hash's 32 bytes.
pub(crate) const MIN_KEY_LEN: usize = 32;

/// A new random key of [`MIN_KEY_LEN`] bytes, for this process alone.
pub(crate) fn random_key() -> Vec<u8> {
    let mut key = vec![0u8; MIN_KEY_LEN];
    getrandom::fill(&mut key).expect("the operating system's random number generator failed");
    key
}

/// Why `key` cannot sign, if it is shorter than [`MIN_KEY_LEN`]; `what`
/// names it in the message.
pub(crate) fn too_short(what: std::fmt::Arguments<'_>, key: &[u8]) -> Option<String> {
    (key.len() < MIN_KEY_LEN)
        .then(|| format!("{what} has {} bytes; it must have at least {MIN_KEY_LEN} random bytes", key.len()))
}

/// HMAC-SHA256 keyed with `key`.
pub(crate) fn mac(key: &[u8]) -> HmacSha256 {
    HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length")
}

/// The keys `requestState` is signed and verified with: signed with the
/// first, verified with any (so keys can be rotated across replicas).
#[derive(Clone)]
pub(crate) struct Keys {
    keys: Vec<Vec<u8>>,
    /// Made at start-up rather than given: fine for one process, wrong for
    /// replicas behind a load balancer.
    pub(crate) random: bool,
    /// How long a state stays valid.
    pub(crate) lifetime: Duration,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("count", &self.keys.len()).field("random", &self.random).finish()
    }
}

/// What a state is bound to: one request, by a hash of what it asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Binding(String);

impl Binding {
    /// `method` on `target` with `arguments` (compared as canonical JSON,
    /// so a client may reorder keys between rounds).
    pub(crate) fn new(method: &str, target: &str, arguments: &JsonObject) -> Binding {
        let mut hasher = Sha256::new();
        for part in [method, "\0", target, "\0"] {
            hasher.update(part.as_bytes());
        }
        canonical_map(arguments, &mut hasher);
        Binding(URL_SAFE_NO_PAD.encode(hasher.finalize()))
    }
}

/// Serialized JSON straight into the hasher, with no string in between.
struct Feed<'a>(&'a mut Sha256);

impl std::io::Write for Feed<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Feed an object to the hasher with its keys sorted (no copy of it).
fn canonical_map(map: &JsonObject, hasher: &mut Sha256) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_unstable();
    hasher.update(b"{");
    for key in keys {
        // Writing to a hasher cannot fail.
        let _ = serde_json::to_writer(Feed(hasher), key);
        hasher.update(b":");
        canonical(&map[key], hasher);
        hasher.update(b",");
    }
    hasher.update(b"}");
}

/// Feed `value` to the hasher with object keys sorted.
fn canonical(value: &Value, hasher: &mut Sha256) {
    match value {
        Value::Object(map) => canonical_map(map, hasher),
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                canonical(item, hasher);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        scalar => {
            let _ = serde_json::to_writer(Feed(hasher), scalar);
        }
    }
}

/// What a state carries from one round to the next.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Carried {
    /// Answers the client gave in earlier rounds, by input key.
    #[serde(rename = "a", default)]
    pub(crate) answers: JsonObject,
    /// Values handlers kept (`Context::once`), by name.
    #[serde(rename = "k", default)]
    pub(crate) kept: JsonObject,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    /// The binding.
    b: String,
    /// Expiry, in seconds since the Unix epoch.
    e: u64,
    #[serde(flatten)]
    carried: Carried,
}

/// Why a `requestState` was refused. Each is the client's fault, so each
/// is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not made by this server, or altered.
    Tampered,
    /// Older than its lifetime.
    Expired,
    /// Made for another request (another tool, or other arguments).
    Mismatched,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refused::Tampered => "requestState failed its integrity check: echo it exactly as the server sent it",
            Refused::Expired => "requestState has expired: send the request again without it to start over",
            Refused::Mismatched => {
                "requestState belongs to another request: retry the same method, name and arguments it was issued for"
            }
        })
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Keys {
    /// Keys given by the user; each must be at least [`MIN_KEY_LEN`] bytes.
    pub(crate) fn given(keys: Vec<Vec<u8>>, lifetime: Duration) -> Result<Keys, String> {
        if keys.is_empty() {
            return Err("Server::request_state_keys needs at least one key".into());
        }
        if let Some(why) =
            keys.iter().enumerate().find_map(|(i, key)| too_short(format_args!("request state key {i}"), key))
        {
            return Err(why);
        }
        Ok(Keys { keys, random: false, lifetime })
    }

    /// One random key for this process.
    pub(crate) fn random(lifetime: Duration) -> Keys {
        Keys { keys: vec![random_key()], random: true, lifetime }
    }

    /// Sign `carried` for the request `binding`, valid for the lifetime.
    pub(crate) fn seal(&self, binding: &Binding, carried: Carried) -> String {
        let payload = Payload { b: binding.0.clone(), e: now().saturating_add(self.lifetime.as_secs()), carried };
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&payload).expect("a payload serializes"));
        let mut mac = mac(&self.keys[0]);
        mac.update(body.as_bytes());
        format!("{body}.{}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
    }

    /// What `state` carries, if one of the keys signed it, it has not
    /// expired and it was made for `binding`.
    pub(crate) fn open(&self, state: &str, binding: &Binding) -> Result<Carried, Refused> {
        let (body, tag) = state.rsplit_once('.').ok_or(Refused::Tampered)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Refused::Tampered)?;
        let signed = self.keys.iter().any(|key| {
            let mut mac = mac(key);
            mac.update(body.as_bytes());
            mac.verify_slice(&tag).is_ok()
        });
        if !signed {
            return Err(Refused::Tampered);
        }
        let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| Refused::Tampered)?;
        let payload: Payload = serde_json::from_slice(&bytes).map_err(|_| Refused::Tampered)?;
        if payload.e < now() {
            return Err(Refused::Expired);
        }
        if payload.b != binding.0 {
            return Err(Refused::Mismatched);
        }
        Ok(payload.carried)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn binding(arguments: Value) -> Binding {
        Binding::new("tools/call", "book", arguments.as_object().unwrap())
    }

    fn carried() -> Carried {
        Carried {
            answers: json!({"when": {"action": "decline"}}).as_object().unwrap().clone(),
            kept: JsonObject::new(),
        }
    }

    #[test]
    fn a_sealed_state_opens_for_its_request_only() {
        let keys = Keys::random(Duration::from_secs(60));
        let state = keys.seal(&binding(json!({"a": 1, "b": [1, {"x": 2, "y": 3}]})), carried());
        // Keys in another order are the same arguments.
        assert_eq!(keys.open(&state, &binding(json!({"b": [1, {"y": 3, "x": 2}], "a": 1}))), Ok(carried()));
        assert_eq!(keys.open(&state, &binding(json!({"a": 2, "b": [1, {"x": 2, "y": 3}]}))), Err(Refused::Mismatched));
        let other_tool = Binding::new("tools/call", "cancel", json!({}).as_object().unwrap());
        assert_eq!(keys.open(&state, &other_tool), Err(Refused::Mismatched));
    }

    #[test]
    fn altered_foreign_and_expired_states_are_refused() {
        let keys = Keys::random(Duration::from_secs(60));
        let b = binding(json!({}));
        let state = keys.seal(&b, carried());
        assert_eq!(keys.open(&format!("{state}-TAMPERED"), &b), Err(Refused::Tampered));
        assert_eq!(keys.open("garbage", &b), Err(Refused::Tampered));
        // Changing one character of the payload breaks the signature.
        let mut altered = state.clone().into_bytes();
        altered[3] = if altered[3] == b'A' { b'B' } else { b'A' };
        assert_eq!(keys.open(std::str::from_utf8(&altered).unwrap(), &b), Err(Refused::Tampered));
        assert_eq!(Keys::random(Duration::from_secs(60)).open(&state, &b), Err(Refused::Tampered));
        let expired = Keys { lifetime: Duration::ZERO, ..keys.clone() };
        let old = expired.seal(&b, carried());
        std::thread::sleep(Duration::from_millis(1100));
        assert_eq!(expired.open(&old, &b), Err(Refused::Expired));
    }

    #[test]
    fn rotation_signs_with_the_first_key_and_verifies_with_any() {
        let (old, new) = (vec![1u8; 32], vec![2u8; 32]);
        let b = binding(json!({}));
        let before = Keys::given(vec![old.clone()], Duration::from_secs(60)).unwrap();
        let during = Keys::given(vec![new.clone(), old], Duration::from_secs(60)).unwrap();
        let after = Keys::given(vec![new], Duration::from_secs(60)).unwrap();
        let state = before.seal(&b, carried());
        assert!(during.open(&state, &b).is_ok());
        assert_eq!(after.open(&state, &b), Err(Refused::Tampered));
        assert!(after.open(&during.seal(&b, carried()), &b).is_ok());
        assert!(Keys::given(vec![vec![0; 16]], Duration::from_secs(1)).unwrap_err().contains("at least 32"));
    }
}
