//! What one JSON text from a server holds, as the session takes it: an
//! answer's result kept as its text, read once by the caller into the type
//! it wants; any other message typed.

use std::borrow::Cow;

use mcp_core::jsonrpc::{InvalidMessage, Text};
use mcp_core::{Message, RequestId};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny};
use serde_json::value::RawValue;

use super::Inbound;

/// Hand `take` each item `text` holds: one message, or a batch's;
/// anything else is logged and dropped (a server that writes garbage
/// loses that text, not the connection).
pub(crate) fn each(text: &[u8], mut take: impl FnMut(Inbound)) {
    if text.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    if let Some(answer) = answer(text) {
        return take(answer);
    }
    // Read straight into a message's members, as the server reads its
    // requests: no map is built for the envelope.
    let invalid = |invalid: &InvalidMessage| {
        tracing::warn!(reason = %invalid.reason, "the server sent an invalid message; ignored");
    };
    match Message::parse(text) {
        Text::Message(message) => take(Inbound::Message(message)),
        Text::Batch(items) => {
            for item in items {
                match Message::from_value(item) {
                    Ok(message) => take(Inbound::Message(message)),
                    Err(reason) => invalid(&reason),
                }
            }
        }
        Text::Invalid(reason) => invalid(&reason),
        Text::NotJson(error) => {
            let start = String::from_utf8_lossy(&text[..text.len().min(120)]).into_owned();
            tracing::warn!(%error, line = %start, "the server sent something that is not JSON; ignored");
        }
    }
}

/// A successful answer's members, its result left as text: what most
/// texts from a server are. Anything else (a request, a notification, an
/// error, an answer with a member twice or an id of the wrong type) does
/// not fit, and is read as a [`Message`], which says what is wrong.
#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: RequestId,
    #[serde(default, deserialize_with = "present")]
    method: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    error: Option<IgnoredAny>,
    result: Box<RawValue>,
}

/// A member that is there, `null` included (a `null` method still makes
/// a message a request, and a broken one).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<IgnoredAny>, D::Error> {
    IgnoredAny::deserialize(deserializer).map(Some)
}

/// `text` as a successful answer, if it is a plain one.
fn answer(text: &[u8]) -> Option<Inbound> {
    let answer: Answer = serde_json::from_slice(text).ok()?;
    let plain =
        answer.jsonrpc == mcp_core::jsonrpc::JsonRpcVersion::STR && answer.method.is_none() && answer.error.is_none();
    plain.then_some(Inbound::Result(answer.id, answer.result))
}

#[cfg(test)]
mod tests {
    use mcp_core::Response;
    use serde_json::Value;

    use super::*;

    fn parse(text: &[u8]) -> Vec<Inbound> {
        let mut items = Vec::new();
        each(text, |item| items.push(item));
        items
    }

    #[test]
    fn garbage_is_dropped_and_batches_are_split() {
        assert!(parse(b"not json").is_empty());
        assert!(parse(b"{\"jsonrpc\":\"2.0\"}").is_empty());
        assert!(parse(b"   ").is_empty());
        let batch = parse(br#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"x"},7]"#);
        assert_eq!(batch.len(), 2);
    }

    /// What a text gives, in a form that compares: an answer's id and
    /// result as a value, whichever way it was read.
    fn read(text: &str) -> Vec<String> {
        parse(text.as_bytes())
            .into_iter()
            .map(|item| match item {
                Inbound::Result(id, result) => {
                    let result: Value = serde_json::from_str(result.get()).unwrap();
                    format!("{:?}", Message::Response(Response::result(id, result)))
                }
                Inbound::Message(message) => format!("{message:?}"),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn through_message(text: &str) -> Vec<String> {
        match Message::parse(text.as_bytes()) {
            Text::Message(message) => vec![format!("{message:?}")],
            _ => Vec::new(),
        }
    }

    #[test]
    fn answers_are_kept_as_text_and_read_as_the_message_would_be() {
        let plain = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"6"}]}}"#;
        assert!(matches!(&parse(plain.as_bytes())[..], [Inbound::Result(RequestId::Number(7), _)]));
        let texts = [
            plain,
            r#" {"result":null,"extra":[1],"id":"a","jsonrpc":"2.0"} "#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"params":{}}"#,
            // Not plain answers: each is read as a message, or dropped.
            r#"{"jsonrpc":"2.0","id":1,"result":{},"method":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1,"result":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2\u002e0","\u0069d":3,"result":[]}"#,
            r#"{"id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}} trailing"#,
        ];
        for text in texts {
            assert_eq!(read(text), through_message(text), "{text}");
        }
    }
}
