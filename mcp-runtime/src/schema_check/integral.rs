//! Integral floats made integers where the schema asks for an integer.
//!
//! JSON Schema counts `2.0` as an integer, and models send integers so
//! (`"count": 5.0`); serde does not read a float into a `u64`. A value that
//! passed the check is brought to serde's terms: at every place whose
//! schema's `type` is `integer` (and not also `number`), a float with no
//! fraction that a 64-bit integer holds becomes that integer. Any other
//! float there already failed the check ("expected an integer").

use serde_json::{Number, Value};

use super::compile::{Compiled, Node, NodeId};

/// How many schemas deep the walk goes: a value passed the check, so a
/// deeper one is a recursive type's, far past any real argument.
const DEPTH: usize = 128;

impl Compiled {
    /// Replace the integral floats of `value` (which fits node `id`) that
    /// sit where the schema asks for an integer.
    pub(super) fn make_integral(&self, id: NodeId, value: &mut Value, depth: usize) {
        let Node::Rules(rules) = &self.nodes[id] else { return };
        if depth > DEPTH {
            return;
        }
        let depth = depth + 1;
        if let Some(types) = rules.types
            && types.contains("integer")
            && !types.contains("number")
            && let Value::Number(n) = value
            && let Some(whole) = integral(n)
        {
            *n = whole;
            return;
        }
        if let Some(target) = rules.reference {
            self.make_integral(target, value, depth);
        }
        for &branch in &rules.all_of {
            self.make_integral(branch, value, depth);
        }
        // The branch the value fits is the one that decides its shape.
        for branches in [&rules.any_of, &rules.one_of] {
            if let Some(&branch) = branches.iter().find(|&&b| self.fits(b, &*value)) {
                self.make_integral(branch, value, depth);
            }
        }
        if let Some((condition, then, otherwise)) = rules.condition {
            let branch = if self.fits(condition, &*value) { then } else { otherwise };
            if let Some(branch) = branch {
                self.make_integral(branch, value, depth);
            }
        }
        match value {
            Value::Array(items) => {
                let prefix = rules.prefix_items.len();
                for (item, &id) in items.iter_mut().zip(&rules.prefix_items) {
                    self.make_integral(id, item, depth);
                }
                if let Some(id) = rules.items {
                    for item in items.iter_mut().skip(prefix) {
                        self.make_integral(id, item, depth);
                    }
                }
            }
            Value::Object(map) => {
                for (key, field) in map.iter_mut() {
                    let named = rules.properties.iter().find(|(name, _)| name == key).map(|(_, id)| *id);
                    let patterned = rules.pattern_properties.iter().filter(|(p, _)| p.regex.is_match(key));
                    for (_, id) in patterned {
                        self.make_integral(*id, field, depth);
                    }
                    match (named, rules.additional_properties) {
                        (Some(id), _) => self.make_integral(id, field, depth),
                        (None, Some(id)) if !rules.names(key) => self.make_integral(id, field, depth),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// `n` as an integer, if it is a float with no fraction that an `i64` or
/// a `u64` holds exactly.
fn integral(n: &Number) -> Option<Number> {
    if n.is_i64() || n.is_u64() {
        return None;
    }
    let f = n.as_f64().filter(|f| f.fract() == 0.0)?;
    // 2^63 and 2^64 are exact as floats; the bounds are exclusive above.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Some(Number::from(f as i64))
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(Number::from(f as u64))
    } else {
        None
    }
}
