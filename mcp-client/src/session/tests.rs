use super::*;

#[test]
fn a_result_asks_for_input_as_its_value_would_say() {
    let cases = [
        (r#"{"content":[{"type":"text","text":"6"}]}"#, false),
        (r#"{"resultType":"complete","content":[]}"#, false),
        (r#"{"inputRequests":{},"resultType":"input_required"}"#, true),
        (r#"{"result\u0054ype":"input_required"}"#, true),
        (r#"{"resultType":"complete","resultType":"input_required"}"#, true),
        (r#"{"resultType":7}"#, false),
        (r#"{"structuredContent":{"resultType":"input_required"}}"#, false),
        (r#"["resultType"]"#, false),
    ];
    for (text, asks) in cases {
        let result = RawValue::from_string(text.to_owned()).unwrap();
        assert_eq!(asks_for_input(&result), asks, "{text}");
    }
}
