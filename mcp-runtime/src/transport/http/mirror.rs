//! Header values that mirror the body of a 2026-07-28 request (SEP-2243):
//! reading one (whitespace around it trimmed, the `=?base64?…?=` form
//! decoded), and checking a tool call's `Mcp-Param-*` headers against its
//! arguments.

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderValue};
use mcp_core::ErrorObject;
use mcp_core::headers::{ParamHeader, ParamKind};
use serde_json::Value;

/// A header's value as text, without the optional whitespace around it
/// (RFC 9110 §5.5).
pub(super) fn text(value: &HeaderValue) -> Cow<'_, str> {
    let mut bytes = value.as_bytes();
    while let [b' ' | b'\t', rest @ ..] = bytes {
        bytes = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = bytes {
        bytes = rest;
    }
    String::from_utf8_lossy(bytes)
}

/// The `-32020` error of a header that disagrees with the body.
pub(super) fn mismatch(message: String) -> ErrorObject {
    ErrorObject::new(mcp_core::codes::HEADER_MISMATCH, format!("header mismatch: {message}"))
}

/// Check each argument the tool mirrors in a header: header and argument
/// are sent together (a `null` argument counts as absent) and agree. An
/// argument no header can carry (an object, say) has no header to agree
/// with, so sending one for it is a mismatch.
impl crate::dispatch::arrival::MirroredParams for HeaderMap {
    fn mismatch(&self, declared: &[ParamHeader], arguments: Option<&Value>) -> Option<ErrorObject> {
        param_mismatch(self, declared, arguments)
    }
}

pub(super) fn param_mismatch(
    headers: &HeaderMap,
    mirrored: &[ParamHeader],
    arguments: Option<&Value>,
) -> Option<ErrorObject> {
    for param in mirrored {
        let name = param.header_name();
        let argument = param.path.join(".");
        let mut sent = headers.get_all(name.as_str()).iter();
        let (first, second) = (sent.next(), sent.next());
        if second.is_some() {
            return Some(mismatch(format!("{name} is sent more than once")));
        }
        let value = param.value_in(arguments);
        let (sent, value) = match (first, value) {
            (None, None) => continue,
            (Some(_), None) => {
                return Some(mismatch(format!("{name} is sent, but the argument `{argument}` is not")));
            }
            (None, Some(value)) if !mirrorable(value) => continue,
            (None, Some(_)) => {
                return Some(mismatch(format!("{name} is missing, but the argument `{argument}` is sent")));
            }
            (Some(sent), Some(value)) => (sent, value),
        };
        let sent = text(sent);
        let Some(decoded) = mcp_core::http::decode_value(&sent) else {
            return Some(mismatch(format!("{name} is not valid base64 of UTF-8 text: {sent:?}")));
        };
        if !agrees(param.kind, value, &decoded) {
            return Some(mismatch(format!("{name} is {decoded:?}, the argument `{argument}` is {value}")));
        }
    }
    None
}

/// Whether a client can mirror `value` in a header.
fn mirrorable(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// Whether a header's (decoded) text says the argument's value: a string
/// exactly, a boolean as `true`/`false`, a number as JSON writes it. An
/// integer argument compares as a number (`42` agrees with `42.0`).
fn agrees(kind: ParamKind, value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s == text,
        Value::Bool(b) => text == if *b { "true" } else { "false" },
        Value::Number(n) if kind == ParamKind::Integer => {
            let whole = match text.split_once('.') {
                Some((whole, fraction)) if !fraction.is_empty() && fraction.bytes().all(|b| b == b'0') => whole,
                Some(_) => return false,
                None => text,
            };
            let Ok(header) = whole.parse::<i128>() else { return false };
            let body = n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1e38).map(|f| f as i128));
            body == Some(header)
        }
        Value::Number(n) => n.to_string() == text,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_agree_by_type() {
        assert!(agrees(ParamKind::String, &json!("eu-west"), "eu-west"));
        assert!(!agrees(ParamKind::String, &json!("eu-west"), "EU-WEST"));
        assert!(agrees(ParamKind::Boolean, &json!(true), "true"));
        assert!(!agrees(ParamKind::Boolean, &json!(true), "True"));
        assert!(agrees(ParamKind::Integer, &json!(42), "42"));
        assert!(agrees(ParamKind::Integer, &json!(42), "42.0"));
        assert!(agrees(ParamKind::Integer, &json!(42.0), "42"));
        assert!(agrees(ParamKind::Integer, &json!(-7), "-7"));
        assert!(!agrees(ParamKind::Integer, &json!(42), "42.5"));
        assert!(!agrees(ParamKind::Integer, &json!(42), "4.2e1"));
        assert!(!agrees(ParamKind::Integer, &json!(42), "43"));
        assert!(agrees(ParamKind::Integer, &json!(u64::MAX), &u64::MAX.to_string()));
    }

    #[test]
    fn params_are_checked_against_their_arguments() {
        let mirrored = [ParamHeader { path: vec!["region".into()], name: "Region".into(), kind: ParamKind::String }];
        let check = |sent: &[&str], arguments: Value| {
            let mut headers = HeaderMap::new();
            for value in sent {
                headers.append("mcp-param-region", HeaderValue::from_str(value).unwrap());
            }
            param_mismatch(&headers, &mirrored, Some(&arguments)).map(|e| e.message)
        };
        assert_eq!(check(&["us"], json!({"region": "us"})), None);
        assert_eq!(check(&[" us "], json!({"region": "us"})), None);
        assert_eq!(check(&[], json!({})), None);
        assert_eq!(check(&[], json!({"region": null})), None);
        assert_eq!(check(&[], json!({"region": ["not", "mirrorable"]})), None);
        let refused = [
            (check(&["eu"], json!({"region": "us"})), "is \"eu\""),
            (check(&[], json!({"region": "us"})), "is missing"),
            (check(&["us"], json!({})), "is not"),
            (check(&["us", "us"], json!({"region": "us"})), "more than once"),
            (check(&["=?base64?dXM?="], json!({"region": "us"})), "not valid base64"),
        ];
        for (error, why) in refused {
            let error = error.expect(why);
            assert!(error.contains(why) && error.contains("Mcp-Param-Region"), "{error}");
        }
    }
}
