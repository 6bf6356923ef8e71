//! The exact `inputSchema` a client sees for each common parameter type,
//! under both schema profiles, compared with `golden/schemas.json`; and
//! every portable schema is valid under the 2020-12 and draft-07
//! meta-schemas. Regenerate the golden file with `UPDATE_GOLDEN=1` and read
//! the diff before committing it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::marker::PhantomData;

use mcp_runtime::protocol::CallToolResult;
use mcp_runtime::{
    Server, clients,
    clients::{ClientReport, SchemaProfile},
    request::RequestParts,
    tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition},
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// A tool with one argument `v` of type `T`, described as `#[tool]` would.
struct One<T>(&'static str, PhantomData<fn() -> T>);

impl<T: serde::de::DeserializeOwned + JsonSchema + 'static> Tool for One<T> {
    fn definition(&self) -> ToolDefinition {
        let mut builder = ToolBuilder::new(self.0, module_path!(), self.0);
        builder.parameter::<T>("v", Some("The value"));
        builder.build()
    }

    fn call(&self, _: RequestParts) -> BoxFuture<'static, CallToolResult> {
        Box::pin(async { CallToolResult::success(Vec::new()) })
    }
}

/// A unit enum.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Color {
    Red,
    Green,
}

/// A documented unit enum.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
enum Mode {
    /// Fast and rough.
    QuickScan,
    /// Slow and thorough.
    DeepScan,
}

/// A data-carrying enum, externally tagged.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Shape {
    Circle { radius: f64 },
    Square(f64),
    Empty,
}

/// An internally tagged enum.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Event {
    Click { x: i32, y: i32 },
    Key { code: u16 },
}

/// `#[serde(tag = "kind")]` with a newtype and a unit variant, as users write it.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Figure {
    /// A circle.
    Circle {
        /// The radius.
        r: f64,
    },
    Rect {
        w: f64,
        h: f64,
    },
    At(Point),
    Nothing,
}

/// Adjacently tagged.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
#[allow(dead_code)]
enum Adjacent {
    Circle { r: f64 },
    Rect { w: f64, h: f64 },
    Empty,
}

/// Untagged structs.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum ById {
    Id { id: u64 },
    Name { name: String, exact: Option<bool> },
}

/// Untagged plain types: no portable shape.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum IdOrName {
    Id(u64),
    Name(String),
}

/// Two variants with a field of one name and different types.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", deny_unknown_fields)]
#[allow(dead_code)]
enum Clash {
    Number { value: u8 },
    Text { value: String },
}

/// A point.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Point {
    /// Horizontal.
    x: f64,
    /// Vertical.
    y: f64,
}

/// A struct holding another.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Segment {
    from: Point,
    to: Point,
    label: Option<String>,
}

fn default_limit() -> u32 {
    10
}

/// A struct with defaults.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Query {
    text: String,
    #[serde(default = "default_limit")]
    limit: u32,
    #[serde(default)]
    exact: bool,
}

/// Renamed fields.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct Renamed {
    first_name: String,
    last_name: Option<String>,
}

/// A newtype.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct UserId(u64);

fn tools() -> Vec<Box<dyn Fn(Server) -> Server>> {
    macro_rules! one {
        ($($name:literal: $ty:ty),* $(,)?) => {
            vec![$(Box::new(|s: Server| s.tool(One::<$ty>($name, PhantomData)))),*]
        };
    }
    one![
        "i8": i8, "i16": i16, "i32": i32, "i64": i64, "i128": i128, "isize": isize,
        "u8": u8, "u16": u16, "u32": u32, "u64": u64, "u128": u128, "usize": usize,
        "f32": f32, "f64": f64, "bool": bool, "char": char, "string": String,
        "vec_string": Vec<String>, "vec_points": Vec<Point>, "set_u8": HashSet<u8>,
        "tuple": (String, i32), "array3": [f64; 3],
        "map_f64": HashMap<String, f64>, "btree_points": BTreeMap<String, Point>,
        "option_i32": Option<i32>, "option_point": Option<Point>, "option_vec": Option<Vec<u8>>,
        "unit_enum": Color, "documented_enum": Mode, "data_enum": Shape, "tagged_enum": Event,
        "struct": Point, "nested_struct": Segment, "defaults": Query, "renamed": Renamed,
        "newtype": UserId, "json_value": Value,
        "figure": Figure, "adjacent": Adjacent, "untagged": ById, "untagged_plain": IdOrName, "clash": Clash,
        "option_figure": Option<Figure>, "map_u64": HashMap<String, u64>, "vec_value": Vec<Value>,
    ]
}

