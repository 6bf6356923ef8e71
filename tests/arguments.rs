//! Argument failures, through the protocol: each bad call gets an `isError`
//! result whose text names the field, what was expected and what was sent,
//! and the tool never runs.

use std::collections::HashMap;

use crate::common::memory::{call, connect};
use mcp_runtime::Server;
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// How to deliver.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Speed {
    Standard,
    Express,
}

/// One line of an order.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Line {
    /// The product code, like "AB-123".
    #[schemars(regex(pattern = r"^[A-Z]{2}-\d{3}$"))]
    sku: String,
    /// How many.
    #[schemars(range(min = 1, max = 99))]
    quantity: u32,
}

/// An order.
#[derive(Debug, Deserialize, JsonSchema)]
struct Order {
    /// Who ordered.
    #[schemars(length(min = 2, max = 20))]
    customer: String,
    /// What they ordered.
    #[schemars(length(min = 1, max = 3))]
    lines: Vec<Line>,
    /// A discount between 0 and 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    discount: Option<f64>,
}

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Place an order.
#[tool]
fn place(order: Order, speed: Speed, notes: Option<String>) -> String {
    let items: Vec<String> = order.lines.iter().map(|l| format!("{}x{}", l.quantity, l.sku)).collect();
    let discount = order.discount.unwrap_or_default();
    format!("{} for {} at {discount} off, {speed:?}, {notes:?}", items.join(" "), order.customer)
}

/// Tally counts by name.
#[tool]
fn tally(counts: HashMap<String, u8>, tags: Vec<String>, flag: bool, letter: char, small: i8) -> String {
    format!("{} {} {flag} {letter} {small}", counts.len(), tags.len())
}

fn server() -> Server {
    Server::empty("arguments", "1").tool(add::Tool).tool(place::Tool).tool(tally::Tool)
}

fn good_order() -> Value {
    json!({"customer": "Ada", "lines": [{"sku": "AB-123", "quantity": 2}], "discount": 0.1})
}

fn with(mut base: Value, pointer: &str, value: Value) -> Value {
    *base.pointer_mut(pointer).unwrap_or_else(|| panic!("no {pointer} in the order")) = value;
    base
}

