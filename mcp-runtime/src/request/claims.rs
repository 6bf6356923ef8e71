//! [`Claims`]: who the access token of a request says is asking and what
//! it may do, and the scopes a tool, resource or prompt requires.

use std::fmt;
use std::sync::Arc;

use mcp_core::{ErrorObject, JsonObject};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{FromRequest, Rejection, RequestParts};

/// The claims of the access token that authorized a request: take it as a
/// parameter (`claims: Claims`) of a tool, resource or prompt; it is
/// supplied by the runtime and never appears in an input schema. Clones
/// share one token's claims.
///
/// Only a request over HTTP with [`HttpOptions::oauth`](crate::transport::HttpOptions)
/// carries a token. Elsewhere (stdio, an in-memory client, HTTP without
/// OAuth) a `Claims` parameter ends the call with an error, so a handler
/// that also runs there takes `Option<Claims>` instead.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::Claims;
///
/// /// Who am I?
/// #[tool]
/// fn whoami(claims: Option<Claims>) -> String {
///     match claims.as_ref().and_then(Claims::subject) {
///         Some(subject) => format!("you are {subject}"),
///         None => "you are the local user".to_owned(),
///     }
/// }
/// # fn main() {}
/// ```
#[derive(Clone, PartialEq)]
pub struct Claims(Arc<Inner>);

#[derive(PartialEq)]
struct Inner {
    claims: JsonObject,
    scopes: Vec<String>,
}

impl Claims {
    /// The claims of a token's payload, as the OAuth transport makes them
    /// once the token is verified; made by hand, to call a handler in a
    /// test ([`RequestParts::with_claims`]). The scopes are read from
    /// `scope` (RFC 9068: one string, space-separated) or, as some
    /// authorization servers issue them, `scp` (an array or a string).
    pub fn new(claims: JsonObject) -> Self {
        let scopes = match claims.get("scope").or_else(|| claims.get("scp")) {
            Some(Value::String(text)) => text.split_ascii_whitespace().map(str::to_owned).collect(),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        Claims(Arc::new(Inner { claims, scopes }))
    }

    /// The subject (`sub`): the user, or the client acting on its own behalf.
    pub fn subject(&self) -> Option<&str> {
        self.text("sub")
    }

    /// The issuer (`iss`): the authorization server that signed the token.
    pub fn issuer(&self) -> Option<&str> {
        self.text("iss")
    }

    /// The OAuth client the token was issued to (`client_id`, or `azp`).
    pub fn client_id(&self) -> Option<&str> {
        self.text("client_id").or_else(|| self.text("azp"))
    }

    /// Who the token speaks for, as one string: the issuer and the subject
    /// (or, for a token without one, its client). HTTP sessions and tasks
    /// are bound to it.
    pub(crate) fn principal(&self) -> String {
        let who = self.subject().or_else(|| self.client_id()).unwrap_or_default();
        format!("{}\n{who}", self.issuer().unwrap_or_default())
    }

    /// The scopes the token grants.
    pub fn scopes(&self) -> &[String] {
        &self.0.scopes
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.0.scopes.iter().any(|s| s == scope)
    }

    /// The claim `name` as a `T`: `None` if the token has no such claim or
    /// it is not a `T`.
    pub fn claim<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        T::deserialize(self.0.claims.get(name)?).ok()
    }

    /// Every claim, as the token's payload has them.
    pub fn all(&self) -> &JsonObject {
        &self.0.claims
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.0.claims.get(name).and_then(Value::as_str)
    }

    /// The scopes of `required` the token does not grant.
    pub(crate) fn missing<'a>(&self, required: &'a [String]) -> Vec<&'a str> {
        required.iter().filter(|s| !self.has_scope(s)).map(String::as_str).collect()
    }
}

/// Tokens are credentials: their claims are shown, never the token.
impl fmt::Debug for Claims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claims").field("subject", &self.subject()).field("scopes", &self.0.scopes).finish()
    }
}