fn schemas(profile: SchemaProfile) -> Map<String, Value> {
    let server = tools().into_iter().fold(Server::empty("golden", "1").schema_profile(profile), |s, add| add(s));
    let tools = server.tool_definitions().expect("every schema is usable");
    tools.into_iter().map(|t| (t.name, Value::Object(t.input_schema))).collect()
}

#[test]
fn input_schemas_match_the_golden_file_under_both_profiles() {
    let actual = json!({
        "portable": schemas(SchemaProfile::Portable),
        "strict": schemas(SchemaProfile::Strict),
    });
    assert!(actual["portable"].as_object().unwrap().len() >= 25);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/schemas.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the golden file")).unwrap();
    for profile in ["portable", "strict"] {
        for (name, schema) in expected[profile].as_object().unwrap() {
            assert_eq!(&actual[profile][name], schema, "{profile} schema of `{name}`");
        }
        assert_eq!(actual[profile].as_object().unwrap().len(), expected[profile].as_object().unwrap().len());
    }
}

/// Types the portable profile has no shape for every client takes, and the
/// clients that say so.
const NOT_PORTABLE: &[(&str, &[&str])] = &[("untagged_plain", &["gemini-cli", "codex"])];

#[test]
fn every_client_takes_the_portable_schemas_and_the_strict_ones_are_named() {
    let tools = |profile| {
        let server = tools().into_iter().fold(Server::empty("golden", "1").schema_profile(profile), |s, add| add(s));
        server.tool_definitions().unwrap()
    };
    for tool in tools(SchemaProfile::Portable) {
        let mut clients: Vec<&str> = clients::check_tool(&tool).iter().map(|p| p.client.id()).collect();
        clients.dedup();
        let expected = NOT_PORTABLE.iter().find(|(name, _)| *name == tool.name).map_or(&[][..], |(_, c)| *c);
        assert_eq!(clients, expected, "`{}`: {:?}", tool.name, clients::check_tool(&tool));
    }
    let strict = ClientReport::for_tools(&tools(SchemaProfile::Strict));
    let named: Vec<(&str, &str)> = strict
        .problems()
        .iter()
        .map(|p| (p.item.as_str(), p.path.as_str()))
        .filter(|(i, _)| *i == "tool figure")
        .collect();
    assert!(named.contains(&("tool figure", "inputSchema.$defs")), "{strict}");
    assert!(named.contains(&("tool figure", "inputSchema.properties.v.$ref")), "{strict}");
    assert_eq!(
        strict.clients_with_problems().len(),
        clients::KnownClient::ALL.len() - 1,
        "all but Claude Code: {strict}"
    );
}

#[test]
fn portable_schemas_follow_the_profile_and_both_meta_schemas() {
    for (name, schema) in schemas(SchemaProfile::Portable) {
        jsonschema::draft202012::meta::validate(&schema)
            .unwrap_or_else(|e| panic!("`{name}` is not valid 2020-12: {e}\n{schema:#}"));
        jsonschema::draft7::meta::validate(&schema).unwrap_or_else(|e| panic!("`{name}` is not valid draft-07: {e}"));
        let text = schema.to_string();
        for banned in ["$ref", "$defs", "$schema", "nullable", "\"null\"", "definitions"] {
            assert!(!text.contains(banned), "`{name}` has {banned}: {text}");
        }
        assert!(schema["properties"].is_object(), "`{name}` has no properties");
        // Shaping is idempotent, so a host may shape a listed schema again.
        let again = mcp_runtime::protocol::schema::apply(SchemaProfile::Portable, schema.clone()).unwrap();
        assert_eq!(again, schema, "`{name}` changes when shaped again");
        every_property_has_a_type(&name, &schema["properties"]);
    }
    for (name, schema) in schemas(SchemaProfile::Strict) {
        jsonschema::draft202012::meta::validate(&schema)
            .unwrap_or_else(|e| panic!("strict `{name}` is not valid 2020-12: {e}"));
    }
}

