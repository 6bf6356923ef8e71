//! Tags: a component's labels of its own (`#[tool(tags = [..])]`), carried
//! in its `_meta.tags` so that they travel with its definition. Visibility
//! rules, tool search and a mount's `tagged` filter read them here, the
//! same way for a server's own components and for a mounted server's.

use mcp_core::JsonObject;
use serde_json::Value;

/// The key of a component's tags under `_meta`.
pub(crate) const META_KEY: &str = "tags";

/// Add `tags` to `meta`'s `_meta.tags`, keeping those already there,
/// each once, in the order first given.
pub(crate) fn add<I, S>(meta: &mut Option<JsonObject>, tags: I)
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut list = of(meta.as_ref());
    for tag in tags {
        let tag = tag.into();
        if !list.contains(&tag) {
            list.push(tag);
        }
    }
    meta.get_or_insert_with(JsonObject::new).insert(META_KEY.to_owned(), list.into());
}

/// A component's tags: `_meta.tags`, or FastMCP's `_meta._fastmcp.tags`
/// (what a mounted FastMCP server sends); none without either.
pub(crate) fn of(meta: Option<&JsonObject>) -> Vec<String> {
    let Some(meta) = meta else { return Vec::new() };
    let list = meta.get(META_KEY).or_else(|| meta.get("_fastmcp").and_then(|f| f.get(META_KEY)));
    list.and_then(Value::as_array)
        .map(|l| l.iter().filter_map(|t| t.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_kept_once_in_order_and_read_back() {
        let mut meta = None;
        add(&mut meta, ["b", "a"]);
        add(&mut meta, ["a", "c"]);
        assert_eq!(of(meta.as_ref()), ["b", "a", "c"]);
        let fastmcp: JsonObject = serde_json::from_str(r#"{"_fastmcp": {"tags": ["x"]}}"#).unwrap();
        assert_eq!(of(Some(&fastmcp)), ["x"]);
        assert!(of(None).is_empty());
    }
}
