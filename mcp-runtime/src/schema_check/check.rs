//! A value checked against compiled nodes.

use std::cmp::Ordering;

use mcp_core::jsonrpc::{entry, member};
use serde_json::{Map, Number, Value};

use super::branch::Meant;
use super::compile::{Compiled, Node, NodeId, Rules};
use super::{Kind, Path, Problem, Segment};

/// One walk over a value. Without `collect` it stops at the first problem
/// and records nothing, which is the common path (valid values) and the one
/// `anyOf`, `oneOf`, `not`, `if` and `contains` take for their branches.
pub(super) struct Walk<'s, 'v> {
    schema: &'s Compiled,
    collect: bool,
    path: Vec<Segment<'v>>,
    pub(super) problems: Vec<Problem<'s, 'v>>,
}

impl<'s, 'v> Walk<'s, 'v> {
    pub(super) fn new(schema: &'s Compiled, collect: bool) -> Self {
        Walk { schema, collect, path: Vec::new(), problems: Vec::new() }
    }

    fn fits(&self, id: NodeId, value: &Value) -> bool {
        self.schema.fits(id, value)
    }

    fn fail(&mut self, value: &'v Value, kind: Kind<'s, 'v>) -> bool {
        if self.collect {
            self.problems.push(Problem { path: Path(self.path.clone()), instance: value, kind });
        }
        false
    }

    fn below(&mut self, segment: Segment<'v>, id: NodeId, value: &'v Value) -> bool {
        self.path.push(segment);
        let fits = self.node(id, value);
        self.path.pop();
        fits
    }

    pub(super) fn node(&mut self, id: NodeId, value: &'v Value) -> bool {
        let schema = self.schema;
        match &schema.nodes[id] {
            Node::Always => true,
            Node::Never => self.fail(value, Kind::Never),
            Node::Rules(rules) => self.rules(rules, value),
        }
    }

    fn rules(&mut self, rules: &'s Rules, value: &'v Value) -> bool {
        // A value of the wrong type breaks every other rule at its place
        // too; the type is what to fix, so it is the only problem told.
        if let Some(types) = rules.types
            && !types.admits(value)
        {
            return self.fail(value, Kind::Type(types));
        }
        let mut fits = true;
        // Each step runs only while the value still fits or problems are
        // being collected.
        macro_rules! step {
            ($check:expr) => {
                if fits || self.collect {
                    fits &= $check;
                }
            };
        }
        if let Some(target) = rules.reference {
            step!(self.node(target, value));
        }
        if let Some(options) = &rules.enumeration {
            step!(options.iter().any(|o| equal(o, value)) || self.fail(value, Kind::Enum(options)));
        }
        if let Some(constant) = &rules.constant {
            step!(equal(constant, value) || self.fail(value, Kind::Const(constant)));
        }
        match value {
            Value::Number(n) => step!(self.number(rules, n, value)),
            Value::String(s) => step!(self.string(rules, s, value)),
            Value::Array(items) => step!(self.array(rules, items, value)),
            Value::Object(map) => step!(self.object(rules, map, value)),
            Value::Null | Value::Bool(_) => {}
        }
        for &branch in &rules.all_of {
            step!(self.node(branch, value));
        }
        if !rules.any_of.is_empty() {
            step!(
                rules.any_of.iter().any(|&b| self.fits(b, value)) || self.unmatched(&rules.any_of, value, Kind::AnyOf)
            );
        }
        if !rules.one_of.is_empty() {
            step!(match rules.one_of.iter().filter(|&&b| self.fits(b, value)).take(2).count() {
                1 => true,
                0 => self.unmatched(&rules.one_of, value, Kind::OneOfNone),
                _ => self.fail(value, Kind::OneOfMany),
            });
        }
        if let Some(not) = rules.not {
            step!(!self.fits(not, value) || self.fail(value, Kind::Not));
        }
        if let Some((condition, then, otherwise)) = rules.condition {
            let branch = if self.fits(condition, value) { then } else { otherwise };
            if let Some(branch) = branch {
                step!(self.node(branch, value));
            }
        }
        fits
    }