/// Every property of an object schema says its type (or is any JSON value,
/// which has no type to say).
fn every_property_has_a_type(tool: &str, properties: &Value) {
    for (name, property) in properties.as_object().unwrap() {
        let any_value = property.as_object().is_some_and(|p| p.keys().all(|k| k == "description"));
        let has_type =
            property.get("type").is_some() || property.get("oneOf").is_some() || property.get("anyOf").is_some();
        assert!(any_value || has_type, "`{tool}`: property `{name}` has no type: {property}");
        if let Some(nested) = property.get("properties") {
            every_property_has_a_type(tool, nested);
        }
    }
}

/// A tree: recursive, so only the strict profile can describe it.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Tree {
    children: Vec<Tree>,
}

/// Count a tree's nodes: the tool keeps its full 2020-12 schema.
#[mcp_runtime::tool(schema = "strict")]
fn count_nodes(tree: Tree) -> usize {
    1 + tree.children.len()
}

/// A tool whose whole input schema is data, kept whole.
struct Contact;

impl Tool for Contact {
    fn definition(&self) -> ToolDefinition {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            "properties": {"address": {"$ref": "#/$defs/address"}, "phone": {"type": "string"},
                "email": {"type": "string"}},
            "anyOf": [{"required": ["phone"]}, {"required": ["email"]}],
            "additionalProperties": false
        });
        let mut builder = ToolBuilder::new("contact", module_path!(), "Contact");
        builder.schema_profile(SchemaProfile::Strict).input_schema(schema.as_object().unwrap().clone());
        builder.build()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let text = Value::Object(request.arguments().clone()).to_string();
        Box::pin(async move { CallToolResult::success(vec![mcp_runtime::Content::text(text)]) })
    }
}

/// A hand-written tool whose input schema is the given data.
struct Handwritten(Value);

impl Tool for Handwritten {
    fn definition(&self) -> ToolDefinition {
        let mut builder = ToolBuilder::new("handwritten", module_path!(), "Handwritten");
        builder.schema_profile(SchemaProfile::Strict).input_schema(self.0.as_object().unwrap().clone());
        builder.build()
    }

    fn call(&self, _: RequestParts) -> BoxFuture<'static, CallToolResult> {
        Box::pin(async { CallToolResult::success(vec![]) })
    }
}

#[test]
fn a_schema_the_runtime_cannot_check_stops_the_server_naming_the_keyword() {
    let cases = [
        // Valid JSON Schema, but look-ahead is beyond the runtime's regex engine.
        (
            json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^(?=.*\\d)"}}}),
            "at `#/properties/code/pattern`: the pattern `^(?=.*\\d)` is not supported",
        ),
        (
            json!({"type": "object", "properties": {"code": {"type": "string", "minLength": "3"}}}),
            "at `#/properties/code/minLength`: must be a non-negative integer",
        ),
        (
            json!({"type": "object", "properties": {"code": {"type": "strnig"}}}),
            "at `#/properties/code/type`: \"strnig\" is not a JSON Schema type",
        ),
    ];
    for (schema, expected) in cases {
        let error =
            Server::empty("t", "1").tool(Handwritten(schema.clone())).tool_definitions().unwrap_err().to_string();
        assert!(error.starts_with("tool `handwritten` (`"), "{error}");
        assert!(error.contains("has an input schema that cannot be checked: "), "{error}");
        assert!(error.contains(expected), "{schema}: {error}");
    }
}

