//! Ordinary Rust types never break a call: `Option` at any depth in
//! arguments and in structured output, through the protocol as a client
//! sees it, in both schema profiles. (The property test over a corpus of
//! types is `ordinary_types.rs`.)

use crate::common::memory::{call, connect, list};
use mcp_core::SchemaProfile;
use mcp_runtime::Server;
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// An item of a list.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Item {
    /// Its number.
    id: u64,
    /// A note, if any.
    note: Option<String>,
    /// Tags, some unknown.
    tags: Vec<Option<String>>,
    /// More, if any.
    inner: Option<Inner>,
}

/// Nested detail.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Inner {
    /// A label, if any.
    label: Option<String>,
    /// A count with a default.
    #[serde(default)]
    count: u32,
}

/// An item whose optional parts are all empty.
#[tool]
fn bare(id: u64) -> Json<Item> {
    Json(Item { id, note: None, tags: vec![None, Some("x".into())], inner: Some(Inner { label: None, count: 1 }) })
}

/// The item as it arrived.
#[tool]
fn echo(item: Item) -> Json<Item> {
    Json(item)
}

/// A list of items (not an object: wrapped as `{"result": …}`).
#[tool]
fn many(n: u64) -> Json<Vec<Item>> {
    Json((0..n).map(|id| Item { id, note: None, tags: vec![], inner: None }).collect())
}

/// Maybe an item.
#[tool]
fn maybe(present: bool) -> Json<Option<Item>> {
    Json(present.then(|| Item { id: 7, note: None, tags: vec![None], inner: None }))
}

fn server(profile: SchemaProfile) -> Server {
    Server::empty("ordinary", "1")
        .schema_profile(profile)
        .tool(bare::Tool)
        .tool(echo::Tool)
        .tool(many::Tool)
        .tool(maybe::Tool)
}

/// The result succeeded, its structured content validates against the
/// listed output schema (as the SDK clients check it), and its text
/// mirror is the same value.
fn assert_sound(tools: &[Value], name: &str, result: &Value) -> Value {
    assert_eq!(result.get("isError"), None, "{name}: {result}");
    let structured = result["structuredContent"].clone();
    let schema = &tools.iter().find(|t| t["name"] == name).unwrap()["outputSchema"];
    let validator = jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("{name}: {e}: {schema}"));
    if let Err(error) = validator.validate(&structured) {
        panic!("{name}: {structured} breaks its listed schema {schema}: {error}");
    }
    // A value that is not an object travels as `{"result": …}`; the text
    // mirrors the value itself.
    let wrapped = schema["required"] == json!(["result"]);
    let value = if wrapped { &structured["result"] } else { &structured };
    let mirror: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&mirror, value, "{name}: the text mirror");
    structured
}

#[tokio::test]
async fn none_fields_in_structured_output_are_left_out_and_the_result_validates() {
    for profile in [SchemaProfile::Portable, SchemaProfile::Strict] {
        let mut client = connect(server(profile)).await;
        let tools = list(&mut client).await;
        let result = call(&mut client, "bare", json!({"id": 3})).await;
        let structured = assert_sound(&tools, "bare", &result);
        let expected = match profile {
            // The listed schema has `note` as an optional plain string.
            SchemaProfile::Portable => json!({"id": 3, "tags": [null, "x"], "inner": {"count": 1}}),
            SchemaProfile::Strict => {
                json!({"id": 3, "note": null, "tags": [null, "x"], "inner": {"label": null, "count": 1}})
            }
        };
        assert_eq!(structured, expected, "{profile:?}");
        let result = call(&mut client, "many", json!({"n": 2})).await;
        assert_eq!(assert_sound(&tools, "many", &result)["result"][1]["id"], 1, "{profile:?}");
        for present in [true, false] {
            let result = call(&mut client, "maybe", json!({"present": present})).await;
            let structured = assert_sound(&tools, "maybe", &result);
            assert_eq!(structured["result"].is_null(), !present, "{profile:?}: {structured}");
        }
    }
}

#[tokio::test]
async fn null_for_an_optional_field_is_accepted_at_any_depth() {
    for profile in [SchemaProfile::Portable, SchemaProfile::Strict] {
        let mut client = connect(server(profile)).await;
        let tools = list(&mut client).await;
        let sent = json!({"item": {"id": 1, "note": null, "tags": [null], "inner": {"label": null, "count": null}}});
        let result = call(&mut client, "echo", sent).await;
        let structured = assert_sound(&tools, "echo", &result);
        // `count: null` became its default, as if not sent.
        assert_eq!(structured["inner"]["count"], 0, "{profile:?}: {structured}");
        assert_eq!(structured["tags"], json!([null]), "{profile:?}");
        let result = call(&mut client, "echo", json!({"item": {"id": 1, "tags": [], "inner": null}})).await;
        assert_sound(&tools, "echo", &result);
    }
}

#[tokio::test]
async fn a_value_of_the_wrong_type_beside_null_is_still_refused_by_name() {
    let mut client = connect(server(SchemaProfile::Portable)).await;
    let result = call(&mut client, "echo", json!({"item": {"id": 1, "tags": [], "note": 5}})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], "argument `item.note`: expected a string, got the number 5");
}
