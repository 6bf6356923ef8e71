//! Schema profiles: turn what schemars generates into what clients accept.
//!
//! The **portable** profile (the default) exists because clients and the
//! model APIs behind them accept far less than JSON Schema 2020-12: no
//! `$schema`, every `$ref` inlined and no `$defs`, no non-standard `format`,
//! no `null` unions or `nullable`, enums as `{"type":"string","enum":[…]}`;
//! integer widths become `minimum`/`maximum`, and a `oneOf` whose branches
//! share a type states it. The **strict** profile keeps the full 2020-12
//! schema as schemars generates it.
//!
//! What ordinary Rust types produce and some client refuses, the portable
//! profile reshapes (`mcp_core::clients` has the rules and their sources):
//!
//! - **A data enum** (schemars: a `oneOf` of objects) becomes one object.
//!   Internally or adjacently tagged (`#[serde(tag = "kind")]`): the tag is
//!   a required `{"type":"string","enum":[…]}` and every variant's fields
//!   are optional properties whose descriptions say which kind needs them
//!   ("Required when kind is \"circle\"."). Externally tagged (serde's
//!   default): one optional property per variant, and the description says
//!   to send exactly one (and which plain strings the unit variants are).
//!   Untagged, when every variant is a struct: the fields of all of them,
//!   the description listing the forms; an untagged enum of different
//!   plain types keeps its `anyOf` (no portable shape exists for "an
//!   integer or a string"), and the client rules name it. A field two
//!   variants declare with different types keeps the first variant's
//!   schema and says in its description what the others take.
//! - **A map** (`HashMap<String, T>`, `BTreeMap`: an object with only
//!   `additionalProperties`) gets `"properties": {}` (OpenAI refuses an
//!   object without) and loses `additionalProperties` (Gemini refuses any
//!   value but `true`); the description says what each value is.
//!   `additionalProperties: false` (`deny_unknown_fields`) is left out too.
//! - **64-bit and wider integer bounds** are clamped to ±(2^53 − 1), what a
//!   JavaScript number holds exactly: a `u64` is advertised as at most
//!   9007199254740991.
//! - **An array without `items`** (a tuple, `Vec<Value>`) gets one.
//!
//! One type has three shapes, one for each use:
//!
//! - **Advertised input** ([`input_schema`]): what clients and models are
//!   shown. `Option<T>` is the plain `T`, left out of `required`; where the
//!   portable shape is narrower than the type (a clamped bound, the first
//!   variant's type for a field whose type depends on the variant), the
//!   server still takes what serde reads.
//! - **Checked input** ([`checked_input_schema`]): what a call's arguments
//!   are validated against, never narrower than what serde reads. It keeps
//!   `null` wherever serde takes it, the type's own bounds, map values and
//!   `additionalProperties: false`, and states what each variant of a
//!   tagged enum needs (`if` the tag is its value, `then` its fields, with
//!   their own types), so that a call missing a variant's field or sending
//!   it with the wrong type is told so at the field's place.
//! - **Output** ([`output_schema`]): advertised and validated by clients
//!   against `structuredContent`, so clear for their rules like the input
//!   and never narrower than what serde writes. A `None` field is an
//!   optional plain `T` and the runtime leaves it out of the value
//!   ([`omit_optional_nulls`]); a `null` that cannot be left out (an
//!   element of `Vec<Option<T>>`, a map's value) keeps its schema open to
//!   `null` by dropping `type` and saying "May be null.", since type lists
//!   and `anyOf` are what Cursor and Gemini refuse. Bounds beyond
//!   ±(2^53 − 1) are left out rather than clamped.
//!
//! The same [`omit_optional_nulls`] applies to arguments: `null` for a field
//! that is not required means "not sent", at any depth, so a field with a
//! default (`#[serde(default)]`) gets its default. A client that validates
//! against the advertised input schema may refuse an integer above
//! 2^53 − 1 that the server would take; a JavaScript client cannot send
//! one exactly anyway. `tests/ordinary_types.rs` holds all of this as a
//! property over a corpus of ordinary types.
//!
//! A recursive type (a tree, a linked list) cannot be inlined. Rather than
//! cut it off at some depth, which would advertise a schema that rejects
//! deep but valid values, the portable profile refuses it: the server does
//! not start, and the error names the tool and the type and suggests the
//! strict profile or a `serde_json::Value` field.

use std::fmt;

use serde_json::{Map, Value};

use crate::jsonrpc::JsonObject;

mod clean;
mod inline;
mod merge;
mod nulls;

use clean::clean;
use inline::inline;
pub use nulls::{contains_null, omit_optional_nulls};

/// The largest integer a JavaScript number holds exactly, 2^53 − 1
/// (`Number.MAX_SAFE_INTEGER`): the portable profile's widest integer bound.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// What a shaped schema is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// An input schema shown to clients.
    Advertise,
    /// Checked against a call's arguments: never narrower than the type.
    Check,
    /// An output schema: shown to clients (so clear for their rules) and
    /// checked by them against what the server sends, so never narrower
    /// than what serde writes once [`omit_optional_nulls`] has shaped it.
    Output,
}

