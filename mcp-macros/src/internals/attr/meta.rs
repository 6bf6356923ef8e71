//! `meta("com.example/key" = <expr>, …)`: `_meta` entries, their keys
//! checked against the spec's naming rules.

use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Expr, LitStr, Token};

use crate::internals::errors::Errors;

/// `meta("com.example/key" = <expr>, …)`: keys are checked against the
/// spec's `_meta` naming rules here, values are serialized at run time.
pub(crate) fn meta_entries(
    meta: &ParseNestedMeta,
    out: &mut Vec<(LitStr, Expr)>,
    errors: &mut Errors,
) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error("`meta` takes entries: `meta(\"com.example/key\" = \"value\")`"));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let entries = Punctuated::<(LitStr, Expr), Token![,]>::parse_terminated_with(&content, |input: ParseStream| {
        let key: LitStr = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "a `meta` key is a string literal: `meta(\"com.example/key\" = \"value\")`")
        })?;
        input.parse::<Token![=]>()?;
        Ok((key, input.parse()?))
    })?;
    for (key, value) in entries {
        if let Some(problem) = meta_key_problem(&key.value()) {
            errors.spanned(&key, problem);
        } else if out.iter().any(|(k, _)| k.value() == key.value()) {
            errors.spanned(&key, format_args!("duplicate `meta` key \"{}\"; give it once", key.value()));
        } else {
            out.push((key, value));
        }
    }
    Ok(())
}

/// The spec's rules for a `_meta` key: an optional `label.label/` prefix
/// (not one reserved for MCP) and a name.
fn meta_key_problem(key: &str) -> Option<String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let labels: Vec<&str> = prefix.split('.').collect();
        let label_ok = |l: &&str| {
            let b = l.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphabetic()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        };
        if !labels.iter().all(label_ok) {
            return Some(format!(
                "`_meta` key \"{key}\" has an invalid prefix: use dot-separated labels of letters, digits and `-`, then `/` (e.g. \"com.example/{name}\")"
            ));
        }
        if labels.get(1).is_some_and(|l| *l == "modelcontextprotocol" || *l == "mcp") {
            return Some(format!(
                "`_meta` prefix \"{prefix}/\" is reserved for MCP itself; use your own reverse-DNS prefix such as \"com.example/\""
            ));
        }
    }
    let b = name.as_bytes();
    let name_ok = b.is_empty()
        || (b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')));
    if !name_ok || (prefix.is_none() && b.is_empty()) {
        return Some(format!(
            "`_meta` key \"{key}\" has an invalid name: it starts and ends with a letter or digit, with only letters, digits, `-`, `_` and `.` between"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_keys_follow_the_spec() {
        assert_eq!(meta_key_problem("com.example/priority"), None);
        assert_eq!(meta_key_problem("priority"), None);
        assert_eq!(meta_key_problem("com.example.mcp/x"), None);
        assert!(meta_key_problem("io.modelcontextprotocol/x").is_some());
        assert!(meta_key_problem("dev.mcp/x").is_some());
        assert!(meta_key_problem("1com/x").is_some());
        assert!(meta_key_problem("com.example/-x").is_some());
        assert!(meta_key_problem("").is_some());
    }
}
