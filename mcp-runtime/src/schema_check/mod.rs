//! A small JSON Schema (2020-12) validator for the schemas a server
//! advertises: tool arguments, structured output and elicitation answers.
//!
//! Serde already enforces a value's shape when it decodes it; what this
//! adds is what serde does not check (bounds, lengths, patterns, `enum`s
//! written in a schema by hand) and a message a model can act on, naming
//! the place. A schema is compiled once into a tree ([`Schema::compile`]);
//! malformed keyword values (a `minLength` that is not a count, an unknown
//! `type`, a pattern that does not compile, a `$ref` to nothing) are
//! refused then, by plain type checks: no meta-schema is ever loaded.
//!
//! Supported: `type` (a name or a list), `enum`, `const`, `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
//! `minLength`/`maxLength` (in characters, not bytes), `pattern`
//! (regex-lite: no look-around, back-references or `\p{…}`; such a pattern
//! is refused at compile time), `items`, `prefixItems`, `contains`,
//! `minContains`, `maxContains`, `minItems`, `maxItems`, `uniqueItems`,
//! `unevaluatedItems`, `properties`, `required`, `additionalProperties`,
//! `patternProperties`, `propertyNames`, `minProperties`, `maxProperties`,
//! `dependentRequired`, `dependentSchemas`, `unevaluatedProperties`,
//! `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, and `$ref` to a
//! JSON pointer in the same document (`#`, `#/$defs/…`,
//! `#/definitions/…`), recursion included.
//!
//! Ignored, as annotations: `format` (JSON Schema 2020-12 makes it an
//! annotation by default, as the validator used before this one did),
//! `title`, `description`, `default`, `examples`, `$schema`, `$id`,
//! `$comment`, `$defs` themselves, and any keyword not listed above
//! (`$dynamicRef` among them). Refused: a `$ref` outside the document or
//! to an `$anchor`.

mod branch;
mod check;
mod compile;
#[cfg(feature = "openapi")]
pub(crate) use compile::percent_decode;
mod integral;
#[cfg(test)]
mod tests;

use std::fmt::{self, Write};

use serde_json::{Number, Value};

/// A compiled schema: check values against it with [`Schema::problems`] or
/// [`Schema::is_valid`].
pub(crate) struct Schema {
    compiled: compile::Compiled,
}

impl Schema {
    /// Compiles `schema`, or says which keyword is malformed and where.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        compile::compile(schema).map(|compiled| Schema { compiled })
    }

    /// Whether `value` fits, stopping at the first problem.
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        check::Walk::new(&self.compiled, false).node(0, value)
    }

    /// Makes each integral float in `value` (`5.0`) an integer where the
    /// schema asks for an integer, as serde reads one; `value` must fit.
    pub(crate) fn make_integral(&self, value: &mut Value) {
        self.compiled.make_integral(0, value, 0);
    }

    /// Every problem with `value`, in the order the schema states its rules
    /// (`required` before the fields it names).
    pub(crate) fn problems<'s, 'v>(&'s self, value: &'v Value) -> Vec<Problem<'s, 'v>> {
        let mut walk = check::Walk::new(&self.compiled, true);
        walk.node(0, value);
        walk.problems
    }
}

/// One step into a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Segment<'v> {
    Key(&'v str),
    Index(usize),
}

/// A place in a value, as `order.lines[0].sku` (empty for the value
/// itself).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Path<'v>(pub(crate) Vec<Segment<'v>>);

impl Path<'_> {
    /// The place as a JSON pointer: `/route/stops/2`.
    pub(crate) fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in &self.0 {
            match segment {
                Segment::Key(name) => {
                    out.push('/');
                    out.push_str(&escape(name));
                }
                Segment::Index(index) => {
                    let _ = write!(out, "/{index}");
                }
            }
        }
        out
    }
}