#[tokio::test]
async fn a_tool_may_keep_its_full_schema_while_the_server_stays_portable() {
    let server =
        || Server::empty("mixed", "1").tool(count_nodes::Tool).tool(Contact).tool(One::<Point>("point", PhantomData));
    let tools: BTreeMap<String, Value> = server()
        .tool_definitions()
        .expect("a recursive type is fine under the strict profile")
        .into_iter()
        .map(|t| (t.name, Value::Object(t.input_schema)))
        .collect();
    assert!(tools["count_nodes"]["$defs"]["Tree"].is_object(), "{}", tools["count_nodes"]);
    assert_eq!(tools["contact"]["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(tools["contact"]["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(tools["contact"]["properties"]["address"], json!({"$ref": "#/$defs/address"}));
    assert_eq!(tools["contact"]["additionalProperties"], false);
    let point = tools["point"].to_string();
    assert!(!point.contains("$ref") && !point.contains("$defs"), "the server's portable profile: {point}");
    for schema in tools.values() {
        jsonschema::draft202012::meta::validate(schema).unwrap();
    }
    // Calls are checked against the schema as listed, `$ref` and all.
    let mut client = mcp_runtime::testing::TestClient::connect(server()).await.unwrap();
    let ok = client.call_tool("contact", json!({"address": {"city": "Oslo"}, "email": "a@b.c"})).await.unwrap();
    assert_eq!(ok.is_error, None, "{ok:?}");
    for wrong in [json!({"address": {"city": "Oslo"}}), json!({"email": "a@b.c", "address": {}})] {
        let refused = client.call_tool("contact", wrong.clone()).await.unwrap();
        assert_eq!(refused.is_error, Some(true), "{wrong}: {refused:?}");
    }
}

/// Look something up in a region.
#[mcp_runtime::tool]
fn regional(
    /// Where
    #[arg(header = "Region")]
    region: Option<String>,
    /// How many
    #[arg(header = "Limit")]
    limit: u32,
    /// Whether to pretend
    #[arg(header = "Dry-Run")]
    dry_run: bool,
) -> String {
    format!("{region:?} {limit} {dry_run}")
}

#[test]
fn header_mirrored_arguments_are_marked_in_the_schema() {
    let tools = Server::empty("mirror", "1").tool(regional::Tool).tool_definitions().unwrap();
    let properties = &tools[0].input_schema["properties"];
    let marks: Vec<(&str, &Value, &Value)> = ["region", "limit", "dry_run"]
        .iter()
        .map(|name| (*name, &properties[name]["type"], &properties[name]["x-mcp-header"]))
        .collect();
    assert_eq!(
        marks,
        [
            ("region", &json!("string"), &json!("Region")),
            ("limit", &json!("integer"), &json!("Limit")),
            ("dry_run", &json!("boolean"), &json!("Dry-Run"))
        ]
    );
}

/// A number cannot be mirrored (its text form is not portable).
#[mcp_runtime::tool]
fn by_ratio(#[arg(header = "Ratio")] ratio: f64) -> f64 {
    ratio
}

/// A value the runtime supplies has no argument to mirror.
#[mcp_runtime::tool]
fn by_context(#[arg(header = "Ctx")] ctx: mcp_runtime::Context) -> String {
    ctx.request_id().to_string()
}

/// Two arguments cannot share a header name, whatever its case.
#[mcp_runtime::tool]
fn twice(#[arg(header = "Region")] a: String, #[arg(header = "REGION")] b: String) -> String {
    a + &b
}

#[test]
fn headers_the_spec_does_not_allow_stop_the_server() {
    let refused = [
        (Server::empty("s", "1").tool(by_ratio::Tool), "only allowed on a property of type string, integer or boolean"),
        (Server::empty("s", "1").tool(by_context::Tool), "has no argument `ctx` to mirror"),
        (Server::empty("s", "1").tool(twice::Tool), "is also the header of `a`"),
    ];
    for (server, why) in refused {
        let error = server.tool_definitions().expect_err(why).to_string();
        assert!(error.contains(why) && error.contains("cannot mirror an argument in a header"), "{error}");
    }
}

/// Where to deliver.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Address {
    street: String,
    city: String,
    country: String,
}

/// Book a delivery: parameters in an order no sort would give.
#[mcp_runtime::tool]
fn deliver(
    /// What
    parcel: String,
    /// Where
    address: Address,
    /// When
    day: String,
    /// Anything else
    note: Option<String>,
) -> String {
    let _ = (address, day, note);
    parcel
}

/// A client sees a tool's parameters, and a struct's fields, in the order
/// they were written: the order its forms show them in. (serde_json's
/// `preserve_order`, on in the workspace, keeps it: without the feature
/// objects are sorted and this fails.)
#[tokio::test]
async fn a_clients_schema_lists_parameters_and_fields_in_the_order_written() {
    let server = Server::empty("order", "1").tool(deliver::Tool);
    let mut client = mcp_runtime::testing::TestClient::connect(server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let schema = &tools[0].input_schema;
    let keys = |value: &Value| value.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&schema["properties"]), ["parcel", "address", "day", "note"]);
    assert_eq!(keys(&schema["properties"]["address"]["properties"]), ["street", "city", "country"]);
    assert_eq!(schema["required"], json!(["parcel", "address", "day"]));
}
