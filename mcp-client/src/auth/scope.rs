//! Which scopes to ask for (the MCP spec's scope selection strategy, with
//! SEP-2350's union on re-authorization and SEP-2207's `offline_access`).

/// The scope that asks the authorization server for a refresh token.
pub(crate) const OFFLINE_ACCESS: &str = "offline_access";

/// The scopes of a space-separated `scope` value.
pub(crate) fn split(scope: &str) -> Vec<String> {
    let mut scopes = Vec::new();
    for scope in scope.split_ascii_whitespace() {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
    scopes
}

/// The scopes of a first authorization: the challenge's `scope` if it
/// named one, else every scope the resource metadata lists, else none
/// (the `scope` parameter is then left out).
pub(crate) fn select(challenged: &[String], supported: Option<&[String]>) -> Vec<String> {
    if !challenged.is_empty() {
        return challenged.to_vec();
    }
    supported.map(|s| union(&[], s)).unwrap_or_default()
}

/// `previous` and then whatever `new` adds, in order: a re-authorization
/// keeps what was granted before (a narrower token would fail the calls
/// that worked).
pub(crate) fn union(previous: &[String], new: &[String]) -> Vec<String> {
    let mut scopes = previous.to_vec();
    for scope in new {
        if !scope.is_empty() && !scopes.contains(scope) {
            scopes.push(scope.clone());
        }
    }
    scopes
}

/// `scopes` plus `offline_access` when the client wants a refresh token
/// and the authorization server lists that scope. Never added to an empty
/// request: a token for `offline_access` alone would carry nothing the
/// server asked for.
pub(crate) fn with_offline_access(
    scopes: Vec<String>,
    server_supports: Option<&[String]>,
    wanted: bool,
) -> Vec<String> {
    let listed = server_supports.is_some_and(|s| s.iter().any(|s| s == OFFLINE_ACCESS));
    if wanted && listed && !scopes.is_empty() { union(&scopes, &[OFFLINE_ACCESS.to_owned()]) } else { scopes }
}

/// The `scope` parameter, or none for no scopes.
pub(crate) fn join(scopes: &[String]) -> Option<String> {
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

/// Whether every scope of `wanted` is in `held`.
pub(crate) fn covered(wanted: &[String], held: &[String]) -> bool {
    wanted.iter().all(|s| held.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(scopes: &[&str]) -> Vec<String> {
        scopes.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_challenge_wins_then_scopes_supported_then_nothing() {
        let supported = v(&["mcp:basic", "mcp:read", "mcp:write"]);
        assert_eq!(select(&v(&["mcp:basic"]), Some(&supported)), v(&["mcp:basic"]));
        assert_eq!(select(&[], Some(&supported)), supported);
        assert_eq!(select(&[], None), Vec::<String>::new());
        assert_eq!(join(&select(&[], None)), None);
        assert_eq!(join(&supported).as_deref(), Some("mcp:basic mcp:read mcp:write"));
    }

    #[test]
    fn step_up_keeps_what_was_granted() {
        assert_eq!(union(&v(&["mcp:basic"]), &v(&["mcp:write", "mcp:basic"])), v(&["mcp:basic", "mcp:write"]));
        assert!(covered(&v(&["a"]), &v(&["a", "b"])));
        assert!(!covered(&v(&["a", "c"]), &v(&["a", "b"])));
        assert_eq!(split("  a b\ta  "), v(&["a", "b"]));
    }

    #[test]
    fn offline_access_only_when_listed_and_wanted() {
        let listed = v(&["mcp:basic", "offline_access"]);
        let unlisted = v(&["mcp:basic", "mcp:read"]);
        let asked = v(&["mcp:basic"]);
        assert_eq!(with_offline_access(asked.clone(), Some(&listed), true), v(&["mcp:basic", "offline_access"]));
        assert_eq!(with_offline_access(asked.clone(), Some(&unlisted), true), asked);
        assert_eq!(with_offline_access(asked.clone(), None, true), asked);
        assert_eq!(with_offline_access(asked.clone(), Some(&listed), false), asked);
        assert_eq!(with_offline_access(vec![], Some(&listed), true), Vec::<String>::new());
    }
}
