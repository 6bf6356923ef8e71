//! Content blocks: what a tool result carries.

use serde::{Deserialize, Serialize};

use crate::jsonrpc::JsonObject;
use crate::tool::Icon;
use crate::version::ProtocolVersion;

/// A list of blocks (`content`), read into a vector sized for one block
/// at first: most results have one, and the four serde starts a vector
/// with, for a block this size, are an allocation above a kilobyte that
/// costs the allocator a pass over its free lists (a tenth of a client's
/// work per `tools/call`, measured).
pub(crate) fn deserialize_blocks<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Content>, D::Error> {
    struct Blocks;
    impl<'de> serde::de::Visitor<'de> for Blocks {
        type Value = Vec<Content>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Content>, A::Error> {
            let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).clamp(1, 64));
            while let Some(block) = seq.next_element()? {
                blocks.push(block);
            }
            Ok(blocks)
        }
    }
    deserializer.deserialize_seq(Blocks)
}

/// One block of a tool result.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Content {
    /// Text.
    #[serde(rename = "text")]
    Text(TextContent),
    /// A base64-encoded image.
    #[serde(rename = "image")]
    Image(MediaContent),
    /// Base64-encoded audio (2025-03-26 and later).
    #[serde(rename = "audio")]
    Audio(MediaContent),
    /// A link to a resource (2025-06-18 and later).
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceLink),
    /// A resource embedded in the result.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

/// A block's `type`.
#[derive(Deserialize)]
enum Kind {
    #[serde(rename = "text")]
    Text,
    #[serde(rename = "image")]
    Image,
    #[serde(rename = "audio")]
    Audio,
    #[serde(rename = "resource_link")]
    ResourceLink,
    #[serde(rename = "resource")]
    Resource,
}

/// A member's name: `type`, or another (read with no copy when it is
/// `type`).
enum Name {
    Type,
    Other(String),
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Name;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }

            fn visit_str<E>(self, name: &str) -> Result<Name, E> {
                Ok(if name == "type" { Name::Type } else { Name::Other(name.to_owned()) })
            }

            fn visit_string<E>(self, name: String) -> Result<Name, E> {
                Ok(if name == "type" { Name::Type } else { Name::Other(name) })
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

/// Read as the derived internally tagged representation reads it, but a
/// block whose `type` comes first (as every writer of ours and the SDKs'
/// put it) has the rest of its members read straight into its kind's
/// struct: the derived reading first copies every member aside, and was
/// most of the cost of reading a tool's result.
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Content, D::Error> {
        struct Block;
        impl<'de> serde::de::Visitor<'de> for Block {
            type Value = Content;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a content block")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
                use serde::de::Error;
                let first = match map.next_key::<Name>()? {
                    Some(Name::Type) => {
                        let kind = map.next_value()?;
                        return block(kind, serde::de::value::MapAccessDeserializer::new(map));
                    }
                    Some(Name::Other(name)) => name,
                    None => return Err(A::Error::missing_field("type")),
                };
                // Elsewhere than first: the members gathered, `type` taken out.
                let mut members = JsonObject::new();
                members.insert(first, map.next_value()?);
                while let Some((key, value)) = map.next_entry::<String, serde_json::Value>()? {
                    members.insert(key, value);
                }
                let kind = members.remove("type").ok_or_else(|| A::Error::missing_field("type"))?;
                let kind = Kind::deserialize(kind).map_err(A::Error::custom)?;
                block(kind, serde_json::Value::Object(members)).map_err(A::Error::custom)
            }
        }
        deserializer.deserialize_map(Block)
    }
}

/// The block of kind `kind` whose other members `rest` holds.
fn block<'de, D: serde::Deserializer<'de>>(kind: Kind, rest: D) -> Result<Content, D::Error> {
    match kind {
        Kind::Text => TextContent::deserialize(rest).map(Content::Text),
        Kind::Image => MediaContent::deserialize(rest).map(Content::Image),
        Kind::Audio => MediaContent::deserialize(rest).map(Content::Audio),
        Kind::ResourceLink => ResourceLink::deserialize(rest).map(Content::ResourceLink),
        Kind::Resource => EmbeddedResource::deserialize(rest).map(Content::Resource),
    }
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent { text: text.into(), annotations: None, meta: None })
    }

    /// The text of a text block.
    /// This block as `version` knows it, or `None` where it has no place:
    /// resource links are dropped before 2025-06-18, and audio before
    /// 2025-03-26 becomes a text note, so the client reads every block.
    pub fn for_version(self, version: ProtocolVersion) -> Option<Content> {
        match self {
            Content::ResourceLink(_) if !version.has_structured_output() => None,
            Content::Audio(audio) if !version.has_audio() => {
                Some(Content::text(format!("[audio omitted: {} is not supported by this client]", audio.mime_type)))
            }
            block => Some(block),
        }
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// Hints for the client about how to use a block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the block is for: `"user"` and/or `"assistant"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<String>>,
    /// 0 (least) to 1 (most important).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// A text block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Base64-encoded media: the body of an image or audio block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// Base64-encoded data.
    pub data: String,
    /// e.g. `image/png`, `audio/wav`.
    pub mime_type: String,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A link to a resource (2025-06-18 and later).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A resource embedded in a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Client hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The contents of a resource: text or a base64 blob.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource's URI.
        uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// Binary contents.
    Blob {
        /// The resource's URI.
        uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64-encoded data.
        blob: String,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
}

impl ResourceContents {
    /// The URI of the resource it is the contents of.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }

    /// Its raw bytes: the text's UTF-8, or the blob decoded (`None` for a
    /// blob that is not base64).
    pub fn bytes(&self) -> Option<Vec<u8>> {
        use base64::Engine;
        match self {
            ResourceContents::Text { text, .. } => Some(text.clone().into_bytes()),
            ResourceContents::Blob { blob, .. } => base64::engine::general_purpose::STANDARD.decode(blob).ok(),
        }
    }
}

impl ResourceLink {
    /// A link to the resource at `uri`, called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: None,
            annotations: None,
            meta: None,
        }
    }

    /// What the resource is, for the model.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

