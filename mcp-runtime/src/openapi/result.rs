//! The API's answer as MCP sees it: a tool's result (JSON as text and, when
//! the tool declares an output schema, structured content; other text as
//! text; images as images; an error status as an error result the model
//! can read) or a resource's contents (text, or a blob).

use mcp_core::content::MediaContent;
use mcp_core::{CallToolResult, Content};
use serde_json::Value;

use super::backend::Answer;
use crate::resources::{Blob, Contents, IntoResourceContents, ResourceError};

/// How much of an error answer's body the model is shown.
const MAX_ERROR_TEXT: usize = 2_000;

/// An answer as a tool's result.
pub(crate) fn tool_result(answer: Answer, max: usize, structured: bool) -> CallToolResult {
    if let Some(why) = refusal(&answer, max) {
        return CallToolResult::error_text(why);
    }
    let Answer { media, body, .. } = answer;
    if (super::operation::is_json(&media) || media.is_empty())
        && let Ok(value) = serde_json::from_slice::<Value>(&body)
    {
        let text = String::from_utf8_lossy(&body).into_owned();
        let mut result = CallToolResult::success(vec![Content::text(text)]);
        if structured && value.is_object() {
            result.structured_content = Some(value);
        }
        return result;
    }
    if media.starts_with("image/") {
        use base64::Engine;
        let data = base64::engine::general_purpose::STANDARD.encode(&body);
        return CallToolResult::success(vec![Content::Image(MediaContent {
            data,
            mime_type: essence(&media),
            annotations: None,
            meta: None,
        })]);
    }
    match String::from_utf8(body) {
        Ok(text) => CallToolResult::success(vec![Content::text(text)]),
        Err(error) => CallToolResult::success(vec![Content::text(format!(
            "the API answered with {} bytes of binary data ({})",
            error.as_bytes().len(),
            if media.is_empty() { "no content type" } else { media.as_str() }
        ))]),
    }
}

/// An answer as a resource's contents at `uri`: text when it is UTF-8,
/// a blob otherwise; an error status is a read error (404 a not-found).
pub(crate) fn resource_contents(answer: Answer, uri: &str, max: usize) -> Contents {
    if let Some(why) = refusal(&answer, max) {
        return Err(match answer.status.as_u16() {
            404 => ResourceError::not_found(why),
            _ => ResourceError::new(why),
        });
    }
    let mime_type = match answer.media.as_str() {
        "" => "application/json".to_owned(),
        media => essence(media),
    };
    match String::from_utf8(answer.body) {
        Ok(text) => text.into_contents(uri, Some(&mime_type)),
        Err(error) => Blob::new(error.into_bytes()).with_mime_type(mime_type).into_contents(uri, None),
    }
}

/// Why an answer is not passed on: an error status (with the start of
/// the API's text), or a body past the bound.
fn refusal(answer: &Answer, max: usize) -> Option<String> {
    let status = answer.status;
    if !status.is_success() {
        let text = String::from_utf8_lossy(&answer.body);
        let mut shown: String = text.trim().chars().take(MAX_ERROR_TEXT).collect();
        if shown.len() < text.trim().len() {
            shown.push_str(" …");
        }
        let reason = status.canonical_reason().unwrap_or("");
        return Some(match shown.is_empty() {
            true => format!("the API answered {} {reason}", status.as_u16()),
            false => format!("the API answered {} {reason}: {shown}", status.as_u16()),
        });
    }
    answer.cut.then(|| {
        format!(
            "the API's answer is larger than {max} bytes, the most this tool reads; ask for less (a filter, a page)"
        )
    })
}

/// A media type without its parameters.
fn essence(media: &str) -> String {
    media.split(';').next().unwrap_or(media).trim().to_owned()
}
