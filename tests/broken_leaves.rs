//! A value broken at one leaf is refused at that leaf's place, as a
//! property over the ordinary-types corpus (`ordinary_types.rs`): for
//! random values of each type, in both schema profiles, one leaf (a
//! string, number or boolean, however deep through `Option`s, tagged and
//! untagged enums, lists, maps and structs) is replaced by a value of
//! another JSON type, and the call's error starts with that leaf's path,
//! as ``argument `value.owner.w`: ``. A mistake inside an optional value
//! or an enum's variant must not collapse into "does not match any of the
//! accepted shapes" about the value around it.

use std::fmt::Debug;
use std::sync::Mutex;

use bolero::{TypeGenerator, check};
use mcp_core::SchemaProfile;
use mcp_runtime::transport::InMemoryClient;
use serde::Serialize;
use serde_json::{Value, json};

use crate::common::memory::call;
use crate::ordinary_types::{
    every_profile, every_profile_broken, run, strict_only, strict_only_broken, values_per_type,
};

/// The property, for one type and the tool that takes it.
pub(crate) fn holds<T>(client: &Mutex<InMemoryClient>, runtime: &tokio::runtime::Runtime, _: &[Value], tool: &str)
where
    T: TypeGenerator + Serialize + Debug,
{
    let send = |arguments: Value| {
        let mut client = client.lock().unwrap();
        runtime.block_on(call(&mut client, tool, arguments))
    };
    check!().with_type::<(T, usize)>().with_iterations(values_per_type()).for_each(|(value, pick)| {
        let mut sent = serde_json::to_value(value).expect("serde writes it");
        let mut found = Vec::new();
        leaves(&sent, String::new(), "value".to_owned(), &mut found);
        let Some((pointer, path)) = found.get(pick % found.len().max(1)) else { return };
        let leaf = sent.pointer_mut(pointer).expect("a leaf found above");
        *leaf = if leaf.is_boolean() { json!("yes") } else { json!(true) };
        let result = send(json!({ "value": sent }));
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert_eq!(result["isError"], true, "{tool}: {sent}, broken at `{path}`, was taken: {result}");
        let named = format!("argument `{path}`: ");
        assert!(text.starts_with(&named), "{tool}: {sent}, broken at `{path}`, was refused with: {text}");
    });
}

/// Every string, number and boolean in `value`: its JSON pointer and its
/// path as argument errors write it (`value.lines[0].sku`).
fn leaves(value: &Value, pointer: String, path: String, found: &mut Vec<(String, String)>) {
    match value {
        Value::Null => {}
        Value::Bool(_) | Value::Number(_) | Value::String(_) => found.push((pointer, path)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                leaves(item, format!("{pointer}/{i}"), format!("{path}[{i}]"), found);
            }
        }
        Value::Object(map) => {
            for (key, field) in map {
                let token = key.replace('~', "~0").replace('/', "~1");
                leaves(field, format!("{pointer}/{token}"), format!("{path}.{key}"), found);
            }
        }
    }
}

#[test]
fn a_leaf_broken_anywhere_is_named_in_the_portable_profile() {
    run(every_profile, SchemaProfile::Portable, every_profile_broken());
}

#[test]
fn a_leaf_broken_anywhere_is_named_in_the_strict_profile() {
    run(every_profile, SchemaProfile::Strict, every_profile_broken());
    run(strict_only, SchemaProfile::Strict, strict_only_broken());
}