    /// A value that fits none of `branches`: the problems of the branch it
    /// was meant for, at their own places, or `fallback` when no branch is
    /// clearly meant (see [`Compiled::meant`]).
    fn unmatched(&mut self, branches: &[NodeId], value: &'v Value, fallback: Kind<'s, 'v>) -> bool {
        if !self.collect {
            return false;
        }
        let schema = self.schema;
        match schema.meant(branches, value) {
            Meant::Branch(id) => {
                let before = self.problems.len();
                // The branch fails, so it tells something; should it not,
                // the value still fails here.
                if self.node(id, value) || self.problems.len() == before {
                    self.fail(value, fallback);
                }
                false
            }
            Meant::UnknownTag { key, found, accepted } => {
                self.path.push(Segment::Key(key));
                self.fail(found, Kind::Tag(accepted));
                self.path.pop();
                false
            }
            Meant::MissingTag(name) => self.fail(value, Kind::Required(name)),
            Meant::Types(types) => self.fail(value, Kind::Type(types)),
            Meant::Unclear => self.fail(value, fallback),
        }
    }

    fn number(&mut self, rules: &'s Rules, n: &Number, value: &'v Value) -> bool {
        let below = |limit: &Number| compare(n, limit) == Some(Ordering::Less);
        let above = |limit: &Number| compare(n, limit) == Some(Ordering::Greater);
        let mut fits = true;
        if let Some(limit) = &rules.minimum
            && below(limit)
        {
            fits = self.fail(value, Kind::Minimum(limit));
        }
        if let Some(limit) = &rules.maximum
            && above(limit)
        {
            fits = self.fail(value, Kind::Maximum(limit));
        }
        if let Some(limit) = &rules.exclusive_minimum
            && !above(limit)
        {
            fits = self.fail(value, Kind::ExclusiveMinimum(limit));
        }
        if let Some(limit) = &rules.exclusive_maximum
            && !below(limit)
        {
            fits = self.fail(value, Kind::ExclusiveMaximum(limit));
        }
        if let Some(step) = &rules.multiple_of
            && !is_multiple(n, step)
        {
            fits = self.fail(value, Kind::MultipleOf(step));
        }
        fits
    }

    fn string(&mut self, rules: &'s Rules, s: &str, value: &'v Value) -> bool {
        let mut fits = true;
        if rules.min_length.is_some() || rules.max_length.is_some() {
            // JSON Schema counts characters (code points), not bytes.
            let length = s.chars().count() as u64;
            if let Some(limit) = rules.min_length
                && length < limit
            {
                fits = self.fail(value, Kind::MinLength(limit));
            }
            if let Some(limit) = rules.max_length
                && length > limit
            {
                fits = self.fail(value, Kind::MaxLength(limit));
            }
        }
        if let Some(pattern) = &rules.pattern
            && !pattern.regex.is_match(s)
        {
            fits = self.fail(value, Kind::Pattern(&pattern.source));
        }
        fits
    }

