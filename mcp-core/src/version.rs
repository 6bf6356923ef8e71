//! The protocol versions this crate speaks, how a handshake picks one, and
//! which features each version knows (the basis of per-version projection).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An MCP protocol version. Ordered oldest to newest, so feature checks are
/// comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// `2024-11-05`: the baseline.
    V2024_11_05,
    /// `2025-03-26`: annotations, audio, batches, progress messages.
    V2025_03_26,
    /// `2025-06-18`: titles, output schemas, structured content, resource links.
    V2025_06_18,
    /// `2025-11-25`: icons, JSON Schema 2020-12 by default, tool-name rule.
    V2025_11_25,
    /// `2026-07-28`: stateless; no handshake.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every version, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest version.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The newest version that starts with an `initialize` handshake; what a
    /// server offers when the client asks for a version it does not know.
    pub const LATEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The version string on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The version named by `s`, if it is one this crate speaks.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Whether a client starts this version with `initialize`.
    pub const fn uses_handshake(self) -> bool {
        !matches!(self, ProtocolVersion::V2026_07_28)
    }

    /// The answer to an `initialize` asking for `requested`: the same version
    /// when it is a handshake version we speak, otherwise our latest
    /// handshake version (the client then decides whether to go on).
    pub fn negotiate(requested: &str) -> ProtocolVersion {
        match Self::parse(requested) {
            Some(v) if v.uses_handshake() => v,
            _ => Self::LATEST_HANDSHAKE,
        }
    }

    /// Tool `annotations` and audio content exist (2025-03-26 and later).
    pub fn has_annotations(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// Audio content exists (2025-03-26 and later).
    pub fn has_audio(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// `title`, `outputSchema`, `structuredContent`, `resource_link` content
    /// and `_meta` on tools exist (2025-06-18 and later).
    pub fn has_structured_output(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Structured output must be an object (2025-06-18 to 2025-11-25): a
    /// value of another type is sent as `{"result": value}`, and its
    /// output schema is wrapped to match.
    pub fn wraps_structured_output(self) -> bool {
        self.has_structured_output() && self < ProtocolVersion::V2026_07_28
    }

    /// `icons`, `execution` and implementation descriptions exist (2025-11-25
    /// and later).
    pub fn has_icons(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// Tool arguments may be mirrored in `Mcp-Param-*` HTTP headers, marked
    /// by `x-mcp-header` in the input schema (2026-07-28 and later).
    pub fn has_param_headers(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unsupported protocol version {s:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_and_order_is_chronological() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        let mut sorted = ProtocolVersion::ALL;
        sorted.sort_by_key(|v| v.as_str());
        assert_eq!(sorted, ProtocolVersion::ALL);
    }

    #[test]
    fn negotiation_echoes_known_handshake_versions_and_offers_latest_otherwise() {
        assert_eq!(ProtocolVersion::negotiate("2025-03-26"), ProtocolVersion::V2025_03_26);
        assert_eq!(ProtocolVersion::negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(ProtocolVersion::negotiate("1999-01-01"), ProtocolVersion::V2025_11_25);
        // The stateless version has no handshake; an `initialize` asking for
        // it is answered with the newest handshake version.
        assert_eq!(ProtocolVersion::negotiate("2026-07-28"), ProtocolVersion::V2025_11_25);
    }
}
