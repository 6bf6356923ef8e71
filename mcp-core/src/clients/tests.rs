use super::*;
use serde_json::json;

fn tool(input: Value) -> Tool {
    Tool::new("t", input.as_object().unwrap().clone())
}

fn with_output(output: Value) -> Tool {
    let mut tool = tool(json!({"type": "object", "properties": {}}));
    tool.output_schema = Some(output.as_object().unwrap().clone());
    tool
}

/// (client id, path) of every problem.
fn found(tool: &Tool) -> Vec<(&'static str, String)> {
    check_tool(tool).into_iter().map(|p| (p.client.id(), p.path)).collect()
}

fn clients_at(tool: &Tool, path: &str) -> Vec<&'static str> {
    found(tool).into_iter().filter(|(_, p)| p == path).map(|(c, _)| c).collect()
}

#[test]
fn ids_round_trip_and_a_plain_tool_is_clear() {
    for client in KnownClient::ALL {
        assert_eq!(KnownClient::from_id(client.id()), Some(client));
    }
    assert_eq!(KnownClient::from_id("netscape"), None);
    let plain = tool(json!({"type": "object", "properties": {
        "a": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
        "tags": {"type": "array", "items": {"type": "string"}},
        "mode": {"type": "string", "enum": ["fast", "slow"]}
    }, "required": ["a"]}));
    assert_eq!(found(&plain), []);
}

#[test]
fn names_outside_visual_studios_pattern() {
    let mut t = tool(json!({"type": "object", "properties": {}}));
    t.name = "notes.search".into();
    assert_eq!(found(&t), [("visual-studio", String::new() + "name")]);
    t.name = "notes_search-2".into();
    assert_eq!(found(&t), []);
}

#[test]
fn combinators_for_gemini_and_codex() {
    let t = tool(json!({"type": "object", "properties": {
        "shape": {"type": "object", "oneOf": [{"type": "object", "properties": {}}]},
        "id": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    }}));
    assert_eq!(clients_at(&t, "inputSchema.properties.shape.oneOf"), ["gemini-cli"]);
    assert_eq!(clients_at(&t, "inputSchema.properties.id.anyOf"), ["gemini-cli", "codex"]);
    let gemini = check_tool(&t).into_iter().find(|p| p.path.ends_with("id.anyOf")).unwrap();
    assert!(gemini.message.contains("without a `type`"), "{}", gemini.message);
    let root = tool(json!({"type": "object", "properties": {}, "oneOf": [{"required": ["a"]}], "enum": [{}]}));
    assert_eq!(clients_at(&root, "inputSchema.oneOf"), ["gemini-cli", "codex"]);
    assert_eq!(clients_at(&root, "inputSchema.enum"), ["codex"]);
}

#[test]
fn type_lists_for_cursor_and_gemini() {
    let t = tool(json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}));
    assert_eq!(clients_at(&t, "inputSchema.properties.n.type"), ["cursor", "gemini-cli"]);
}

#[test]
fn references_per_client_and_place() {
    let input = tool(json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}},
        "$defs": {"P": {"type": "object", "properties": {}}}}));
    assert_eq!(clients_at(&input, "inputSchema.properties.p.$ref"), ["claude-desktop", "vscode", "gemini-cli"]);
    assert_eq!(clients_at(&input, "inputSchema.$defs"), ["claude-desktop", "cursor", "gemini-cli"]);
    let output = with_output(json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}},
        "$defs": {"P": {"type": "string"}}}));
    assert!(clients_at(&output, "outputSchema.properties.p.$ref").contains(&"claude-code"));
    assert!(clients_at(&output, "outputSchema.$defs").contains(&"claude-code"));
}

#[test]
fn dialects() {
    let t = tool(json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": {}}));
    assert_eq!(clients_at(&t, "inputSchema.$schema"), ["gemini-cli"]);
    let t = tool(json!({"$schema": "https://spec.openapis.org/oas/3.0/schema", "type": "object",
        "properties": {}}));
    assert_eq!(clients_at(&t, "inputSchema.$schema"), ["gemini-cli", "vscode"]);
    let t = with_output(json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {}}));
    assert_eq!(clients_at(&t, "outputSchema.$schema"), ["gemini-cli", "claude-code"]);
}

