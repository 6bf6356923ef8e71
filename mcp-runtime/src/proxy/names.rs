//! How a mounted server's names become the mounting server's: tools and
//! prompts get `{prefix}_{name}`, resource URIs and templates get the
//! prefix as the first segment after the scheme (`resource://notes/today`
//! under `memo` is `resource://memo/notes/today`), FastMCP's "path" rule.
//! Each proxied entry keeps its upstream name, so a call is routed by
//! lookup, never by parsing; only a template's read parses, to undo the
//! prefix of the URI a client filled in.

/// The renaming of one mount (none for an empty prefix).
#[derive(Clone, Debug)]
pub(crate) struct Names {
    prefix: String,
}

impl Names {
    pub(crate) fn new(prefix: &str) -> Names {
        Names { prefix: prefix.to_owned() }
    }

    /// Rename the view a tool names (MCP Apps), which is one of the
    /// renamed resources.
    pub(crate) fn view_of(&self, tool: &mut mcp_core::Tool) {
        let Some(meta) = tool.meta.as_mut() else { return };
        if let Some(serde_json::Value::String(uri)) = meta.get_mut(mcp_core::apps::LEGACY_RESOURCE_URI_KEY) {
            *uri = self.uri(uri);
        }
        let ui = meta.get_mut(mcp_core::apps::META_KEY).and_then(|ui| ui.get_mut("resourceUri"));
        if let Some(serde_json::Value::String(uri)) = ui {
            *uri = self.uri(uri);
        }
    }

    /// A tool's or a prompt's name as the mounting server lists it.
    pub(crate) fn name(&self, name: &str) -> String {
        if self.prefix.is_empty() { name.to_owned() } else { format!("{}_{name}", self.prefix) }
    }

    /// A resource URI (or template) as the mounting server lists it. A URI
    /// without `://` (a URN) gets `{prefix}+` before its scheme instead.
    pub(crate) fn uri(&self, uri: &str) -> String {
        if self.prefix.is_empty() {
            return uri.to_owned();
        }
        match uri.split_once("://") {
            Some((scheme, rest)) => format!("{scheme}://{}/{rest}", self.prefix),
            None => format!("{}+{uri}", self.prefix),
        }
    }

    /// The upstream's URI of one the mounting server listed (the inverse
    /// of [`uri`](Self::uri)), or `None` if it is not one of this mount's.
    pub(crate) fn upstream_uri(&self, uri: &str) -> Option<String> {
        if self.prefix.is_empty() {
            return Some(uri.to_owned());
        }
        if let Some((scheme, rest)) = uri.split_once("://")
            && let Some(rest) = rest.strip_prefix(&self.prefix).and_then(|r| r.strip_prefix('/'))
        {
            return Some(format!("{scheme}://{rest}"));
        }
        uri.strip_prefix(&self.prefix).and_then(|r| r.strip_prefix('+')).map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris_get_the_prefix_and_uris_come_back() {
        let names = Names::new("calc");
        assert_eq!(names.name("add"), "calc_add");
        for (upstream, ours) in [
            ("resource://data.txt", "resource://calc/data.txt"),
            ("file:///tmp/a b", "file://calc//tmp/a b"),
            ("notes://{day}/entry", "notes://calc/{day}/entry"),
            ("urn:isbn:123", "calc+urn:isbn:123"),
        ] {
            assert_eq!(names.uri(upstream), ours);
            assert_eq!(names.upstream_uri(ours).as_deref(), Some(upstream));
        }
        assert_eq!(names.upstream_uri("resource://other/x"), None);
        let none = Names::new("");
        assert_eq!((none.name("add"), none.uri("a://b")), ("add".to_owned(), "a://b".to_owned()));
    }
}