#[tokio::test]
async fn every_bad_argument_is_named_with_what_was_expected_and_sent() {
    let order = good_order();
    let cases: Vec<(&str, Value, &str)> = vec![
        // Missing and mistyped scalars.
        ("add", json!({"b": 1}), "argument `a`: required but not sent"),
        ("add", json!({"a": "two", "b": 1}), "argument `a`: expected a number, got the string \"two\""),
        ("add", json!({"a": true, "b": 1}), "argument `a`: expected a number, got the boolean true"),
        ("add", json!({"a": null, "b": 1}), "argument `a`: expected a number, got null"),
        ("add", json!({"a": [1], "b": 1}), "argument `a`: expected a number, got an array of 1 item"),
        ("add", json!({"a": {"v": 1}, "b": 1}), "argument `a`: expected a number, got an object"),
        (
            "add",
            json!({}),
            "2 problems with the arguments:\n- argument `a`: required but not sent\n- argument `b`: required but not sent",
        ),
        ("add", json!("a=1"), "`arguments` must be a JSON object, got the string \"a=1\""),
        ("add", json!(5), "`arguments` must be a JSON object, got the number 5"),
        // Enums.
        (
            "place",
            json!({"order": order, "speed": "warp"}),
            "argument `speed`: expected one of \"standard\", \"express\", got the string \"warp\"",
        ),
        ("place", json!({"order": order, "speed": 1}), "argument `speed`: expected a string, got the number 1"),
        // Nested fields: missing, bounds, lengths, patterns, unknown fields.
        (
            "place",
            json!({"order": {"lines": []}, "speed": "express"}),
            "2 problems with the arguments:\n- argument `order.customer`: required but not sent\n- argument `order.lines`: must have at least 1 item, got an array of 0 items",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/customer", json!("A")), "speed": "express"}),
            "argument `order.customer`: must be at least 2 characters long, got the string \"A\"",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/customer", json!("A".repeat(21))), "speed": "express"}),
            "argument `order.customer`: must be at most 20 characters long, got the string \"AAAAAAAAAAAAAAAAAAAAA\"",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/lines/0/quantity", json!(0)), "speed": "express"}),
            "argument `order.lines[0].quantity`: must be at least 1, got the number 0",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/lines/0/quantity", json!(100)), "speed": "express"}),
            "argument `order.lines[0].quantity`: must be at most 99, got the number 100",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/lines/0/quantity", json!(1.5)), "speed": "express"}),
            "argument `order.lines[0].quantity`: expected an integer, got the number 1.5",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/lines/0/sku", json!("ab-1")), "speed": "express"}),
            "argument `order.lines[0].sku`: must match the pattern `^[A-Z]{2}-\\d{3}$`, got the string \"ab-1\"",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/lines/0", json!({"sku": "AB-123", "quantity": 1, "gift": true})), "speed": "express"}),
            "argument `order.lines[0]`: unknown field `gift`",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/lines", Value::Array(vec![json!({"sku": "AB-123", "quantity": 1}); 4])), "speed": "express"}),
            "argument `order.lines`: must have at most 3 items, got an array of 4 items",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/discount", json!(1.5)), "speed": "express"}),
            "argument `order.discount`: must be at most 1.0, got the number 1.5",
        ),
        (
            "place",
            json!({"order": with(order.clone(), "/discount", json!(-0.1)), "speed": "express"}),
            "argument `order.discount`: must be at least 0.0, got the number -0.1",
        ),
        (
            "place",
            json!({"order": "not json", "speed": "express"}),
            "argument `order`: expected an object, got the string \"not json\"",
        ),
        (
            "place",
            json!({"order": order, "speed": "express", "notes": 7}),
            "argument `notes`: expected a string, got the number 7",
        ),
        // Maps, lists, booleans, characters and integer widths.
        (
            "tally",
            json!({"counts": {"a": 300}, "tags": [], "flag": true, "letter": "x", "small": 0}),
            "argument `counts.a`: must be at most 255, got the number 300",
        ),
        (
            "tally",
            json!({"counts": {"a": -1}, "tags": [], "flag": true, "letter": "x", "small": 0}),
            "argument `counts.a`: must be at least 0, got the number -1",
        ),
        (
            "tally",
            json!({"counts": [], "tags": [], "flag": true, "letter": "x", "small": 0}),
            "argument `counts`: expected an object, got an array of 0 items",
        ),
        (
            "tally",
            json!({"counts": {}, "tags": [1], "flag": true, "letter": "x", "small": 0}),
            "argument `tags[0]`: expected a string, got the number 1",
        ),
        (
            "tally",
            json!({"counts": {}, "tags": "a,b", "flag": true, "letter": "x", "small": 0}),
            "argument `tags`: expected an array, got the string \"a,b\"",
        ),
        (
            "tally",
            json!({"counts": {}, "tags": [], "flag": "yes", "letter": "x", "small": 0}),
            "argument `flag`: expected a boolean (true or false), got the string \"yes\"",
        ),
        (
            "tally",
            json!({"counts": {}, "tags": [], "flag": true, "letter": "xy", "small": 0}),
            "argument `letter`: must be at most 1 character long, got the string \"xy\"",
        ),
        (
            "tally",
            json!({"counts": {}, "tags": [], "flag": true, "letter": "x", "small": 128}),
            "argument `small`: must be at most 127, got the number 128",
        ),
        (
            "tally",
            json!({"counts": {}, "tags": [], "flag": true, "letter": "x", "small": -129}),
            "argument `small`: must be at least -128, got the number -129",
        ),
    ];
    assert!(cases.len() >= 30);
    let mut client = connect(server()).await;
    for (tool, arguments, expected) in cases {
        let result = call(&mut client, tool, arguments.clone()).await;
        assert_eq!(result["isError"], true, "{tool} {arguments} should fail: {result}");
        assert_eq!(result["content"][0]["text"], expected, "{tool} {arguments}");
    }
}

#[tokio::test]
async fn good_arguments_pass_and_stringified_json_is_decoded_once() {
    let mut client = connect(server()).await;
    let ok = |result: &Value| {
        assert_ne!(result["isError"], true, "{result}");
        result["content"][0]["text"].as_str().unwrap().to_owned()
    };
    let result = call(&mut client, "place", json!({"order": good_order(), "speed": "express", "notes": null})).await;
    assert_eq!(ok(&result), "2xAB-123 for Ada at 0.1 off, Express, None");
    // Models often send objects, lists and whole argument objects as JSON text.
    let order = good_order().to_string();
    let result = call(&mut client, "place", json!({"order": order, "speed": "standard"})).await;
    assert_eq!(ok(&result), "2xAB-123 for Ada at 0.1 off, Standard, None");
    let arguments =
        json!({"counts": "{\"a\": 1}", "tags": "[\"x\"]", "flag": false, "letter": "q", "small": -3}).to_string();
    assert_eq!(ok(&call(&mut client, "tally", json!(arguments)).await), "1 1 false q -3");

    // A strict server takes arguments exactly as sent.
    let mut strict = connect(server().strict_arguments(true)).await;
    let result = call(&mut strict, "place", json!({"order": good_order().to_string(), "speed": "standard"})).await;
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("argument `order`: expected an object, got the string")
    );
}

/// A shape, internally tagged: the portable schema lists every variant's
/// fields in one object, and the checked one what each kind needs.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle.
    Circle {
        /// The radius.
        r: f64,
    },
    /// A rectangle.
    Rect { w: f64, h: f64 },
    /// Nothing at all.
    Nothing,
}

