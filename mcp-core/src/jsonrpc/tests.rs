use serde_json::json;

use super::*;

#[test]
fn members_are_found_by_scan_in_small_objects_and_by_lookup_in_large_ones() {
    let small: JsonObject = serde_json::from_str(r#"{"name": "n", "_meta": {}, "arguments": {"a": 1}}"#).unwrap();
    assert_eq!(member(&small, "arguments"), Some(&json!({"a": 1})));
    assert_eq!(member(&small, "name"), Some(&Value::from("n")));
    assert_eq!(member(&small, "missing"), None);
    let large: JsonObject = (0..20).map(|i| (format!("k{i}"), Value::from(i))).collect();
    assert_eq!(member(&large, "k17"), Some(&Value::from(17)));
    assert_eq!(member(&large, "k20"), None);
    assert_eq!(request_meta(Some(&small)), Some(&JsonObject::new()));
    assert_eq!(request_meta(Some(&large)), None);
    assert_eq!(request_meta(None), None);
}

fn classify(v: Value) -> Result<Message, InvalidMessage> {
    Message::from_value(v)
}

#[test]
fn request_notification_and_response_are_told_apart() {
    let req = classify(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).unwrap();
    assert_eq!(req, Message::Request(Request::new(1, "ping", None)));
    let note = classify(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).unwrap();
    assert_eq!(note, Message::Notification(Notification::new("notifications/initialized", None)));
    let resp = classify(json!({"jsonrpc":"2.0","id":"a","result":{}})).unwrap();
    assert_eq!(resp, Message::Response(Response::result("a".into(), json!({}))));
}

#[test]
fn invalid_messages_keep_the_id_when_readable() {
    let err = classify(json!({"jsonrpc":"1.0","id":7,"method":"ping"})).unwrap_err();
    assert_eq!(err.id, Some(RequestId::Number(7)));
    assert!(err.reason.contains("2.0"), "{}", err.reason);
    let err = classify(json!({"jsonrpc":"2.0","id":7,"method":"x","params":[1]})).unwrap_err();
    assert_eq!(err.id, Some(RequestId::Number(7)));
    assert!(err.reason.contains("`params` must be an object"), "{}", err.reason);
    let err = classify(json!({"jsonrpc":"2.0","id":null,"method":"x"})).unwrap_err();
    assert_eq!(err.id, None);
    let err = classify(json!(42)).unwrap_err();
    assert_eq!(err.reason, "expected a JSON object, got a number");
    let err = classify(json!({"jsonrpc":"2.0","id":3})).unwrap_err();
    assert_eq!(err.id, Some(RequestId::Number(3)));
}

#[test]
fn a_text_read_straight_into_members_is_classified_as_through_a_value() {
    // What each text gives, in a form that compares: the message, the
    // batch's length, the invalid message, or that it is not JSON.
    fn through_value(text: &str) -> String {
        match serde_json::from_str::<Value>(text) {
            Err(_) => "not JSON".to_owned(),
            Ok(Value::Array(items)) => format!("batch of {}", items.len()),
            Ok(value) => format!("{:?}", Message::from_value(value)),
        }
    }
    fn parsed(text: &str) -> String {
        match Message::parse(text.as_bytes()) {
            Text::NotJson(_) => "not JSON".to_owned(),
            Text::Batch(items) => format!("batch of {}", items.len()),
            Text::Message(message) => format!("{:?}", Ok::<_, InvalidMessage>(message)),
            Text::Invalid(invalid) => format!("{:?}", Err::<Message, _>(invalid)),
        }
    }
    let texts = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}"#,
        r#"  {"method":"ping","id":"a","jsonrpc":"2.0","extra":[1,{"b":null}]}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":null}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#,
        r#"{"jsonrpc":"2.0","method":"x","params":"p"}"#,
        r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
        r#"{"id":7,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":3}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
        // Duplicate keys: the last one counts, as in a `Value`.
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}"#,
        // An escaped member name is the same member.
        r#"{"jsonrpc":"2.0","\u0069d":4,"method":"ping"}"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        "[]",
        "42",
        r#""text""#,
        "null",
        "{not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}  "#,
        "",
    ];
    for text in texts {
        assert_eq!(parsed(text), through_value(text), "{text}");
    }
}

#[test]
fn responses_serialize_with_null_id_for_parse_errors() {
    let r = Response::error(None, ErrorObject::parse_error("eof"));
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: eof"}})
    );
    let back: Response = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn version_marker_rejects_other_versions() {
    assert!(serde_json::from_value::<Request>(json!({"jsonrpc":"1.0","id":1,"method":"a"})).is_err());
    assert_eq!(RequestId::from("x").to_string(), "\"x\"");
}