    fn array(&mut self, rules: &'s Rules, items: &'v [Value], value: &'v Value) -> bool {
        let mut fits = true;
        let length = items.len() as u64;
        if let Some(limit) = rules.min_items
            && length < limit
        {
            fits = self.fail(value, Kind::MinItems(limit));
        }
        if let Some(limit) = rules.max_items
            && length > limit
        {
            fits = self.fail(value, Kind::MaxItems(limit));
        }
        if rules.unique_items && items.iter().enumerate().any(|(i, a)| items[..i].iter().any(|b| equal(a, b))) {
            fits = self.fail(value, Kind::UniqueItems);
        }
        for (index, (item, &id)) in items.iter().zip(&rules.prefix_items).enumerate() {
            if fits || self.collect {
                fits &= self.below(Segment::Index(index), id, item);
            }
        }
        if let Some(id) = rules.items {
            for (index, item) in items.iter().enumerate().skip(rules.prefix_items.len()) {
                if fits || self.collect {
                    fits &= self.below(Segment::Index(index), id, item);
                }
            }
        }
        if let Some(id) = rules.contains {
            let matching = items.iter().filter(|item| self.fits(id, item)).count() as u64;
            let least = rules.min_contains.unwrap_or(1);
            if matching < least {
                fits = self.fail(value, Kind::MinContains(least));
            }
            if let Some(most) = rules.max_contains
                && matching > most
            {
                fits = self.fail(value, Kind::MaxContains(most));
            }
        }
        if let Some(id) = rules.unevaluated_items
            && (fits || self.collect)
        {
            let mut evaluated = vec![false; items.len()];
            self.schema.mark_items(rules, value, &mut evaluated, false);
            for (index, item) in items.iter().enumerate().filter(|(i, _)| !evaluated[*i]) {
                if matches!(self.schema.nodes[id], Node::Never) {
                    fits = self.fail(value, Kind::UnevaluatedItems);
                    break;
                }
                if fits || self.collect {
                    fits &= self.below(Segment::Index(index), id, item);
                }
            }
        }
        fits
    }

    fn object(&mut self, rules: &'s Rules, map: &'v Map<String, Value>, value: &'v Value) -> bool {
        let mut fits = true;
        for name in &rules.required {
            if member(map, name).is_none() {
                fits = self.fail(value, Kind::Required(name));
                if !self.collect {
                    return false;
                }
            }
        }
        for (trigger, needs) in &rules.dependent_required {
            if member(map, trigger).is_some() {
                for name in needs.iter().filter(|n| member(map, n).is_none()) {
                    fits = self.fail(value, Kind::DependentRequired { trigger, missing: name });
                }
            }
        }
        let size = map.len() as u64;
        if let Some(limit) = rules.min_properties
            && size < limit
        {
            fits = self.fail(value, Kind::MinProperties(limit));
        }
        if let Some(limit) = rules.max_properties
            && size > limit
        {
            fits = self.fail(value, Kind::MaxProperties(limit));
        }
        for (name, id) in &rules.properties {
            if let Some((key, field)) = entry(map, name)
                && (fits || self.collect)
            {
                fits &= self.below(Segment::Key(key), *id, field);
            }
        }
        for (pattern, id) in &rules.pattern_properties {
            for (key, field) in map.iter().filter(|(k, _)| pattern.regex.is_match(k)) {
                if fits || self.collect {
                    fits &= self.below(Segment::Key(key), *id, field);
                }
            }
        }
        if let Some(id) = rules.additional_properties {
            let rest = map.iter().filter(|(k, _)| !rules.names(k));
            fits &= self.rest(id, rest, value);
        }
        if let Some(id) = rules.property_names {
            for key in map.keys() {
                if !self.fits(id, &Value::String(key.clone())) {
                    fits = self.fail(value, Kind::PropertyName(key));
                }
            }
        }
        for (trigger, id) in &rules.dependent_schemas {
            if member(map, trigger).is_some() && (fits || self.collect) {
                fits &= self.node(*id, value);
            }
        }
        if let Some(id) = rules.unevaluated_properties
            && (fits || self.collect)
        {
            let mut evaluated = Vec::new();
            self.schema.mark_properties(rules, value, &mut evaluated, false);
            let rest = map.iter().filter(|(k, _)| !evaluated.contains(&k.as_str()));
            fits &= self.rest(id, rest, value);
        }
        fits
    }

    /// Fields no other keyword took, checked against `additionalProperties`
    /// or `unevaluatedProperties`: with `false`, one problem naming them all.
    fn rest(&mut self, id: NodeId, rest: impl Iterator<Item = (&'v String, &'v Value)>, value: &'v Value) -> bool {
        if matches!(self.schema.nodes[id], Node::Never) {
            let names: Vec<&'v str> = rest.map(|(k, _)| k.as_str()).collect();
            return names.is_empty() || self.fail(value, Kind::Unknown(names));
        }
        let mut fits = true;
        for (key, field) in rest {
            if fits || self.collect {
                fits &= self.below(Segment::Key(key), id, field);
            }
        }
        fits
    }
}

