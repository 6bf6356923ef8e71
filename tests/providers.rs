//! Tool definitions as each model provider takes them (OpenAI, Anthropic,
//! Gemini), for tools made with `#[tool]`, compared with
//! `golden/providers.json`. Regenerate it with `UPDATE_GOLDEN=1` and read
//! the diff before committing it.

use mcp_runtime::prelude::*;
use mcp_runtime::providers::{self, Provider};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Add two numbers.
#[tool]
fn add(
    /// The left operand
    a: f64,
    /// The right operand
    b: i64,
) -> f64 {
    a + b as f64
}

/// How to round.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Rounding {
    /// Towards zero.
    Down,
    /// Away from zero.
    Up,
}

/// Round a number, to `digits` places if given.
#[tool]
fn round(x: f64, mode: Rounding, digits: Option<u8>) -> f64 {
    let _ = mode;
    let scale = 10f64.powi(i32::from(digits.unwrap_or(0)));
    (x * scale).round() / scale
}

/// A postal address.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Address {
    /// The street and number.
    street: String,
    /// The city.
    city: String,
}

/// Ship a parcel.
#[tool]
fn ship(
    /// Where to.
    to: Address,
    /// Its weight in grams.
    grams: u32,
) -> String {
    format!("{} g to {}", grams, to.city)
}

/// A shape.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Shape {
    Circle {
        /// The radius.
        r: f64,
    },
    Rect {
        w: f64,
        h: f64,
    },
}

/// Measure a shape.
#[tool]
fn area(shape: Shape) -> f64 {
    match shape {
        Shape::Circle { r } => std::f64::consts::PI * r * r,
        Shape::Rect { w, h } => w * h,
    }
}

fn tools() -> Vec<mcp_runtime::protocol::Tool> {
    let server = Server::empty("providers", "1").tool(add::Tool).tool(round::Tool).tool(ship::Tool).tool(area::Tool);
    server.tool_definitions().expect("the tools are usable")
}

#[test]
fn tools_convert_to_each_providers_format() {
    let tools = tools();
    let mut actual = Map::new();
    for provider in Provider::ALL {
        actual.insert(provider.id().into(), Value::Array(providers::convert_all(provider, &tools)));
    }
    let actual = Value::Object(actual);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/providers.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the golden file")).unwrap();
    for provider in Provider::ALL {
        for (i, tool) in expected[provider.id()].as_array().unwrap().iter().enumerate() {
            assert_eq!(&actual[provider.id()][i], tool, "{} format of tool {i}", provider.name());
        }
    }
    assert_eq!(actual, expected);
}

#[test]
fn strict_mode_is_claimed_only_where_it_holds() {
    let strict: Vec<(String, bool)> = tools()
        .iter()
        .map(|t| providers::convert(Provider::OpenAi, t))
        .map(|f| (f["function"]["name"].as_str().unwrap().to_owned(), f["function"]["strict"].as_bool().unwrap()))
        .collect();
    // `area`'s variant fields are optional below the top level.
    let expected = [("add", true), ("area", false), ("round", true), ("ship", true)];
    assert_eq!(strict, expected.map(|(n, s)| (n.to_owned(), s)));
    let round = providers::convert(Provider::OpenAi, &tools()[2]);
    assert_eq!(round["function"]["parameters"]["properties"]["digits"]["type"], json!(["integer", "null"]));
}

#[tokio::test]
async fn what_strict_mode_sends_for_an_optional_argument_is_accepted() {
    let mut client =
        mcp_runtime::testing::TestClient::connect(Server::empty("p", "1").tool(round::Tool)).await.unwrap();
    let result = client.call_tool("round", json!({"x": 1.26, "mode": "up", "digits": null})).await.unwrap();
    assert_eq!(result.is_error, None, "{result:?}");
    assert_eq!(result.content[0].as_text(), Some("1"));
}
