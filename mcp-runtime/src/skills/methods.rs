//! The skills extension's methods: `skills/list` (every entry, paged),
//! `skills/get` (one entry, by the URI of its `SKILL.md`) and
//! `resources/directory/read` (a directory's direct children, paged). An
//! unknown skill or directory is `-32602`, as the extension says.

use mcp_core::skills::{GetSkillResult, ListSkillsResult, ReadDirectoryParams, ReadDirectoryResult};
use mcp_core::{ErrorObject, JsonObject, ResourceUri};
use serde_json::json;

use super::Served;
use crate::component::snapshot::{CURSOR_PREFIX, after_cursor};
use crate::dispatch::reply::ResultBody;
use crate::dispatch::{Action, Incoming, parse, span};

impl ResultBody for ListSkillsResult {}
impl ResultBody for GetSkillResult {}
impl ResultBody for ReadDirectoryResult {}

/// The params of `skills/list`.
#[derive(serde::Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

fn served<'a>(request: &'a Incoming<'_>) -> &'a Served {
    // The method table routes here only when the server has skills.
    request.shared().skills.as_deref().expect("skills methods are routed only to a server with skills")
}

/// One page of `items` (sorted by URI) after `cursor`, and the next
/// page's cursor.
fn page<'a, T>(
    items: &'a [T],
    uri: impl Fn(&T) -> &str,
    cursor: Option<&str>,
    size: Option<usize>,
) -> Result<(&'a [T], Option<String>), ErrorObject> {
    let start = after_cursor(items, &uri, cursor)?;
    let end = start.saturating_add(size.unwrap_or(usize::MAX)).min(items.len());
    let page = &items[start..end];
    let next = (end < items.len()).then(|| page.last().map(|last| format!("{CURSOR_PREFIX}{}", uri(last)))).flatten();
    Ok((page, next))
}

pub(crate) fn list(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let ListParams { cursor } = parse(params)?;
    let skills = served(request).skills();
    let (page, next_cursor) = page(skills, |s| &s.uri, cursor.as_deref(), request.shared().page_size)?;
    Ok(request.reply(ListSkillsResult { skills: page.to_vec(), next_cursor }))
}

pub(crate) fn get(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let ResourceUri { uri, .. } = parse(params)?;
    span::resource(request.span, &uri);
    let skill = served(request).skill(&uri).ok_or_else(|| {
        ErrorObject::invalid_params(format!("no skill is served at {uri}")).with_data(json!({ "uri": uri }))
    })?;
    Ok(request.reply(GetSkillResult { skill: skill.clone() }))
}

pub(crate) fn read_directory(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let ReadDirectoryParams { uri, cursor, .. } = parse(params)?;
    span::resource(request.span, &uri);
    let children = served(request).directory(&uri).ok_or_else(|| {
        ErrorObject::invalid_params(format!("{uri} is not a directory resource this server serves"))
            .with_data(json!({ "uri": uri }))
    })?;
    let (page, next_cursor) = page(children, |r| &r.uri, cursor.as_deref(), request.shared().page_size)?;
    let resources = page.iter().map(|r| r.for_version(request.version)).collect();
    Ok(request.reply(ReadDirectoryResult { resources, next_cursor }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_their_cursors() {
        let items = ["a", "b", "c"];
        let (first, next) = page(&items, |s| s, None, Some(2)).unwrap();
        assert_eq!((first, next.as_deref()), (&items[..2], Some("after:b")));
        let (second, next) = page(&items, |s| s, next.as_deref(), Some(2)).unwrap();
        assert_eq!((second, next), (&items[2..], None));
        assert!(page(&items, |s| s, Some("b"), None).is_err());
        assert_eq!(page(&items, |s| s, None, None).unwrap(), (&items[..], None));
    }
}