impl Compiled {
    pub(super) fn fits(&self, id: NodeId, value: &Value) -> bool {
        Walk::new(self, false).node(id, value)
    }

    /// The fields `rules` and the subschemas that apply to `map` evaluate,
    /// for `unevaluatedProperties` (JSON Schema's annotation collection,
    /// done only when that keyword is present).
    /// `nested` is false for the schema whose `unevaluatedProperties` asks:
    /// only a subschema's own `unevaluatedProperties` evaluates every field.
    fn mark_properties<'v>(&self, rules: &Rules, value: &'v Value, evaluated: &mut Vec<&'v str>, nested: bool) {
        let Value::Object(map) = value else { return };
        let all = rules.additional_properties.is_some() || (nested && rules.unevaluated_properties.is_some());
        for key in map.keys() {
            if (all || rules.names(key)) && !evaluated.contains(&key.as_str()) {
                evaluated.push(key);
            }
        }
        self.each_applied(rules, value, &mut |schema, rules| schema.mark_properties(rules, value, evaluated, true));
    }

    /// The items `rules` and the subschemas that apply to `items` evaluate,
    /// for `unevaluatedItems`.
    fn mark_items(&self, rules: &Rules, value: &Value, evaluated: &mut [bool], nested: bool) {
        let Value::Array(items) = value else { return };
        let all = rules.items.is_some() || (nested && rules.unevaluated_items.is_some());
        for (i, item) in items.iter().enumerate() {
            let contained = rules.contains.is_some_and(|id| self.fits(id, item));
            if all || i < rules.prefix_items.len() || contained {
                evaluated[i] = true;
            }
        }
        self.each_applied(rules, value, &mut |schema, rules| schema.mark_items(rules, value, evaluated, true));
    }

    /// Calls `visit` on every subschema whose annotations count for `value`:
    /// `$ref`, `allOf`, the `anyOf`/`oneOf` branches it fits, the `if`
    /// branch taken and `dependentSchemas` that apply.
    fn each_applied(&self, rules: &Rules, value: &Value, visit: &mut dyn FnMut(&Compiled, &Rules)) {
        let mut applied: Vec<NodeId> = rules.reference.into_iter().chain(rules.all_of.iter().copied()).collect();
        applied.extend(rules.any_of.iter().chain(&rules.one_of).filter(|&&b| self.fits(b, value)));
        if let Some((condition, then, otherwise)) = rules.condition {
            if self.fits(condition, value) {
                applied.push(condition);
                applied.extend(then);
            } else {
                applied.extend(otherwise);
            }
        }
        if let Value::Object(map) = value {
            applied.extend(rules.dependent_schemas.iter().filter(|(k, _)| map.contains_key(k)).map(|(_, id)| *id));
        }
        for id in applied {
            if let Node::Rules(rules) = &self.nodes[id] {
                visit(self, rules);
            }
        }
    }
}

/// Numbers by value: integers exactly, others as `f64`.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn integer(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// Whether `n` divided by `step` is a whole number. Integers exactly;
/// fractions in decimal terms, so that 0.3 is a multiple of 0.1 although
/// neither is exact in binary.
fn is_multiple(n: &Number, step: &Number) -> bool {
    if let (Some(x), Some(y)) = (integer(n), integer(step)) {
        return y != 0 && x % y == 0;
    }
    let (Some(x), Some(y)) = (n.as_f64(), step.as_f64()) else { return false };
    let quotient = x / y;
    quotient.is_finite() && (quotient - quotient.round()).abs() <= 1e-9 * quotient.abs().max(1.0)
}

/// JSON equality, with numbers compared by value (`1` equals `1.0`), as
/// `enum`, `const` and `uniqueItems` compare.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}
