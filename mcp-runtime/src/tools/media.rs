//! Results beyond text: images, audio, embedded resources and resource
//! links, each usable as a tool's return value or as one block of a
//! `Vec<Content>`.

use std::io;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_core::{CallToolResult, Content, EmbeddedResource, MediaContent, ResourceContents, ResourceLink};

use super::result::IntoToolResult;

/// An image result: bytes and their MIME type, sent base64-encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    bytes: Vec<u8>,
    mime_type: String,
}

/// An audio result (2025-03-26 clients and later; older ones get a note
/// saying it was left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Audio {
    bytes: Vec<u8>,
    mime_type: String,
}

macro_rules! media {
    ($name:ident, $kind:literal, $variant:ident, [$($ext:literal => $mime:literal),* $(,)?]) => {
        impl $name {
            #[doc = concat!("An ", $kind, " of `mime_type` (e.g. `\"", $($mime,)* "\"`).")]
            pub fn new(bytes: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
                $name { bytes: bytes.into(), mime_type: mime_type.into() }
            }

            #[doc = concat!("Read an ", $kind, " file; its MIME type comes from the extension (", $("`", $ext, "` ",)* ").")]
            pub fn from_path(path: impl AsRef<Path>) -> io::Result<Self> {
                let path = path.as_ref();
                let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
                let mime_type = match extension.as_deref() {
                    $(Some($ext) => $mime,)*
                    _ => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!(
                                concat!("cannot tell the MIME type of {} from its extension; use `", stringify!($name), "::new(bytes, mime_type)`"),
                                path.display()
                            ),
                        ))
                    }
                };
                Ok($name::new(std::fs::read(path)?, mime_type))
            }

            /// The MIME type.
            pub fn mime_type(&self) -> &str {
                &self.mime_type
            }
        }

        impl From<$name> for Content {
            fn from(media: $name) -> Content {
                Content::$variant(MediaContent {
                    data: STANDARD.encode(&media.bytes),
                    mime_type: media.mime_type,
                    annotations: None,
                    meta: None,
                })
            }
        }

        impl IntoToolResult for $name {
            fn into_tool_result(self) -> CallToolResult {
                CallToolResult::success(vec![self.into()])
            }
        }
    };
}

media!(Image, "image", Image, [
    "png" => "image/png", "jpg" => "image/jpeg", "jpeg" => "image/jpeg", "gif" => "image/gif",
    "webp" => "image/webp", "svg" => "image/svg+xml", "bmp" => "image/bmp", "ico" => "image/x-icon",
]);
media!(Audio, "audio clip", Audio, [
    "wav" => "audio/wav", "mp3" => "audio/mpeg", "ogg" => "audio/ogg", "flac" => "audio/flac",
    "m4a" => "audio/mp4", "aac" => "audio/aac", "webm" => "audio/webm",
]);

/// Contents embedded in a result, as a resource would carry them (its URI,
/// and text or bytes sent base64-encoded). This is a block of a result, not
/// a resource the server offers.
#[derive(Clone, Debug, PartialEq)]
pub struct Embedded(EmbeddedResource);

impl Embedded {
    /// Text contents of the resource at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Embedded(EmbeddedResource::text(uri, text, None))
    }

    /// Binary contents of the resource at `uri`.
    pub fn blob(uri: impl Into<String>, bytes: &[u8], mime_type: &str) -> Self {
        Embedded(EmbeddedResource::blob_base64(uri, STANDARD.encode(bytes), Some(mime_type)))
    }

    /// Say what the contents are (`text/markdown`, `application/json`).
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        let (ResourceContents::Text { mime_type: slot, .. } | ResourceContents::Blob { mime_type: slot, .. }) =
            &mut self.0.resource;
        *slot = Some(mime_type.into());
        self
    }
}

impl From<Embedded> for Content {
    fn from(resource: Embedded) -> Content {
        Content::Resource(resource.0)
    }
}

impl IntoToolResult for Embedded {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self.into()])
    }
}

/// A link to a resource the client can fetch (2025-06-18 and later; older
/// clients get the result without it).
impl IntoToolResult for ResourceLink {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::ResourceLink(self)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_is_base64_with_its_type() {
        let result = Image::new(vec![0x89, b'P', b'N', b'G'], "image/png").into_tool_result();
        let Content::Image(image) = &result.content[0] else { panic!("an image block") };
        assert_eq!((image.data.as_str(), image.mime_type.as_str()), ("iVBORw==", "image/png"));
        let err = Audio::from_path("clip.xyz").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("use `Audio::new(bytes, mime_type)`"), "{err}");
    }
}