/// Measure a shape's area.
#[tool]
fn area(shape: Shape) -> f64 {
    match shape {
        Shape::Circle { r } => 3.0 * r * r,
        Shape::Rect { w, h } => w * h,
        Shape::Nothing => 0.0,
    }
}

/// A move, externally tagged (serde's default), with a unit variant.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // The fields are read through `Debug`.
enum Move {
    Step { dx: i32, dy: i32 },
    Jump(u32),
    Stay,
}

/// Count by name, and echo a 64-bit id.
#[tool]
fn ledger(mv: Move, totals: HashMap<String, u64>, id: u64) -> String {
    format!("{mv:?} {} {id}", totals.values().sum::<u64>())
}

#[tokio::test]
async fn data_enums_maps_and_wide_integers_are_portable_and_still_checked_exactly() {
    let server = || Server::empty("shapes", "1").tool(area::Tool).tool(ledger::Tool);
    mcp_runtime::clients::check_clients(&server()).assert_clear();
    let mut client = connect(server()).await;
    let ok = |result: Value| {
        assert_ne!(result["isError"], true, "{result}");
        result["content"][0]["text"].as_str().unwrap().to_owned()
    };
    for (shape, area) in [
        (json!({"kind": "circle", "r": 2.0}), "12"),
        (json!({"kind": "rect", "w": 2, "h": 3}), "6"),
        (json!({"kind": "nothing"}), "0"),
    ] {
        assert_eq!(ok(call(&mut client, "area", json!({"shape": shape})).await), area, "{shape}");
    }
    for (mv, expected) in [
        (json!({"Step": {"dx": 1, "dy": -1}}), "Step { dx: 1, dy: -1 }"),
        (json!({"Jump": 3}), "Jump(3)"),
        (json!("Stay"), "Stay"),
    ] {
        let text = ok(call(&mut client, "ledger", json!({"mv": mv, "totals": {"a": 1, "b": 2}, "id": 7})).await);
        assert_eq!(text, format!("{expected} 3 7"));
    }
    // The advertised bound is 2^53 - 1; the server takes the whole `u64`.
    let big = json!({"mv": "Stay", "totals": {"a": u64::MAX}, "id": u64::MAX});
    assert_eq!(ok(call(&mut client, "ledger", big).await), format!("Stay {} {}", u64::MAX, u64::MAX));

    let refused = [
        ("area", json!({"shape": {"kind": "circle"}}), "argument `shape.r`: required but not sent"),
        ("area", json!({"shape": {"kind": "rect", "w": 1}}), "argument `shape.h`: required but not sent"),
        (
            "area",
            json!({"shape": {"kind": "hexagon"}}),
            "argument `shape.kind`: expected one of \"circle\", \"rect\", \"nothing\", got the string \"hexagon\"",
        ),
        ("area", json!({"shape": {"r": 1}}), "argument `shape.kind`: required but not sent"),
        (
            "area",
            json!({"shape": {"kind": "circle", "r": "big"}}),
            "argument `shape.r`: expected a number, got the string \"big\"",
        ),
        (
            "ledger",
            json!({"mv": {"Step": {"dx": 1, "dy": 1}, "Jump": 2}, "totals": {}, "id": 1}),
            "argument `mv`: invalid value: map, expected map with a single key",
        ),
        (
            "ledger",
            json!({"mv": "Fly", "totals": {}, "id": 1}),
            "argument `mv`: expected one of \"Stay\", got the string \"Fly\"",
        ),
        ("ledger", json!({"mv": "Stay", "totals": {"a": -1}, "id": 1}), "argument `totals.a`: must be at least 0"),
    ];
    for (tool, arguments, expected) in refused {
        let result = call(&mut client, tool, arguments.clone()).await;
        assert_eq!(result["isError"], true, "{arguments} should fail: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with(expected), "{arguments}: {text}");
    }
}

/// Find products in a category.
#[tool]
fn find(
    /// Which category
    #[arg(default = "Electronics")]
    category: String,
    /// Where to look
    #[arg(default = "/srv/catalog")]
    root: std::path::PathBuf,
) -> String {
    format!("{category} under {}", root.display())
}

#[tokio::test]
async fn a_string_literal_is_the_default_of_a_string_parameter() {
    let mut client = connect(Server::empty("t", "1").tool(find::Tool)).await;
    let tools = client.request("tools/list", json!({})).await.unwrap();
    let properties = &tools["result"]["tools"][0]["inputSchema"]["properties"];
    assert_eq!(properties["category"]["default"], "Electronics", "{properties}");
    assert_eq!(properties["root"]["default"], "/srv/catalog", "{properties}");
    let found = call(&mut client, "find", json!({})).await;
    assert_eq!(found["content"][0]["text"], "Electronics under /srv/catalog", "{found}");
    let found = call(&mut client, "find", json!({"category": "Books"})).await;
    assert_eq!(found["content"][0]["text"], "Books under /srv/catalog", "{found}");
}