impl Purpose {
    /// Whether every value of the type must pass (nothing narrowed).
    fn loose(self) -> bool {
        self != Purpose::Advertise
    }
}

/// How schemas are shaped before they are advertised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SchemaProfile {
    /// What every known client accepts (see the module docs).
    #[default]
    Portable,
    /// Full JSON Schema 2020-12, as generated.
    Strict,
}

/// Why a schema cannot be shaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaError {
    /// The type refers to itself, so it cannot be inlined.
    Recursive {
        /// The definition that refers to itself.
        definition: String,
    },
    /// A `$ref` that does not point into the schema's own definitions.
    UnresolvedRef {
        /// The reference as written.
        reference: String,
    },
    /// An input schema whose root is not an object schema.
    NotAnObject,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::Recursive { definition } => write!(
                f,
                "type `{definition}` is recursive and cannot be inlined by the portable schema profile; \
                 use `SchemaProfile::Strict` or break the recursion (e.g. with `serde_json::Value`)"
            ),
            SchemaError::UnresolvedRef { reference } => {
                write!(f, "schema reference `{reference}` does not point into the schema's own `$defs`")
            }
            SchemaError::NotAnObject => f.write_str("a tool's input schema must be an object schema"),
        }
    }
}

impl std::error::Error for SchemaError {}

/// `format` values defined by JSON Schema; schemars' others (`uint32`,
/// `double`, …) make Ajv-based clients fail or warn.
pub(crate) const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one schema.
pub(crate) const SCHEMA_KEYS: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
/// Keywords whose value is an array of schemas.
pub(crate) const SCHEMA_ARRAY_KEYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to schemas.
pub(crate) const SCHEMA_MAP_KEYS: &[&str] =
    &["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/// Shape a tool's input schema: apply `profile`, then make sure the root is
/// `{"type": "object", "properties": {…}}` (clients treat a missing
/// `properties` differently; see CLIENTS.md).
pub fn input_schema(profile: SchemaProfile, raw: Value) -> Result<JsonObject, SchemaError> {
    input(profile, raw, Purpose::Advertise)
}

/// The schema a server checks a call's arguments against, for the tool
/// whose [`input_schema`] is shaped from the same `raw` schema: the same
/// except where the advertised shape is narrower than the type (see the
/// module docs), so that nothing the type accepts is refused before serde
/// reads it.
pub fn checked_input_schema(profile: SchemaProfile, raw: Value) -> Result<JsonObject, SchemaError> {
    input(profile, raw, Purpose::Check)
}

fn input(profile: SchemaProfile, raw: Value, purpose: Purpose) -> Result<JsonObject, SchemaError> {
    let Value::Object(mut root) = shape(profile, raw, purpose)? else {
        return Err(SchemaError::NotAnObject);
    };
    match root.get("type") {
        None => {
            root.insert("type".into(), "object".into());
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(_) => return Err(SchemaError::NotAnObject),
    }
    root.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    Ok(root)
}

/// Apply `profile` to any schema.
pub fn apply(profile: SchemaProfile, raw: Value) -> Result<Value, SchemaError> {
    shape(profile, raw, Purpose::Advertise)
}

/// Apply `profile` to any schema, for checking values against it (an
/// output schema, say): like [`apply`], but never narrower than the type
/// (see [`checked_input_schema`]).
pub fn apply_checked(profile: SchemaProfile, raw: Value) -> Result<Value, SchemaError> {
    shape(profile, raw, Purpose::Check)
}

/// Shape a tool's output schema (the schema of `T` in `Json<T>`) with
/// `profile`: clear for every client rule, like an input schema, yet
/// never narrower than what serde writes, because clients validate
/// `structuredContent` against it. Send values through
/// [`omit_optional_nulls`] with this schema first: a `None` field is
/// advertised as an optional plain `T` and must be left out, not sent as
/// `null`; a `null` that cannot be left out (an element of
/// `Vec<Option<T>>`, a map's value, a required field) keeps its schema
/// open to `null` (no `type`, "May be null." in the description) rather
/// than take a type list or an `anyOf` that clients refuse. Integer
/// bounds beyond ±(2^53 − 1) are left out rather than clamped, and a
/// field whose type depends on an enum's variant constrains nothing.
pub fn output_schema(profile: SchemaProfile, raw: Value) -> Result<Value, SchemaError> {
    shape(profile, raw, Purpose::Output)
}

fn shape(profile: SchemaProfile, raw: Value, purpose: Purpose) -> Result<Value, SchemaError> {
    match profile {
        SchemaProfile::Strict => Ok(raw),
        SchemaProfile::Portable => portable(raw, purpose),
    }
}

fn portable(mut raw: Value, purpose: Purpose) -> Result<Value, SchemaError> {
    let mut defs = Map::new();
    if let Value::Object(root) = &mut raw {
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = root.remove(key) {
                defs.extend(d);
            }
        }
    }
    let mut out = inline(raw, &defs, &mut Vec::new())?;
    clean(&mut out, purpose, false);
    Ok(out)
}

#[cfg(test)]
mod tests;
