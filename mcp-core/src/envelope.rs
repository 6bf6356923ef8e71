//! The per-request protocol fields of the stateless era (2026-07-28): what
//! every request carries in `_meta` instead of an `initialize` handshake,
//! and the `_meta` keys results and notifications carry back.

use serde_json::{Value, json};

use crate::jsonrpc::{ErrorObject, JsonObject, codes};
use crate::lifecycle::{ClientCapabilities, Implementation};
use crate::notify::LoggingLevel;
use crate::version::ProtocolVersion;

/// `_meta` key: the protocol version of this request (required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: what the client can do for this request (required).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version.
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: send log messages of this level and above for this request.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key: the server's name and version.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Notification and result `_meta` key: the `subscriptions/listen` request
/// a message belongs to.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a stateless request says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The version this request speaks (always a stateless one).
    pub version: ProtocolVersion,
    /// The client's capabilities for this request.
    pub capabilities: ClientCapabilities,
    /// The client, if it said.
    pub client_info: Option<Implementation>,
    /// The least severe log level wanted; `None`: no log messages at all.
    pub log_level: Option<LoggingLevel>,
}

impl Envelope {
    /// Read the envelope from a request's `_meta`: `Ok(None)` when the
    /// request carries none of its keys (a handshake-era request), an error
    /// response's body when it is incomplete or names a version this
    /// server does not serve statelessly.
    pub fn from_meta(meta: Option<&JsonObject>) -> Result<Option<Envelope>, ErrorObject> {
        Envelope::from_keys(Keys::of(meta))
    }

    /// [`from_meta`](Self::from_meta) from the envelope's members already
    /// found (a transport that found them to tell the request's era hands
    /// on the envelope, read once).
    pub fn from_keys(keys: Keys<'_>) -> Result<Option<Envelope>, ErrorObject> {
        let (requested, capabilities) = match (keys.version, keys.capabilities) {
            (None, None) => return Ok(None),
            (Some(version), Some(capabilities)) => (version, capabilities),
            (version, capabilities) => return Err(missing(version.is_some(), capabilities.is_some())),
        };
        let requested = requested.as_str().ok_or_else(|| {
            ErrorObject::invalid_params(format!("params._meta[\"{PROTOCOL_VERSION}\"] must be a string"))
        })?;
        let version = match ProtocolVersion::parse(requested) {
            Some(version) if !version.uses_handshake() => version,
            Some(_) => {
                return Err(unsupported_version(
                    requested,
                    format!(
                        "{requested} is a handshake version: send `initialize` to use it, or use a stateless version per request"
                    ),
                ));
            }
            None => return Err(unsupported_version(requested, format!("unsupported protocol version {requested:?}"))),
        };
        let capabilities = parse_field(CLIENT_CAPABILITIES, capabilities)?;
        let client_info = keys.client_info.map(|value| parse_field(CLIENT_INFO, value)).transpose()?;
        let log_level = keys.log_level.map(|value| parse_field(LOG_LEVEL, value)).transpose()?;
        Ok(Some(Envelope { version, capabilities, client_info, log_level }))
    }
}

/// The envelope's members of a request's `_meta`, found in one pass over
/// it: every 2026-07-28 request is checked for them several times (which
/// era it is, its required keys, its headers against its body, the
/// envelope itself), and a pass over a `_meta` of a few members costs less
/// than one SipHash lookup of a 40-byte key, let alone one per key.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keys<'a> {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub version: Option<&'a Value>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub capabilities: Option<&'a Value>,
    /// `io.modelcontextprotocol/clientInfo`.
    pub client_info: Option<&'a Value>,
    /// `io.modelcontextprotocol/logLevel`.
    pub log_level: Option<&'a Value>,
}

impl<'a> Keys<'a> {
    /// The envelope's members of `meta` (none when there is no `_meta`).
    pub fn of(meta: Option<&'a JsonObject>) -> Self {
        let mut keys = Keys::default();
        for (key, value) in meta.into_iter().flatten() {
            let slot = match key.as_str() {
                PROTOCOL_VERSION => &mut keys.version,
                CLIENT_CAPABILITIES => &mut keys.capabilities,
                CLIENT_INFO => &mut keys.client_info,
                LOG_LEVEL => &mut keys.log_level,
                _ => continue,
            };
            *slot = Some(value);
        }
        keys
    }

    /// Whether the request carries the envelope at all (complete or not).
    pub fn present(&self) -> bool {
        self.version.is_some() || self.capabilities.is_some()
    }

    /// Check that the keys every stateless request must carry are there
    /// (`-32602` naming the missing ones otherwise), before anything else
    /// about it is looked at.
    pub fn require(&self) -> Result<(), ErrorObject> {
        match (self.version.is_some(), self.capabilities.is_some()) {
            (true, true) => Ok(()),
            (version, capabilities) => Err(missing(version, capabilities)),
        }
    }
}

