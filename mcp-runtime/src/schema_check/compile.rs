//! A JSON Schema document → a tree of [`Node`]s, built once. A keyword
//! whose value is malformed (what a meta-schema would refuse) is an error
//! here, found at start-up by cheap type checks instead of a meta-schema.

use std::collections::HashMap;

use regex_lite::Regex;
use serde_json::{Map, Number, Value};

use super::Types;

/// Where a compiled node sits in [`Compiled::nodes`]: `$ref` cycles
/// (recursive types) point back at a node by its index.
pub(super) type NodeId = usize;

/// A compiled schema.
pub(super) enum Node {
    /// `true`, `{}` or a schema of annotations only.
    Always,
    /// `false`.
    Never,
    Rules(Box<Rules>),
}

/// A `pattern` (or a `patternProperties` key), kept as written for messages.
pub(super) struct Pattern {
    pub(super) source: String,
    pub(super) regex: Regex,
}

/// The assertions and applicators of one schema object.
#[derive(Default)]
pub(super) struct Rules {
    pub(super) reference: Option<NodeId>,
    pub(super) types: Option<Types>,
    pub(super) enumeration: Option<Vec<Value>>,
    pub(super) constant: Option<Value>,
    pub(super) minimum: Option<Number>,
    pub(super) maximum: Option<Number>,
    pub(super) exclusive_minimum: Option<Number>,
    pub(super) exclusive_maximum: Option<Number>,
    pub(super) multiple_of: Option<Number>,
    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    pub(super) pattern: Option<Pattern>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) unique_items: bool,
    pub(super) prefix_items: Vec<NodeId>,
    pub(super) items: Option<NodeId>,
    pub(super) contains: Option<NodeId>,
    pub(super) min_contains: Option<u64>,
    pub(super) max_contains: Option<u64>,
    pub(super) unevaluated_items: Option<NodeId>,
    pub(super) required: Vec<String>,
    pub(super) properties: Vec<(String, NodeId)>,
    pub(super) pattern_properties: Vec<(Pattern, NodeId)>,
    pub(super) additional_properties: Option<NodeId>,
    pub(super) property_names: Option<NodeId>,
    pub(super) min_properties: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) dependent_required: Vec<(String, Vec<String>)>,
    pub(super) dependent_schemas: Vec<(String, NodeId)>,
    pub(super) unevaluated_properties: Option<NodeId>,
    pub(super) all_of: Vec<NodeId>,
    pub(super) any_of: Vec<NodeId>,
    pub(super) one_of: Vec<NodeId>,
    pub(super) not: Option<NodeId>,
    pub(super) condition: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,
}

impl Rules {
    /// The schema declares `name` in `properties` or `patternProperties`.
    pub(super) fn names(&self, name: &str) -> bool {
        self.properties.iter().any(|(p, _)| p == name)
            || self.pattern_properties.iter().any(|(p, _)| p.regex.is_match(name))
    }
}

/// A schema's nodes; the root is node 0.
pub(super) struct Compiled {
    pub(super) nodes: Vec<Node>,
}

pub(super) fn compile(root: &Value) -> Result<Compiled, String> {
    let mut compiler = Compiler { root, nodes: Vec::new(), targets: HashMap::new() };
    compiler.targets.insert(String::new(), 0);
    compiler.node(root, "#")?;
    Ok(Compiled { nodes: compiler.nodes })
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    /// `$ref` targets already compiled (or being compiled), by JSON pointer:
    /// each definition is compiled once however often it is referenced.
    targets: HashMap<String, NodeId>,
}