#[test]
fn additional_properties() {
    let map = tool(json!({"type": "object", "properties": {
        "m": {"type": "object", "additionalProperties": {"type": "number"}},
        "open": {"type": "object", "properties": {}, "additionalProperties": true},
        "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}
    }}));
    assert_eq!(
        found(&map),
        [
            ("gemini-cli", "inputSchema.properties.m.additionalProperties".to_owned()),
            ("codex", "inputSchema.properties.m".to_owned()),
            ("gemini-cli", "inputSchema.properties.closed.additionalProperties".to_owned()),
        ]
    );
    let closed_empty = tool(json!({"type": "object", "properties": {}, "additionalProperties": false}));
    assert_eq!(clients_at(&closed_empty, "inputSchema.additionalProperties"), ["gemini-cli", "cursor"]);
}

#[test]
fn objects_without_properties_for_codex() {
    let t = tool(json!({"type": "object"}));
    assert_eq!(found(&t), [("codex", "inputSchema".to_owned())]);
}

#[test]
fn arrays_without_items_for_copilot() {
    let t = tool(json!({"type": "object", "properties": {
        "tuple": {"type": "array", "prefixItems": [{"type": "string"}]},
        "any": {"type": "array", "items": true},
        "fine": {"type": "array", "items": {}}
    }}));
    assert_eq!(
        found(&t),
        [
            ("vscode", "inputSchema.properties.tuple".to_owned()),
            ("visual-studio", "inputSchema.properties.tuple".to_owned()),
            ("vscode", "inputSchema.properties.any".to_owned()),
            ("visual-studio", "inputSchema.properties.any".to_owned()),
        ]
    );
}

#[test]
fn nullable_for_claude_code() {
    let t = tool(json!({"type": "object", "properties": {"s": {"type": "string", "nullable": true}}}));
    assert_eq!(found(&t), [("claude-code", "inputSchema.properties.s.nullable".to_owned())]);
}

#[test]
fn integer_bounds_beyond_javascript() {
    let t = tool(json!({"type": "object", "properties": {
        "big": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64},
        "safe": {"type": "integer", "minimum": -9007199254740991i64, "maximum": 9007199254740991i64},
        "float": {"type": "number", "maximum": 1e300}
    }}));
    assert_eq!(
        clients_at(&t, "inputSchema.properties.big.maximum"),
        ["claude-desktop", "claude-code", "cursor", "vscode", "gemini-cli"]
    );
    assert_eq!(found(&t).len(), 5);
}

#[test]
fn output_schemas_for_claude_desktop_and_their_formats() {
    let t = with_output(json!({"type": "object", "properties": {
        "n": {"type": "integer", "format": "uint32"}, "at": {"type": "string", "format": "date-time"}
    }}));
    assert_eq!(
        found(&t),
        [
            ("claude-desktop", "outputSchema".to_owned()),
            ("claude-desktop", "outputSchema.properties.n.format".to_owned()),
            ("claude-code", "outputSchema.properties.n.format".to_owned()),
            ("gemini-cli", "outputSchema.properties.n.format".to_owned()),
        ]
    );
    let input_format = tool(json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint32"}}}));
    assert_eq!(found(&input_format), []);
}

#[test]
fn every_problem_says_how_to_fix_it() {
    let t = tool(json!({"$schema": "x", "type": "object", "properties": {
        "a": {"type": ["string", "null"], "nullable": true}, "b": {"$ref": "#/$defs/B"},
        "m": {"type": "object", "additionalProperties": {"type": "string"}}, "l": {"type": "array"}
    }, "$defs": {"B": {"anyOf": [{"type": "string"}]}}, "oneOf": [{}]}));
    let problems = check_tool(&t);
    assert!(problems.len() > 15);
    for p in problems {
        assert!(!p.fix.is_empty() && !p.message.is_empty(), "{p:?}");
        assert_eq!(p.item, "tool t");
    }
}
