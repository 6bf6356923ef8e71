//! Every JSON-able parameter type a user reaches for, each sent by a client
//! and echoed back through the tool.

use std::collections::{BTreeMap, HashMap};

use crate::support::client::{call, connect, find, list, text};
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Echo every integer width.
#[tool]
#[allow(clippy::too_many_arguments)] // one of each, in one call
fn integers(
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: i128,
    f: isize,
    g: u8,
    h: u16,
    i: u32,
    j: u64,
    k: u128,
    l: usize,
) -> String {
    format!("{a} {b} {c} {d} {e} {f} {g} {h} {i} {j} {k} {l}")
}

/// Echo floats, a flag, text and a character.
#[tool]
fn scalars(x: f32, y: f64, flag: bool, words: String, letter: char) -> String {
    format!("{x} {y} {flag} {words} {letter}")
}

/// Echo collections.
#[tool]
fn collections(
    list: Vec<u32>,
    map: HashMap<String, f64>,
    sorted: BTreeMap<String, bool>,
    pair: (u8, String),
) -> String {
    let mut keys: Vec<_> = map.iter().map(|(k, v)| format!("{k}={v}")).collect();
    keys.sort();
    format!("{list:?} {} {sorted:?} {pair:?}", keys.join(","))
}

/// Echo an optional value.
#[tool]
fn optional(maybe: Option<i32>, nested: Option<Vec<String>>) -> String {
    format!("{maybe:?} {nested:?}")
}

/// A direction.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Direction {
    North,
    South,
}

/// A shape.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

/// A point.
#[derive(Debug, Deserialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

/// A route between points.
#[derive(Debug, Deserialize, JsonSchema)]
struct Route {
    from: Point,
    to: Point,
    #[serde(default)]
    stops: Vec<Point>,
}

/// Echo user types.
#[tool]
fn user_types(direction: Direction, shape: Shape, route: Route) -> String {
    let shape = match shape {
        Shape::Circle { radius } => format!("circle of radius {radius}"),
        Shape::Square { side } => format!("square of side {side}"),
    };
    let Route { from, to, stops } = route;
    let stops = stops.len();
    format!("{direction:?}, {shape}, ({}, {}) to ({}, {}) with {stops} stops", from.x, from.y, to.x, to.y)
}

/// Echo any JSON.
#[tool]
fn anything(value: Value) -> String {
    value.to_string()
}

/// Report the time.
#[tool]
fn no_parameters() -> &'static str {
    "noon"
}

/// Runs the case: its checks panic when a shape is not honoured.
#[tokio::main]
pub async fn run() {
    let mut client = connect(
        Server::empty("types", "1")
            .tool(integers::Tool)
            .tool(scalars::Tool)
            .tool(collections::Tool)
            .tool(optional::Tool)
            .tool(user_types::Tool)
            .tool(anything::Tool)
            .tool(no_parameters::Tool),
    )
    .await;

    let out = call(
        &mut client,
        "integers",
        json!({"a": -8, "b": -16, "c": -32, "d": -64, "e": -128, "f": -1, "g": 8, "h": 16, "i": 32, "j": 64, "k": 128, "l": 1}),
    )
    .await;
    assert_eq!(text(&out), "-8 -16 -32 -64 -128 -1 8 16 32 64 128 1");

    let out =
        call(&mut client, "scalars", json!({"x": 0.5, "y": 2.25, "flag": true, "words": "hi there", "letter": "z"}))
            .await;
    assert_eq!(text(&out), "0.5 2.25 true hi there z");

    let out = call(
        &mut client,
        "collections",
        json!({"list": [3, 1], "map": {"b": 2.5, "a": 1}, "sorted": {"y": true, "x": false}, "pair": [7, "seven"]}),
    )
    .await;
    assert_eq!(text(&out), r#"[3, 1] a=1,b=2.5 {"x": false, "y": true} (7, "seven")"#);

    assert_eq!(text(&call(&mut client, "optional", json!({})).await), "None None");
    assert_eq!(text(&call(&mut client, "optional", json!({"maybe": null})).await), "None None");
    assert_eq!(
        text(&call(&mut client, "optional", json!({"maybe": 4, "nested": ["a"]})).await),
        r#"Some(4) Some(["a"])"#
    );

    let out = call(
        &mut client,
        "user_types",
        json!({
            "direction": "south",
            "shape": {"kind": "circle", "radius": 2.0},
            "route": {"from": {"x": 0, "y": 0}, "to": {"x": 1, "y": 2}}
        }),
    )
    .await;
    assert_eq!(text(&out), "South, circle of radius 2, (0, 0) to (1, 2) with 0 stops");

    let out = call(&mut client, "anything", json!({"value": {"deep": [1, null, "x"]}})).await;
    assert_eq!(text(&out), r#"{"deep":[1,null,"x"]}"#);
    assert_eq!(text(&call(&mut client, "no_parameters", json!({})).await), "noon");

    // Required-ness comes from the types; no parameters is an empty object.
    let tools = list(&mut client).await;
    assert_eq!(find(&tools, "optional")["inputSchema"].get("required"), None);
    assert_eq!(find(&tools, "scalars")["inputSchema"]["required"], json!(["x", "y", "flag", "words", "letter"]));
    assert_eq!(find(&tools, "no_parameters")["inputSchema"], json!({"type": "object", "properties": {}}));
    assert_eq!(
        find(&tools, "user_types")["inputSchema"]["properties"]["direction"],
        json!({"type": "string", "enum": ["north", "south"], "description": "A direction."})
    );
}
