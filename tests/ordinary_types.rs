//! The guarantee that ordinary Rust types never break a call, as a
//! property over a corpus of types: for random values of each (bolero's
//! generator), in both schema profiles, through a server in memory,
//!
//! - serde's own JSON of the value is accepted as an argument and reaches
//!   the tool unchanged (the checked schema is never narrower than what
//!   serde reads);
//! - the tool's `Json<T>` answer is a success whose structured content
//!   validates against the `outputSchema` the client was listed, and
//!   means the same value: serde reads it back equal;
//! - the text mirror is that same content;
//! - the server's own output, sent back as input, is accepted again;
//! - every portable schema is clear for every client rule, but for the
//!   one documented exception: an untagged enum of plain types has no
//!   portable shape.
//!
//! 1,000 values per type; a longer run sets `MCP_PROPERTY_VALUES`
//! (CONTRIBUTING.md). A failure prints the value and the seed to replay.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::Mutex;

use bolero::{TypeGenerator, ValueGenerator, check, produce};
use chrono::{DateTime, NaiveDate, Utc};
use mcp_core::SchemaProfile;
use mcp_runtime::prelude::*;
use mcp_runtime::{Server, transport::InMemoryClient};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::common::memory::{call, connect, list};

// ---- Value generators for what bolero cannot make as it is ----

/// Finite floats: serde_json writes a NaN or an infinity as `null`, which
/// no `f64` reads back (the server reports that as its own bug).
fn finite() -> impl ValueGenerator<Output = f64> {
    produce::<i32>().map_gen(|i| f64::from(i) / 64.0)
}
fn finite32() -> impl ValueGenerator<Output = f32> {
    produce::<i16>().map_gen(|i| f32::from(i) / 8.0)
}
fn maybe_finite() -> impl ValueGenerator<Output = Option<f64>> {
    produce::<Option<i32>>().map_gen(|i| i.map(|i| f64::from(i) / 64.0))
}
/// serde_json holds integers of at most 64 bits (README, limits).
fn u128_in_json() -> impl ValueGenerator<Output = u128> {
    produce::<u64>().map_gen(u128::from)
}
fn i128_in_json() -> impl ValueGenerator<Output = i128> {
    produce::<i64>().map_gen(i128::from)
}
fn an_instant() -> impl ValueGenerator<Output = DateTime<Utc>> {
    produce::<(i32, u16)>().map_gen(|(s, ms)| timestamp(s, ms))
}
fn maybe_instant() -> impl ValueGenerator<Output = Option<DateTime<Utc>>> {
    produce::<Option<(i32, u16)>>().map_gen(|t| t.map(|(s, ms)| timestamp(s, ms)))
}
fn timestamp(seconds: i32, millis: u16) -> DateTime<Utc> {
    let nanos = u32::from(millis % 1000) * 1_000_000;
    DateTime::from_timestamp(i64::from(seconds) * 53, nanos).expect("in chrono's range")
}
fn a_day() -> impl ValueGenerator<Output = NaiveDate> {
    produce::<u16>().map_gen(|d| NaiveDate::from_num_days_from_ce_opt(700_000 + i32::from(d)).expect("a day"))
}
fn an_id() -> impl ValueGenerator<Output = Uuid> {
    produce::<u128>().map_gen(Uuid::from_u128)
}
fn some_ids() -> impl ValueGenerator<Output = Vec<Uuid>> {
    produce::<Vec<u128>>().map_gen(|ids| ids.into_iter().map(Uuid::from_u128).collect())
}

// ---- The corpus ----

/// Plain fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Plain {
    /// A name.
    a: String,
    b: u32,
    c: bool,
}

/// Every field optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Optional {
    a: Option<String>,
    b: Option<u64>,
    c: Option<bool>,
}

/// `Option` one and two levels down, and inside a list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct NestedOptional {
    inner: Option<Optional>,
    list: Vec<Option<String>>,
    deep: Option<Vec<Option<Plain>>>,
}