impl Compiler<'_> {
    fn node(&mut self, schema: &Value, at: &str) -> Result<NodeId, String> {
        let id = self.nodes.len();
        // A placeholder, so that a `$ref` back to this node (a recursive
        // type) finds its index before its rules are built.
        self.nodes.push(Node::Always);
        self.nodes[id] = match schema {
            Value::Bool(true) => Node::Always,
            Value::Bool(false) => Node::Never,
            Value::Object(object) => {
                let rules = self.rules(object, at)?;
                if is_empty(&rules) { Node::Always } else { Node::Rules(Box::new(rules)) }
            }
            other => return Err(format!("at `{at}`: a schema must be an object or a boolean, found {other}")),
        };
        Ok(id)
    }

    fn rules(&mut self, object: &Map<String, Value>, at: &str) -> Result<Rules, String> {
        let mut rules = Rules::default();
        for (keyword, value) in object {
            let here = format!("{at}/{keyword}");
            let here = here.as_str();
            match keyword.as_str() {
                "$ref" => rules.reference = Some(self.reference(value, here)?),
                "type" => rules.types = Some(types(value, here)?),
                "enum" => rules.enumeration = Some(array(value, here)?.clone()),
                "const" => rules.constant = Some(value.clone()),
                "minimum" => rules.minimum = Some(number(value, here)?),
                "maximum" => rules.maximum = Some(number(value, here)?),
                "exclusiveMinimum" => rules.exclusive_minimum = Some(number(value, here)?),
                "exclusiveMaximum" => rules.exclusive_maximum = Some(number(value, here)?),
                "multipleOf" => {
                    let n = number(value, here)?;
                    if n.as_f64().is_none_or(|f| f <= 0.0) {
                        return Err(format!("at `{here}`: must be greater than 0, found {n}"));
                    }
                    rules.multiple_of = Some(n);
                }
                "minLength" => rules.min_length = Some(count(value, here)?),
                "maxLength" => rules.max_length = Some(count(value, here)?),
                "pattern" => rules.pattern = Some(pattern(value, here)?),
                "minItems" => rules.min_items = Some(count(value, here)?),
                "maxItems" => rules.max_items = Some(count(value, here)?),
                "uniqueItems" => rules.unique_items = boolean(value, here)?,
                "prefixItems" => rules.prefix_items = self.list(value, here)?,
                "items" if value.is_array() => {
                    return Err(format!(
                        "at `{here}`: `items` must be a schema in JSON Schema 2020-12 (a tuple is `prefixItems`)"
                    ));
                }
                "items" => rules.items = Some(self.node(value, here)?),
                "contains" => rules.contains = Some(self.node(value, here)?),
                "minContains" => rules.min_contains = Some(count(value, here)?),
                "maxContains" => rules.max_contains = Some(count(value, here)?),
                "unevaluatedItems" => rules.unevaluated_items = Some(self.node(value, here)?),
                "required" => rules.required = strings(value, here)?,
                "properties" => rules.properties = self.map(value, here)?,
                "patternProperties" => {
                    for (source, id) in self.map(value, here)? {
                        let pattern = pattern(&Value::String(source), here)?;
                        rules.pattern_properties.push((pattern, id));
                    }
                }
                "additionalProperties" => rules.additional_properties = Some(self.node(value, here)?),
                "propertyNames" => rules.property_names = Some(self.node(value, here)?),
                "minProperties" => rules.min_properties = Some(count(value, here)?),
                "maxProperties" => rules.max_properties = Some(count(value, here)?),
                "dependentRequired" => {
                    let Value::Object(map) = value else { return Err(format!("at `{here}`: must be an object")) };
                    for (name, needs) in map {
                        rules.dependent_required.push((name.clone(), strings(needs, &format!("{here}/{name}"))?));
                    }
                }
                "dependentSchemas" => rules.dependent_schemas = self.map(value, here)?,
                "unevaluatedProperties" => rules.unevaluated_properties = Some(self.node(value, here)?),
                "allOf" => rules.all_of = self.list(value, here)?,
                "anyOf" => rules.any_of = self.list(value, here)?,
                "oneOf" => rules.one_of = self.list(value, here)?,
                "not" => rules.not = Some(self.node(value, here)?),
                "if" => {
                    let condition = self.node(value, here)?;
                    let then = object.get("then").map(|s| self.node(s, &format!("{at}/then"))).transpose()?;
                    let otherwise = object.get("else").map(|s| self.node(s, &format!("{at}/else"))).transpose()?;
                    rules.condition = Some((condition, then, otherwise));
                }
                // Annotations (`title`, `description`, `default`, `examples`,
                // `format`, `$schema`, `$comment`, …), keywords read only
                // through others (`then`, `else`, and `$defs`, compiled when
                // a `$ref` reaches them) and unknown keywords: no assertion,
                // as in JSON Schema 2020-12, where `format` is an annotation
                // unless a dialect asks otherwise.
                _ => {}
            }
        }
        Ok(rules)
    }

    /// A local `$ref` (`#`, `#/$defs/…`, `#/definitions/…`, any JSON
    /// pointer into the document), compiled once per target.
    fn reference(&mut self, value: &Value, at: &str) -> Result<NodeId, String> {
        let Some(reference) = value.as_str() else { return Err(format!("at `{at}`: must be a string")) };
        let Some(fragment) = reference.strip_prefix('#').filter(|f| f.is_empty() || f.starts_with('/')) else {
            return Err(format!(
                "at `{at}`: `{reference}` cannot be resolved: only references into the same schema (`#/$defs/…`) are supported"
            ));
        };
        let pointer = percent_decode(fragment);
        if let Some(&id) = self.targets.get(&pointer) {
            return Ok(id);
        }
        let root = self.root;
        let Some(target) = root.pointer(&pointer) else {
            return Err(format!("at `{at}`: `{reference}` points at nothing in the schema"));
        };
        self.targets.insert(pointer.clone(), self.nodes.len());
        self.node(target, &format!("#{pointer}"))
    }

    fn list(&mut self, value: &Value, at: &str) -> Result<Vec<NodeId>, String> {
        let items = array(value, at)?;
        if items.is_empty() {
            return Err(format!("at `{at}`: must list at least one schema"));
        }
        items.iter().enumerate().map(|(i, s)| self.node(s, &format!("{at}/{i}"))).collect()
    }

    fn map(&mut self, value: &Value, at: &str) -> Result<Vec<(String, NodeId)>, String> {
        let Value::Object(map) = value else { return Err(format!("at `{at}`: must be an object of schemas")) };
        map.iter().map(|(name, s)| Ok((name.clone(), self.node(s, &format!("{at}/{name}"))?))).collect()
    }
}