/// A key as a JSON pointer token (`~` → `~0`, `/` → `~1`).
fn escape(key: &str) -> std::borrow::Cow<'_, str> {
    if key.contains(['~', '/']) { key.replace('~', "~0").replace('/', "~1").into() } else { key.into() }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(name) if i == 0 => f.write_str(name)?,
                Segment::Key(name) => write!(f, ".{name}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// One way a value breaks its schema.
#[derive(Debug)]
pub(crate) struct Problem<'s, 'v> {
    /// Where, in the checked value.
    pub(crate) path: Path<'v>,
    /// The value found there.
    pub(crate) instance: &'v Value,
    pub(crate) kind: Kind<'s, 'v>,
}

/// What rule a value breaks.
#[derive(Debug)]
pub(crate) enum Kind<'s, 'v> {
    /// The schema is `false`.
    Never,
    Type(Types),
    Enum(&'s [Value]),
    /// A tag (the field whose value names an enum's variant: every branch
    /// of an `anyOf`/`oneOf` pins it) that names no branch; the values it
    /// takes.
    Tag(Vec<&'s Value>),
    Const(&'s Value),
    Minimum(&'s Number),
    Maximum(&'s Number),
    ExclusiveMinimum(&'s Number),
    ExclusiveMaximum(&'s Number),
    MultipleOf(&'s Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(&'s str),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    /// Fewer items than `minContains` (1 by default) match `contains`.
    MinContains(u64),
    MaxContains(u64),
    /// Items past those the schema describes, under `unevaluatedItems`.
    UnevaluatedItems,
    /// A field `required` names is missing.
    Required(&'s str),
    /// A field that `dependentRequired` asks for when `trigger` is present.
    DependentRequired {
        trigger: &'s str,
        missing: &'s str,
    },
    /// Fields `additionalProperties: false` (or `unevaluatedProperties:
    /// false`) leaves out, in the order they were sent.
    Unknown(Vec<&'v str>),
    /// A field name that breaks `propertyNames`.
    PropertyName(&'v str),
    MinProperties(u64),
    MaxProperties(u64),
    AnyOf,
    OneOfNone,
    OneOfMany,
    Not,
}

impl Problem<'_, '_> {
    /// What the value should have been, as in "argument `a`: {expected},
    /// got …"; for [`Kind::Required`], [`Kind::DependentRequired`],
    /// [`Kind::Unknown`] and [`Kind::PropertyName`] the whole sentence after
    /// the place.
    pub(crate) fn expected(&self) -> String {
        match &self.kind {
            Kind::Never => "is not allowed here".to_owned(),
            Kind::Type(types) => format!("expected {}", types.names()),
            Kind::Enum(options) => one_of(options.iter()),
            Kind::Tag(options) => one_of(options.iter().copied()),
            Kind::Const(value) => format!("expected exactly {value}"),
            Kind::Minimum(limit) => format!("must be at least {limit}"),
            Kind::Maximum(limit) => format!("must be at most {limit}"),
            Kind::ExclusiveMinimum(limit) => format!("must be greater than {limit}"),
            Kind::ExclusiveMaximum(limit) => format!("must be less than {limit}"),
            Kind::MultipleOf(step) => format!("must be a multiple of {step}"),
            Kind::MinLength(limit) => format!("must be at least {} long", plural(*limit, "character")),
            Kind::MaxLength(limit) => format!("must be at most {} long", plural(*limit, "character")),
            Kind::Pattern(pattern) => format!("must match the pattern `{pattern}`"),
            Kind::MinItems(limit) => format!("must have at least {}", plural(*limit, "item")),
            Kind::MaxItems(limit) => format!("must have at most {}", plural(*limit, "item")),
            Kind::UniqueItems => "must not repeat items".to_owned(),
            Kind::MinContains(limit) => format!("must have at least {} of the required kind", plural(*limit, "item")),
            Kind::MaxContains(limit) => format!("must have at most {} of the restricted kind", plural(*limit, "item")),
            Kind::UnevaluatedItems => "has more items than its shape allows".to_owned(),
            Kind::Required(_) => "required but not sent".to_owned(),
            Kind::DependentRequired { trigger, .. } => format!("required when `{trigger}` is sent"),
            Kind::Unknown(names) => format!("unknown field {}", quoted(names)),
            Kind::PropertyName(name) => format!("field name `{name}` is not allowed"),
            Kind::MinProperties(limit) => format!("must have at least {}", plural(*limit, "field")),
            Kind::MaxProperties(limit) => format!("must have at most {}", plural(*limit, "field")),
            Kind::AnyOf | Kind::OneOfNone => "does not match any of the accepted shapes".to_owned(),
            Kind::OneOfMany => "matches more than one accepted shape".to_owned(),
            Kind::Not => "matches a shape that is not allowed".to_owned(),
        }
    }

    /// The field a [`Kind::Required`] or [`Kind::DependentRequired`]
    /// problem is about, below [`Problem::path`].
    pub(crate) fn missing(&self) -> Option<&str> {
        match self.kind {
            Kind::Required(name) | Kind::DependentRequired { missing: name, .. } => Some(name),
            _ => None,
        }
    }

    /// Whether the message is complete without "got …" (the value sent is
    /// not what is wrong).
    pub(crate) fn is_about_fields(&self) -> bool {
        matches!(
            self.kind,
            Kind::Required(_) | Kind::DependentRequired { .. } | Kind::Unknown(_) | Kind::PropertyName(_)
        )
    }
}

/// ``at `/route/stops/2`: expected a number, got null``: for messages that
/// are not about a tool call's arguments (structured output, form answers),
/// with the place as a JSON pointer.
impl fmt::Display for Problem<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut at = self.path.pointer();
        if let Some(name) = self.missing() {
            at.push('/');
            at.push_str(&escape(name));
        }
        if at.is_empty() {
            f.write_str("at the top level: ")?;
        } else {
            write!(f, "at `{at}`: ")?;
        }
        f.write_str(&self.expected())?;
        if !self.is_about_fields() {
            write!(f, ", got {}", describe(self.instance))?;
        }
        Ok(())
    }
}

/// A set of JSON types, as `type` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    const NONE: Types = Types(0);
    /// In the order messages list them.
    const NAMES: [&'static str; 7] = ["null", "boolean", "integer", "number", "string", "array", "object"];

    fn named(name: &str) -> Option<Types> {
        Self::NAMES.iter().position(|n| *n == name).map(|i| Types(1 << i))
    }

    fn with(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    pub(crate) fn contains(self, name: &str) -> bool {
        Self::named(name).is_some_and(|t| self.0 & t.0 != 0)
    }

    /// Whether `value` is of one of these types; a number with no fraction
    /// (`2.0`) is an `integer`, as JSON Schema says.
    fn admits(self, value: &Value) -> bool {
        let name = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) => {
                let whole = n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
                return self.contains("number") || (whole && self.contains("integer"));
            }
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        self.contains(name)
    }

    /// `a string`, `an integer or an array`. `null` is left out beside other
    /// types: it is there for an `Option`, which may be left out, and the
    /// type is what the caller needs to hear.
    fn names(self) -> String {
        let article = |t: &str| match t {
            "null" => "null".to_owned(),
            "integer" | "object" | "array" => format!("an {t}"),
            "boolean" => "a boolean (true or false)".to_owned(),
            _ => format!("a {t}"),
        };
        let names: Vec<&str> = Self::NAMES.iter().copied().filter(|n| self.contains(n) && *n != "null").collect();
        let names = if names.is_empty() { vec!["null"] } else { names };
        names.iter().map(|t| article(t)).collect::<Vec<_>>().join(" or ")
    }
}

/// `expected one of "a", "b"`.
fn one_of<'a>(options: impl IntoIterator<Item = &'a Value>) -> String {
    format!("expected one of {}", options.into_iter().map(Value::to_string).collect::<Vec<_>>().join(", "))
}

/// `3 items`, `1 item`.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// `` `a`, `b` ``.
pub(crate) fn quoted(names: &[impl AsRef<str>]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        let _ = write!(out, "{}`{}`", if i == 0 { "" } else { ", " }, name.as_ref());
    }
    out
}

/// A value, as "the string \"two\"" or "the number 5": enough to see what
/// was sent without repeating a large payload.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 60 => {
            format!("the string {:?}… ({} characters)", s.chars().take(60).collect::<String>(), s.chars().count())
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(items) => format!("an array of {}", plural(items.len() as u64, "item")),
        Value::Object(_) => "an object".to_owned(),
    }
}
