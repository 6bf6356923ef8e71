//! The names Streamable HTTP gives things, for servers and clients alike:
//! its headers, and the form a mirrored value takes when a header cannot
//! carry it as it is (SEP-2243).

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// The session a handshake-era request belongs to.
pub const SESSION_ID: &str = "mcp-session-id";
/// The protocol version a request speaks.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The id of the last event a reconnecting client saw.
pub const LAST_EVENT_ID: &str = "last-event-id";
/// 2026-07-28: the request's method, mirrored from the body.
pub const MCP_METHOD: &str = "mcp-method";
/// 2026-07-28: the tool or prompt name, or the URI, a request names.
pub const MCP_NAME: &str = "mcp-name";

/// The params member a method names its target by, which `Mcp-Name`
/// mirrors: the tool or prompt name, the URI of a read, or the task of a
/// tasks method (other methods have no name to mirror).
pub fn mirrored_name(method: &str) -> Option<&'static str> {
    match method {
        crate::methods::TOOLS_CALL | crate::methods::PROMPTS_GET => Some("name"),
        crate::methods::RESOURCES_READ => Some("uri"),
        crate::methods::TASKS_GET | crate::methods::TASKS_UPDATE | crate::methods::TASKS_CANCEL => Some("taskId"),
        _ => None,
    }
}

/// A value as a client sends it in a mirroring header: itself when a header
/// carries it unchanged (printable ASCII, no whitespace at either end),
/// else `=?base64?…?=` of its UTF-8 bytes.
pub fn encode_value(value: &str) -> Cow<'_, str> {
    let printable = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    // A literal value in the encoded form would be decoded by the server.
    let looks_encoded = value.starts_with("=?base64?") && value.ends_with("?=");
    if printable && !padded && !looks_encoded {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("=?base64?{}?=", STANDARD.encode(value)))
    }
}

/// What a mirrored value says: itself, or, in the form `=?base64?…?=`, the
/// UTF-8 text its canonical, padded base64 encodes. `None` for a malformed
/// encoding.
pub fn decode_value(text: &str) -> Option<Cow<'_, str>> {
    let Some(payload) = text.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) else {
        return Some(Cow::Borrowed(text));
    };
    let bytes = STANDARD.decode(payload).ok()?;
    String::from_utf8(bytes).ok().map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_a_header_cannot_carry_round_trip_through_base64() {
        for value in ["us-west1", "Zürich", " padded ", "=?base64?aGk=?=", "line\nbreak", ""] {
            let encoded = encode_value(value);
            assert!(encoded.bytes().all(|b| (0x20..0x7f).contains(&b)), "{encoded:?}");
            assert_eq!(decode_value(&encoded).as_deref(), Some(value));
        }
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("Zürich"), "=?base64?WsO8cmljaA==?=");
        assert_eq!(decode_value("=?base64?not base64?="), None);
    }

    #[test]
    fn values_decode_from_canonical_base64_only() {
        assert_eq!(decode_value("=?base64?SGVsbG8=?=").as_deref(), Some("Hello"));
        assert_eq!(decode_value("=?base64?SGVsbG8?="), None, "padding is required");
        assert_eq!(decode_value("=?base64?SGVs!!!bG8=?="), None);
        assert_eq!(decode_value("=?base64?SGVsbG9=?="), None, "non-zero trailing bits");
        assert_eq!(decode_value("=?base64?/w==?="), None, "not UTF-8");
        // Without both ends of the wrapper a value is literal.
        assert_eq!(decode_value("SGVsbG8=").as_deref(), Some("SGVsbG8="));
        assert_eq!(decode_value("=?base64?SGVsbG8=").as_deref(), Some("=?base64?SGVsbG8="));
    }

    #[test]
    fn the_mirrored_name_is_the_parameter_each_method_names_its_target_by() {
        assert_eq!(mirrored_name(crate::methods::TOOLS_CALL), Some("name"));
        assert_eq!(mirrored_name(crate::methods::PROMPTS_GET), Some("name"));
        assert_eq!(mirrored_name(crate::methods::RESOURCES_READ), Some("uri"));
        assert_eq!(mirrored_name(crate::methods::TOOLS_LIST), None);
    }
}