/// A newtype of a list of optional numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct VecOfOptions(Vec<Option<i32>>);

/// serde's default enum tagging, every kind of variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub enum External {
    Empty,
    One(Plain),
    Pair(u8, String),
    Named { x: i16, note: Option<String> },
}

/// Internally tagged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Internal {
    /// A circle.
    Circle {
        /// Its radius.
        #[generator(finite())]
        r: f64,
    },
    Rect {
        w: u16,
        h: u16,
        label: Option<String>,
    },
    At(Plain),
    Nothing,
}

/// Adjacently tagged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Text(String),
    Point { x: i32, y: i32 },
    Blank,
}

/// Untagged, every variant a struct.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
#[serde(untagged)]
pub enum UntaggedStructs {
    ById { id: u32 },
    ByName { name: String, exact: Option<bool> },
}

/// Untagged, of plain types: the one shape without a portable schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
#[serde(untagged)]
pub enum UntaggedPlain {
    Number(i64),
    Text(String),
}

/// Unit variants only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub enum Color {
    Red,
    Green,
    Blue,
}

/// Unit variants with docs and renamed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
#[serde(rename_all = "kebab-case")]
pub enum Speed {
    /// Slow and cheap.
    SlowAndSteady,
    /// Fast.
    Express,
}

/// A flattened struct.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Flattened {
    name: String,
    #[serde(flatten)]
    extra: Optional,
}

/// A flattened internally tagged enum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct FlattenedEnum {
    id: u32,
    #[serde(flatten)]
    shape: Internal,
}

/// Renamed fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    first_name: String,
    last_name: Option<String>,
    #[serde(rename = "AGE")]
    age_in_years: u8,
}

/// Fields with defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Defaults {
    #[serde(default)]
    count: u32,
    #[serde(default)]
    names: Vec<String>,
    #[serde(default)]
    maybe: Option<i8>,
}

/// Fields left out when empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct SkipWhenEmpty {
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    b: Vec<u8>,
}

/// Unknown fields refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
#[serde(deny_unknown_fields)]
pub struct Closed {
    a: Option<u16>,
    b: String,
}

/// A map of strings to numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Scores(HashMap<String, u32>);

/// A map whose values may be null.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct MaybeValues(BTreeMap<String, Option<String>>);

/// A map with integer keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct IntegerKeys(BTreeMap<u16, String>);

/// A map of structs with optional fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct MapOfStructs {
    by_name: BTreeMap<String, Optional>,
}

/// Integers of every width.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Wide {
    a: u64,
    b: i64,
    #[generator(u128_in_json())]
    c: u128,
    #[generator(i128_in_json())]
    d: i128,
    e: u8,
    f: i8,
    g: i16,
    h: u16,
    i: usize,
    j: Option<u64>,
}

/// Tuples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Tuples {
    pair: (i32, i32),
    mixed: (String, bool, Option<u8>),
}

/// Boxes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Boxed {
    inner: Box<Plain>,
    maybe: Option<Box<Optional>>,
}

/// A unit struct (JSON `null`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Unit;

/// A newtype of a string.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Name(String);

/// A newtype of a struct.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Wrapper(Optional);

/// Floats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Floats {
    #[generator(finite())]
    x: f64,
    #[generator(finite32())]
    y: f32,
    #[generator(maybe_finite())]
    z: Option<f64>,
}

/// Dates and times (strings in JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Dates {
    #[generator(an_instant())]
    at: DateTime<Utc>,
    #[generator(a_day())]
    day: NaiveDate,
    #[generator(maybe_instant())]
    maybe: Option<DateTime<Utc>>,
}

/// UUIDs (strings in JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Ids {
    #[generator(an_id())]
    id: Uuid,
    #[generator(some_ids())]
    others: Vec<Uuid>,
}

/// Characters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Chars {
    c: char,
    maybe: Option<char>,
}