impl FromRequest for Claims {
    fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
        request.claims.clone().ok_or_else(|| {
            Rejection::new(
                "this needs a request authorized with an OAuth access token, and this one carries none; \
                 take `Option<Claims>` to run without one",
            )
        })
    }
}

impl FromRequest for Option<Claims> {
    fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
        Ok(request.claims.clone())
    }
}

/// Our code for a request whose token lacks a scope it needs (in the
/// implementation-defined range; over HTTP the answer is a 403).
pub(crate) const INSUFFICIENT_SCOPE: i64 = -32003;

/// The error for a request whose token lacks the `missing` scopes. Its
/// data's `scope` is what to ask the authorization server for next: the
/// scopes granted and the missing ones, so that stepping up loses no
/// permission the client had (the spec's recommended approach).
pub(crate) fn insufficient_scope(claims: &Claims, missing: &[&str], what: fmt::Arguments<'_>) -> ErrorObject {
    let mut scope: Vec<&str> = claims.scopes().iter().map(String::as_str).collect();
    scope.extend(missing);
    let named: Vec<String> = missing.iter().map(|s| format!("`{s}`")).collect();
    ErrorObject::new(INSUFFICIENT_SCOPE, format!("insufficient scope: {what} needs {}", named.join(" and ")))
        .with_data(json!({ "error": "insufficient_scope", "scope": scope.join(" "), "missing": missing }))
}

/// Why a scope cannot be required: RFC 6749 §3.3 makes a scope a
/// non-empty run of printable ASCII other than space, `"` and `\`, since
/// a token's scopes are one space-separated string.
pub(crate) fn scope_problem(scope: &str) -> Option<String> {
    if scope.is_empty() {
        return Some("a scope cannot be empty".to_owned());
    }
    scope
        .chars()
        .find(|c| !matches!(c, '!' | '#'..='[' | ']'..='~'))
        .map(|bad| format!("scope {scope:?} contains {bad:?}: a scope is printable ASCII without spaces, `\"` or `\\`"))
}

/// Refuse to start a server whose `kind` `name` requires a scope no
/// token could carry: it could never be used over OAuth.
pub(crate) fn check_scopes(
    scopes: &[String],
    kind: &'static str,
    name: &str,
    rust_path: &str,
) -> Result<(), crate::Error> {
    match scopes.iter().find_map(|scope| scope_problem(scope)) {
        None => Ok(()),
        Some(reason) => {
            Err(crate::Error::InvalidScope { kind, name: name.to_owned(), rust_path: rust_path.to_owned(), reason })
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(value: Value) -> Claims {
        Claims::new(value.as_object().unwrap().clone())
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        assert_eq!(claims(json!({"scope": "a  b:c"})).scopes(), ["a", "b:c"]);
        assert_eq!(claims(json!({"scp": ["x", 1, "y"]})).scopes(), ["x", "y"]);
        assert!(claims(json!({"scope": 5})).scopes().is_empty());
        let c = claims(json!({"scope": "read", "sub": "ann", "azp": "app", "n": 3}));
        assert!(c.has_scope("read") && !c.has_scope("write"));
        assert_eq!((c.subject(), c.client_id()), (Some("ann"), Some("app")));
        assert_eq!(c.claim::<u8>("n"), Some(3));
        assert_eq!(c.claim::<String>("n"), None);
        assert_eq!(c.missing(&["read".into(), "write".into()]), ["write"]);
    }

    #[test]
    fn scopes_are_printable_ascii_without_space_quote_or_backslash() {
        assert_eq!(scope_problem("notes:write"), None);
        assert_eq!(scope_problem("https://api.example.com/x.read"), None);
        for bad in ["", "a b", "a\"b", "a\\b", "é", "a\tb"] {
            assert!(scope_problem(bad).is_some(), "{bad:?}");
        }
    }
}