impl EmbeddedResource {
    /// A text resource at `uri`, embedded in the result.
    pub fn text(uri: impl Into<String>, text: impl Into<String>, mime_type: Option<&str>) -> Self {
        let contents = ResourceContents::Text {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            text: text.into(),
            meta: None,
        };
        EmbeddedResource { resource: contents, annotations: None, meta: None }
    }

    /// A binary resource at `uri`, its bytes already base64-encoded.
    pub fn blob_base64(uri: impl Into<String>, base64: impl Into<String>, mime_type: Option<&str>) -> Self {
        let contents = ResourceContents::Blob {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            blob: base64.into(),
            meta: None,
        };
        EmbeddedResource { resource: contents, annotations: None, meta: None }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content::text(text)
    }
}

impl From<ResourceLink> for Content {
    fn from(link: ResourceLink) -> Content {
        Content::ResourceLink(link)
    }
}

impl From<EmbeddedResource> for Content {
    fn from(resource: EmbeddedResource) -> Content {
        Content::Resource(resource)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// The derived reading, which `Content`'s own must match.
    #[derive(Deserialize)]
    #[serde(tag = "type")]
    enum Derived {
        #[serde(rename = "text")]
        Text(TextContent),
        #[serde(rename = "image")]
        Image(MediaContent),
        #[serde(rename = "audio")]
        Audio(MediaContent),
        #[serde(rename = "resource_link")]
        ResourceLink(ResourceLink),
        #[serde(rename = "resource")]
        Resource(EmbeddedResource),
    }

    impl From<Derived> for Content {
        fn from(derived: Derived) -> Content {
            match derived {
                Derived::Text(block) => Content::Text(block),
                Derived::Image(block) => Content::Image(block),
                Derived::Audio(block) => Content::Audio(block),
                Derived::ResourceLink(block) => Content::ResourceLink(block),
                Derived::Resource(block) => Content::Resource(block),
            }
        }
    }

    #[test]
    fn blocks_are_read_as_the_derived_representation_reads_them_wherever_their_type_is() {
        let blocks = [
            json!({"type": "text", "text": "hi", "annotations": {"priority": 0.5}, "_meta": {"k": 1}}),
            json!({"type": "image", "data": "AAA=", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "AAA=", "mimeType": "audio/wav", "extra": [1, {"x": null}]}),
            json!({"type": "resource_link", "uri": "a://b", "name": "b", "size": 3}),
            json!({"type": "resource", "resource": {"uri": "a://b", "text": "t"}}),
            // Not blocks: each is refused both ways.
            json!({"type": "video", "data": "AAA="}),
            json!({"type": 7, "text": "hi"}),
            json!({"type": null, "text": "hi"}),
            json!({"text": "hi"}),
            json!({"type": "text"}),
            json!({"type": "image", "data": 1, "mimeType": "image/png"}),
            json!({}),
            json!([]),
            json!("text"),
        ];
        for block in &blocks[..5] {
            serde_json::from_value::<Content>(block.clone()).unwrap();
        }
        for block in blocks {
            let Value::Object(members) = &block else {
                assert!(serde_json::from_value::<Content>(block.clone()).is_err());
                assert!(serde_json::from_str::<Content>(&block.to_string()).is_err());
                continue;
            };
            // `type` first, last, and second of three or more.
            let mut orders = vec![block.clone()];
            let (kind, rest): (Vec<_>, Vec<_>) = members.iter().partition(|(key, _)| *key == "type");
            let last: JsonObject = rest.iter().chain(&kind).map(|(k, v)| ((*k).clone(), (*v).clone())).collect();
            orders.push(Value::Object(last));
            if rest.len() >= 2 {
                let second = rest[..1].iter().chain(&kind).chain(&rest[1..]);
                orders.push(Value::Object(second.map(|(k, v)| ((*k).clone(), (*v).clone())).collect()));
            }
            for order in orders {
                let text = order.to_string();
                let derived = serde_json::from_str::<Derived>(&text).map(Content::from);
                let read = serde_json::from_str::<Content>(&text);
                assert_eq!(read.as_ref().ok(), derived.as_ref().ok(), "{text}");
                assert_eq!(read.is_err(), derived.is_err(), "{text}");
                let from_value = serde_json::from_value::<Content>(order.clone());
                assert_eq!(from_value.ok(), derived.ok(), "{text} as a value");
            }
        }
        // An escaped `type` is `type`.
        let escaped: Content = serde_json::from_str(r#"{"\u0074ype": "text", "text": "hi"}"#).unwrap();
        assert_eq!(escaped, Content::text("hi"));
    }
}