/// Enums inside options inside lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Enums {
    shapes: Vec<Option<External>>,
    shape: Option<Internal>,
    color: Option<Color>,
    speed: Speed,
}

/// Which things, every part optional but one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Query {
    color: Color,
    speed: Option<Speed>,
    limit: Option<u32>,
}

/// Optional structs and tagged enums, one and two levels down.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Ticket {
    filter: Option<Query>,
    owner: Option<Internal>,
    history: Vec<Option<Adjacent>>,
    parent: Option<Box<Enums>>,
}

/// Bytes, as serde writes them (a list of numbers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Bytes(Vec<u8>);

/// A tree (recursive: the strict profile only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Tree {
    value: i32,
    children: Vec<Tree>,
}

/// A linked list (recursive: the strict profile only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TypeGenerator)]
pub struct Chain {
    value: u8,
    next: Option<Box<Chain>>,
}

/// For each `tool: Type`, a tool that takes a value of the type and
/// answers it as structured output, and the property run over it.
macro_rules! corpus {
    ($servers:ident, $run:ident, $broken:ident: $($tool:ident: $ty:ty),* $(,)?) => {
        $(
            #[doc = "Answer the value it was sent."]
            #[tool]
            fn $tool(value: $ty) -> Json<$ty> {
                Json(value)
            }
        )*

        pub(crate) fn $servers(server: Server) -> Server {
            server $(.tool($tool::Tool))*
        }

        fn $run() -> Vec<Property> {
            vec![$((stringify!($tool), holds::<$ty> as Check)),*]
        }

        /// The property of `broken_leaves.rs`, over the same types.
        pub(crate) fn $broken() -> Vec<Property> {
            vec![$((stringify!($tool), crate::broken_leaves::holds::<$ty> as Check)),*]
        }
    };
}

corpus! {
    every_profile, every_profile_properties, every_profile_broken:
    plain: Plain,
    optional: Optional,
    nested_optional: NestedOptional,
    vec_of_options: VecOfOptions,
    external: External,
    internal: Internal,
    adjacent: Adjacent,
    untagged_structs: UntaggedStructs,
    untagged_plain: UntaggedPlain,
    color: Color,
    speed: Speed,
    flattened: Flattened,
    flattened_enum: FlattenedEnum,
    renamed: Renamed,
    defaults: Defaults,
    skip_when_empty: SkipWhenEmpty,
    closed: Closed,
    scores: Scores,
    maybe_values: MaybeValues,
    integer_keys: IntegerKeys,
    map_of_structs: MapOfStructs,
    wide: Wide,
    tuples: Tuples,
    boxed: Boxed,
    unit: Unit,
    name: Name,
    wrapper: Wrapper,
    floats: Floats,
    dates: Dates,
    ids: Ids,
    chars: Chars,
    enums: Enums,
    bytes: Bytes,
    optional_top_level: Option<Plain>,
    list_top_level: Vec<Option<Optional>>,
    optional_internal: Option<Internal>,
    optional_adjacent: Option<Adjacent>,
    ticket: Ticket,
}

corpus! {
    strict_only, strict_only_properties, strict_only_broken:
    tree: Tree,
    chain: Chain,
}

/// How many values each type is tried with: 200 in the edit-test loop
/// (the corpus is some 40 types, each value two calls, in a debug build);
/// CI sets 1,000, and a long run more.
pub(crate) fn values_per_type() -> usize {
    std::env::var("MCP_PROPERTY_VALUES").ok().and_then(|n| n.parse().ok()).unwrap_or(200)
}

/// The property's check for one type, given the tool that echoes it.
pub(crate) type Check = fn(&Mutex<InMemoryClient>, &tokio::runtime::Runtime, &[Value], &str);