fn is_empty(rules: &Rules) -> bool {
    let Rules {
        reference,
        types,
        enumeration,
        constant,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
        multiple_of,
        min_length,
        max_length,
        pattern,
        min_items,
        max_items,
        unique_items,
        prefix_items,
        items,
        contains,
        min_contains: _,
        max_contains: _,
        unevaluated_items,
        required,
        properties,
        pattern_properties,
        additional_properties,
        property_names,
        min_properties,
        max_properties,
        dependent_required,
        dependent_schemas,
        unevaluated_properties,
        all_of,
        any_of,
        one_of,
        not,
        condition,
    } = rules;
    // `minContains`/`maxContains` assert nothing without `contains`; a
    // `properties` or `prefixItems` entry assert nothing by itself, but they
    // mark fields and items evaluated for an enclosing `unevaluated*`, so
    // they keep the node.
    reference.is_none()
        && types.is_none()
        && enumeration.is_none()
        && constant.is_none()
        && minimum.is_none()
        && maximum.is_none()
        && exclusive_minimum.is_none()
        && exclusive_maximum.is_none()
        && multiple_of.is_none()
        && min_length.is_none()
        && max_length.is_none()
        && pattern.is_none()
        && min_items.is_none()
        && max_items.is_none()
        && !unique_items
        && prefix_items.is_empty()
        && items.is_none()
        && contains.is_none()
        && unevaluated_items.is_none()
        && required.is_empty()
        && properties.is_empty()
        && pattern_properties.is_empty()
        && additional_properties.is_none()
        && property_names.is_none()
        && min_properties.is_none()
        && max_properties.is_none()
        && dependent_required.is_empty()
        && dependent_schemas.is_empty()
        && unevaluated_properties.is_none()
        && all_of.is_empty()
        && any_of.is_empty()
        && one_of.is_empty()
        && not.is_none()
        && condition.is_none()
}

fn types(value: &Value, at: &str) -> Result<Types, String> {
    let one = |name: &Value| {
        name.as_str().and_then(Types::named).ok_or_else(|| {
            format!(
                "at `{at}`: {name} is not a JSON Schema type (`null`, `boolean`, `integer`, `number`, `string`, `array` or `object`)"
            )
        })
    };
    match value {
        Value::Array(names) => names.iter().try_fold(Types::NONE, |set, name| Ok(set.with(one(name)?))),
        name => one(name),
    }
}

fn array<'a>(value: &'a Value, at: &str) -> Result<&'a Vec<Value>, String> {
    value.as_array().ok_or_else(|| format!("at `{at}`: must be an array, found {value}"))
}

fn number(value: &Value, at: &str) -> Result<Number, String> {
    match value {
        Value::Number(n) => Ok(n.clone()),
        other => Err(format!("at `{at}`: must be a number, found {other}")),
    }
}

fn boolean(value: &Value, at: &str) -> Result<bool, String> {
    value.as_bool().ok_or_else(|| format!("at `{at}`: must be true or false, found {value}"))
}

/// A non-negative integer; `2.0` counts, as JSON Schema's `integer` does.
fn count(value: &Value, at: &str) -> Result<u64, String> {
    let whole = value.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < u64::MAX as f64).map(|f| f as u64);
    value.as_u64().or(whole).ok_or_else(|| format!("at `{at}`: must be a non-negative integer, found {value}"))
}

fn strings(value: &Value, at: &str) -> Result<Vec<String>, String> {
    array(value, at)?
        .iter()
        .map(|s| s.as_str().map(str::to_owned).ok_or_else(|| format!("at `{at}`: must list strings, found {s}")))
        .collect()
}

fn pattern(value: &Value, at: &str) -> Result<Pattern, String> {
    let Some(source) = value.as_str() else { return Err(format!("at `{at}`: must be a string, found {value}")) };
    // regex-lite has no look-around, back-references or Unicode classes
    // (`\p{…}`): such a pattern is refused here, at start-up, rather than
    // checked loosely on every call.
    let regex = Regex::new(source).map_err(|e| format!("at `{at}`: the pattern `{source}` is not supported: {e}"))?;
    Ok(Pattern { source: source.to_owned(), regex })
}

/// `%25` → `%` in a `$ref` fragment (URI-escaped JSON pointer).
pub(crate) fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) =
                (bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b)))
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