/// The `-32602` of an envelope without all of its required keys.
fn missing(version: bool, capabilities: bool) -> ErrorObject {
    let missing: Vec<&str> = [(PROTOCOL_VERSION, version), (CLIENT_CAPABILITIES, capabilities)]
        .into_iter()
        .filter_map(|(key, present)| (!present).then_some(key))
        .collect();
    ErrorObject::invalid_params(format!("params._meta is missing the required key(s) {}", missing.join(", ")))
}

fn parse_field<T: serde::de::DeserializeOwned>(key: &str, value: &Value) -> Result<T, ErrorObject> {
    T::deserialize(value).map_err(|e| ErrorObject::invalid_params(format!("params._meta[\"{key}\"] is invalid: {e}")))
}

/// `-32022`, with the versions this server speaks (newest first) and the
/// one asked for, so the client can choose again.
pub fn unsupported_version(requested: &str, message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(codes::UNSUPPORTED_PROTOCOL_VERSION, message)
        .with_data(json!({ "supported": supported_versions(), "requested": requested }))
}

/// `-32021`: this request needs client capabilities it did not declare.
pub fn missing_capability(required: Value) -> ErrorObject {
    let names: Vec<String> = required.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    ErrorObject::new(
        codes::MISSING_CLIENT_CAPABILITY,
        format!("this request needs the client capability {}", names.join(", ")),
    )
    .with_data(json!({ "requiredCapabilities": required }))
}

/// Every version this server speaks, newest first: the stateless one per
/// request, the others through `initialize`.
pub fn supported_versions() -> Vec<&'static str> {
    ProtocolVersion::ALL.iter().rev().map(|v| v.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(value: Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn the_keys_are_found_in_one_pass_and_judged_as_the_lookups_were() {
        let full = meta(json!({
            "progressToken": 7,
            CLIENT_INFO: {"name": "c", "version": "1"},
            PROTOCOL_VERSION: "2026-07-28",
            CLIENT_CAPABILITIES: {},
            LOG_LEVEL: "info",
        }));
        let keys = Keys::of(Some(&full));
        assert_eq!(keys.version, Some(&json!("2026-07-28")));
        assert_eq!(keys.capabilities, Some(&json!({})));
        assert_eq!(keys.client_info, Some(&json!({"name": "c", "version": "1"})));
        assert_eq!(keys.log_level, Some(&json!("info")));
        assert!(keys.present() && keys.require().is_ok());

        let none = Keys::of(None);
        assert!(!none.present());
        let other = meta(json!({"progressToken": 7}));
        assert!(!Keys::of(Some(&other)).present());
        let half = meta(json!({CLIENT_CAPABILITIES: {}}));
        let keys = Keys::of(Some(&half));
        assert!(keys.present());
        let error = keys.require().unwrap_err();
        assert_eq!(error.code, codes::INVALID_PARAMS);
        assert!(error.message.ends_with(PROTOCOL_VERSION), "{}", error.message);
    }

    #[test]
    fn a_request_without_envelope_keys_is_a_handshake_request() {
        assert_eq!(Envelope::from_meta(None), Ok(None));
        assert_eq!(Envelope::from_meta(Some(&meta(json!({"progressToken": 1})))), Ok(None));
    }

    #[test]
    fn a_complete_envelope_is_read() {
        let envelope = Envelope::from_meta(Some(&meta(json!({
            PROTOCOL_VERSION: "2026-07-28",
            CLIENT_CAPABILITIES: {"elicitation": {}},
            CLIENT_INFO: {"name": "c", "version": "1"},
            LOG_LEVEL: "warning",
        }))))
        .unwrap()
        .unwrap();
        assert_eq!(envelope.version, ProtocolVersion::V2026_07_28);
        assert!(envelope.capabilities.elicitation.is_some());
        assert_eq!(envelope.client_info.unwrap().name, "c");
        assert_eq!(envelope.log_level, Some(LoggingLevel::Warning));
    }

    #[test]
    fn incomplete_or_foreign_envelopes_get_the_spec_errors() {
        let missing = Envelope::from_meta(Some(&meta(json!({PROTOCOL_VERSION: "2026-07-28"})))).unwrap_err();
        assert_eq!(missing.code, codes::INVALID_PARAMS);
        assert!(missing.message.contains(CLIENT_CAPABILITIES), "{}", missing.message);

        let unknown =
            Envelope::from_meta(Some(&meta(json!({PROTOCOL_VERSION: "1900-01-01", CLIENT_CAPABILITIES: {}}))))
                .unwrap_err();
        assert_eq!(unknown.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            unknown.data,
            Some(json!({
                "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
                "requested": "1900-01-01"
            }))
        );

        let handshake =
            Envelope::from_meta(Some(&meta(json!({PROTOCOL_VERSION: "2025-11-25", CLIENT_CAPABILITIES: {}}))))
                .unwrap_err();
        assert_eq!(handshake.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert!(handshake.message.contains("initialize"));

        let level = Envelope::from_meta(Some(&meta(json!({
            PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, LOG_LEVEL: "loud"
        }))))
        .unwrap_err();
        assert_eq!(level.code, codes::INVALID_PARAMS);
    }
}