/// A tool of the corpus and the check of its type.
pub(crate) type Property = (&'static str, Check);

/// The property, for one type and the tool that echoes it.
fn holds<T>(client: &Mutex<InMemoryClient>, runtime: &tokio::runtime::Runtime, tools: &[Value], tool: &str)
where
    T: TypeGenerator + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let listed = tools.iter().find(|t| t["name"] == tool).unwrap_or_else(|| panic!("`{tool}` is not listed"));
    let schema = &listed["outputSchema"];
    let validator = jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("{tool}: {e}: {schema}"));
    // A failed check is a panic that bolero catches to report the value.
    let validator = std::panic::AssertUnwindSafe(validator);
    // A value that is not an object travels as `{"result": …}`.
    let wrapped = schema["required"] == json!(["result"]) && schema["properties"].get("result").is_some();
    let echo = |arguments: Value| {
        let mut client = client.lock().unwrap();
        runtime.block_on(call(&mut client, tool, arguments))
    };
    check!().with_type::<T>().with_iterations(values_per_type()).for_each(|value: &T| {
        let sent = serde_json::to_value(value).expect("serde writes it");
        let result = echo(json!({ "value": sent }));
        assert_eq!(result.get("isError"), None, "{tool}: {sent} was not answered: {result}");
        let structured = &result["structuredContent"];
        if let Err(error) = validator.validate(structured) {
            panic!("{tool}: {structured} breaks the listed output schema {schema}: {error}");
        }
        let answered = if wrapped { &structured["result"] } else { structured };
        let back: T = serde_json::from_value(answered.clone())
            .unwrap_or_else(|e| panic!("{tool}: serde cannot read {answered} back: {e}"));
        assert_eq!(&back, value, "{tool}: {sent} came back as {answered}");
        let mirror: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("a text block"))
            .expect("the mirror is JSON");
        assert_eq!(&mirror, answered, "{tool}: the text mirror");
        let again = echo(json!({ "value": answered }));
        assert_eq!(&again["structuredContent"], structured, "{tool}: its own output sent back as input");
    });
}

/// The portable schemas are clear for every client, but for the documented
/// exception and the standing note on any output schema.
fn clear_for_clients(tools: &[Value]) {
    for listed in tools {
        let tool: mcp_core::Tool = serde_json::from_value(listed.clone()).expect("a tool definition");
        for problem in mcp_core::clients::check_tool(&tool) {
            let standing = problem.client.id() == "claude-desktop" && problem.path == "outputSchema";
            let exception = tool.name == "untagged_plain" && problem.path.contains("anyOf");
            assert!(standing || exception, "{}: {problem:?}", tool.name);
        }
    }
}

/// Check `properties` against the server `corpus` builds, in `profile`.
/// The types are shared out among a few threads, each with a server and a
/// client of its own: the values are independent, and one thread at a
/// time left the machine's other cores idle.
pub(crate) fn run(corpus: fn(Server) -> Server, profile: SchemaProfile, properties: Vec<Property>) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let share: Vec<Property> = properties.iter().copied().skip(worker).step_by(workers).collect();
            scope.spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                let server = corpus(Server::empty("corpus", "1")).schema_profile(profile).show_internal_errors(true);
                let (client, tools) = runtime.block_on(async {
                    let mut client = connect(server).await;
                    let tools = list(&mut client).await;
                    (client, tools)
                });
                if profile == SchemaProfile::Portable && worker == 0 {
                    clear_for_clients(&tools);
                }
                let client = Mutex::new(client);
                for (tool, holds) in share {
                    holds(&client, &runtime, &tools, tool);
                }
            });
        }
    });
}

#[test]
fn ordinary_types_round_trip_in_the_portable_profile() {
    run(every_profile, SchemaProfile::Portable, every_profile_properties());
}

#[test]
fn ordinary_types_round_trip_in_the_strict_profile() {
    run(every_profile, SchemaProfile::Strict, every_profile_properties());
}

#[test]
fn recursive_types_round_trip_in_the_strict_profile() {
    run(strict_only, SchemaProfile::Strict, strict_only_properties());
}
