//! The list method every kind shares: one page of the snapshot, each entry
//! as the request's protocol version lists it (serialized when the entry
//! was built), and the cursor of the next page.

use mcp_core::{ErrorObject, JsonObject, ListToolsParams};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::value::RawValue;

use super::{Catalog, Kind};
use crate::dispatch::reply::ResultBody;
use crate::dispatch::{Action, Incoming, parse};

/// `{"<key>": [...], "nextCursor": "…"}`.
struct Page<'a> {
    key: &'static str,
    items: Vec<&'a RawValue>,
    next_cursor: Option<String>,
}

impl Serialize for Page<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry(self.key, &self.items)?;
        if let Some(cursor) = &self.next_cursor {
            map.serialize_entry("nextCursor", cursor)?;
        }
        map.end()
    }
}

impl ResultBody for Page<'_> {}

/// Answer a list request for `catalog`, its items under `key`.
pub(crate) fn list<K: Kind>(
    request: &Incoming<'_>,
    params: Option<JsonObject>,
    catalog: &Catalog<K>,
    key: &'static str,
) -> Result<Action, ErrorObject> {
    let params: ListToolsParams = parse(params)?;
    let snapshot = catalog.current();
    // A token sees only what it may use (the spec lets lists vary by
    // authorization), and a client only what it can use; a caller with a
    // view of its own sees what it turned on, and not what it turned off.
    let visible = |entry: &K::Entry| K::listed_to(entry, request);
    let view = request.view();
    let page_size = request.shared().page_size;
    let (page, next_cursor) = snapshot.page(params.cursor.as_deref(), page_size, view.as_deref(), visible)?;
    let items = page.iter().map(|entry| K::listed(entry, request.version)).collect();
    Ok(request.reply(Page { key, items, next_cursor }))
}
