//! Which branch of an `anyOf`/`oneOf` a value that fits none of them was
//! meant for. "Does not match any of the accepted shapes" tells a model
//! nothing it can fix; when one branch is clearly meant, its own problems
//! (at their own places) do. One rule for every alternative the runtime
//! generates (`Option<T>`, tagged enums, hand-written schemas):
//!
//! 1. a branch whose `type`, `const` or `enum` rules out the value's JSON
//!    type is not meant (a `null`-only branch for an object, say);
//! 2. among the rest, a tag (a field that every branch pins to one value,
//!    as serde's `#[serde(tag = "kind")]` does) names the branch: its value
//!    picks one, or is itself the problem when it names none;
//! 3. without a tag, a branch that requires a field the value lacks is not
//!    meant (an untagged enum's variants differ in their fields);
//! 4. one branch left is the meant one; more, or none, and no branch is
//!    clearly meant.

use mcp_core::jsonrpc::entry;
use serde_json::Value;

use super::Types;
use super::check::equal;
use super::compile::{Compiled, Node, NodeId, Rules};

/// How many `$ref`s are followed to find a branch's type or fields: a
/// branch is rarely more than a reference to a definition, and a cycle
/// must end.
const DEPTH: usize = 8;

/// The verdict on a value that fits none of its branches.
pub(super) enum Meant<'s, 'v> {
    /// This branch: its problems are the value's.
    Branch(NodeId),
    /// The tag names no branch: the field as sent, and the values it takes.
    UnknownTag { key: &'v str, found: &'v Value, accepted: Vec<&'s Value> },
    /// Every branch requires the tag, and the value has none.
    MissingTag(&'s str),
    /// No branch takes the value's JSON type; these are the types they take.
    Types(Types),
    /// No branch is clearly meant.
    Unclear,
}

impl Compiled {
    /// The branch of `branches` that `value` was meant for (see the module
    /// docs).
    pub(super) fn meant<'s, 'v>(&'s self, branches: &[NodeId], value: &'v Value) -> Meant<'s, 'v> {
        let candidates: Vec<NodeId> = branches.iter().copied().filter(|&b| self.admits_kind(b, value)).collect();
        match candidates[..] {
            [] => return self.declared_types(branches).map_or(Meant::Unclear, Meant::Types),
            [one] => return Meant::Branch(one),
            _ => {}
        }
        let Value::Object(map) = value else { return Meant::Unclear };
        let Some((name, tags)) = self.tag(&candidates) else {
            let complete: Vec<NodeId> = candidates
                .into_iter()
                .filter(|&b| self.chain(b).all(|r| r.required.iter().all(|n| entry(map, n).is_some())))
                .collect();
            return if let [one] = complete[..] { Meant::Branch(one) } else { Meant::Unclear };
        };
        let Some((key, found)) = entry(map, name) else {
            let required = candidates.iter().all(|&b| self.chain(b).any(|r| r.required.iter().any(|n| n == name)));
            return if required { Meant::MissingTag(name) } else { Meant::Unclear };
        };
        let named: Vec<NodeId> =
            candidates.iter().zip(&tags).filter(|(_, tag)| equal(tag, found)).map(|(&b, _)| b).collect();
        match named[..] {
            [one] => Meant::Branch(one),
            [] => {
                let mut accepted: Vec<&Value> = Vec::new();
                for tag in tags {
                    if !accepted.iter().any(|a| equal(a, tag)) {
                        accepted.push(tag);
                    }
                }
                Meant::UnknownTag { key, found, accepted }
            }
            _ => Meant::Unclear,
        }
    }

    /// The rules of `id` and of the definitions it refers to.
    fn chain(&self, id: NodeId) -> impl Iterator<Item = &Rules> {
        let mut next = Some(id);
        let mut steps = 0;
        std::iter::from_fn(move || {
            let id = next.take().filter(|_| steps <= DEPTH)?;
            steps += 1;
            let Node::Rules(rules) = &self.nodes[id] else { return None };
            next = rules.reference;
            Some(&**rules)
        })
    }

    /// Whether the `type`, `const` and `enum` of `id` (through its
    /// references) leave room for `value`'s JSON type.
    fn admits_kind(&self, id: NodeId, value: &Value) -> bool {
        !matches!(self.nodes[id], Node::Never)
            && self.chain(id).all(|rules| {
                rules.types.is_none_or(|t| t.admits(value))
                    && rules.constant.as_ref().is_none_or(|c| same_kind(c, value))
                    && rules.enumeration.as_ref().is_none_or(|e| e.iter().any(|o| same_kind(o, value)))
            })
    }

    /// The types all of `branches` take together, when each states its own.
    fn declared_types(&self, branches: &[NodeId]) -> Option<Types> {
        branches.iter().try_fold(Types::NONE, |all, &b| Some(all.with(self.chain(b).find_map(|r| r.types)?)))
    }

    /// The field every one of `branches` pins to one value, with each
    /// branch's value: an internally or adjacently tagged enum's tag.
    fn tag(&self, branches: &[NodeId]) -> Option<(&str, Vec<&Value>)> {
        let names = self.chain(branches[0]).flat_map(|r| r.properties.iter().map(|(name, _)| name.as_str()));
        for name in names {
            let tags: Option<Vec<&Value>> = branches.iter().map(|&b| self.pinned(b, name)).collect();
            if let Some(tags) = tags {
                return Some((name, tags));
            }
        }
        None
    }

    /// The one value the field `name` may take in branch `id`.
    fn pinned(&self, id: NodeId, name: &str) -> Option<&Value> {
        let (_, field) = self.chain(id).flat_map(|r| &r.properties).find(|(n, _)| n == name)?;
        let Node::Rules(field) = &self.nodes[*field] else { return None };
        match (&field.constant, &field.enumeration) {
            (Some(value), _) => Some(value),
            (None, Some(values)) if values.len() == 1 => Some(&values[0]),
            _ => None,
        }
    }
}

/// Whether two values are of one JSON type (any two numbers are).
fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}
