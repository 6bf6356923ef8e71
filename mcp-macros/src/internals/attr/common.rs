//! The keys every attribute takes (`name`, `title`, `description`,
//! `icon`, `meta`, `scopes`, `tags`, `timeout`, `crate`), and the one loop that
//! reads an attribute's keys: these first, then the attribute's own.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, Lit, LitStr, Token};

use super::icon::{IconAttr, icon};
use super::meta::meta_entries;
use super::{key_of, set, string, unknown};
use crate::internals::Kind;
use crate::internals::errors::Errors;

/// The keys every attribute takes (`#[tool]`, `#[resource]`, `#[prompt]`).
#[derive(Default)]
pub(crate) struct Common {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) icons: Vec<IconAttr>,
    pub(crate) meta: Vec<(LitStr, Expr)>,
    /// The OAuth scopes a token needs to see and use it.
    pub(crate) scopes: Option<Vec<LitStr>>,
    /// Labels of its own, for visibility rules, search and mount filters.
    pub(crate) tags: Option<Vec<LitStr>>,
    /// How long one run may take, in milliseconds.
    pub(crate) timeout: Option<u64>,
    pub(crate) krate: Option<syn::Path>,
}

impl Common {
    /// Parse `meta` if its key is one of these; `Ok(false)` if it is not.
    pub(crate) fn key(&mut self, meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<bool> {
        match key_of(meta).as_str() {
            // name = "…", title = "…", description = "…"
            "name" => set(&mut self.name, string(meta, errors)?, meta, errors),
            "title" => set(&mut self.title, string(meta, errors)?, meta, errors),
            "description" => set(&mut self.description, string(meta, errors)?, meta, errors),
            // icon = "https://…" or icon(src = "…", mime_type = "…", sizes = ["48x48"], theme = "dark")
            "icon" => {
                if let Some(icon) = icon(meta, errors)? {
                    self.icons.push(icon);
                }
            }
            // meta("com.example/key" = <expr>, …)
            "meta" => meta_entries(meta, &mut self.meta, errors)?,
            // scopes = ["notes:read", "notes:write"]
            "scopes" => set(&mut self.scopes, scopes(meta, errors)?, meta, errors),
            // tags = ["admin", "billing"]
            "tags" => set(&mut self.tags, tags(meta, errors)?, meta, errors),
            // timeout = "30s"
            "timeout" => set(&mut self.timeout, duration(meta, errors)?, meta, errors),
            // crate = "my_framework::mcp"
            "crate" => {
                let path = string(meta, errors)?.and_then(|lit| {
                    lit.parse::<syn::Path>()
                        .map_err(|_| {
                            errors.spanned(
                                &lit,
                                "`crate` is the path the runtime is re-exported at, e.g. \"::my_framework::mcp\"",
                            )
                        })
                        .ok()
                });
                set(&mut self.krate, path, meta, errors);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Read an attribute's `key = value, …`: the keys every attribute takes
/// into `common`, then the attribute's own through `own`, which answers
/// `Ok(false)` for a key it does not know; such a key is reported with the
/// attribute's whole list, `expected`.
pub(crate) fn parse(
    args: TokenStream,
    kind: Kind,
    expected: &[&str],
    common: &mut Common,
    errors: &mut Errors,
    mut own: impl FnMut(&ParseNestedMeta, &mut Errors) -> syn::Result<bool>,
) {
    // #[tool("add")]: a common guess at the syntax. A resource's URI comes
    // first, and is taken before the keys are read.
    if kind != Kind::Resource
        && let Ok(lit) = syn::parse2::<LitStr>(args.clone())
    {
        errors.spanned(&lit, format_args!("name the key: `#[{}(name = {})]`", kind.noun(), quote!(#lit)));
        return;
    }
    let attribute = format!("#[{}]", kind.noun());
    let parser = syn::meta::parser(|meta| {
        if !common.key(&meta, errors)? && !own(&meta, errors)? {
            unknown(&meta, &attribute, expected, errors)?;
        }
        Ok(())
    });
    if let Err(e) = parser.parse2(args) {
        errors.push(e);
    }
}

/// `timeout = "30s"`, in milliseconds; `None` after reporting a bad value.
fn duration(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<u64>> {
    if !meta.input.peek(Token![=]) {
        return Err(meta.error("`timeout` needs a value: `timeout = \"30s\"`"));
    }
    match meta.value()?.parse::<Lit>()? {
        Lit::Str(lit) => match parse_duration(&lit.value()) {
            Ok(ms) => Ok(Some(ms)),
            Err(why) => {
                errors.spanned(&lit, why);
                Ok(None)
            }
        },
        Lit::Int(n) => {
            errors.spanned(&n, format_args!("`timeout` takes a duration with its unit: `timeout = \"{n}s\"`"));
            Ok(None)
        }
        other => {
            errors.spanned(&other, "`timeout` takes a duration: `timeout = \"30s\"`");
            Ok(None)
        }
    }
}

/// `"30s"`, `"1.5s"`, `"500ms"`, `"2m"`, `"1h"` → milliseconds.
pub(crate) fn parse_duration(text: &str) -> Result<u64, String> {
    let invalid = || {
        format!(
            "invalid timeout \"{text}\": write a number and a unit (`ms`, `s`, `m` or `h`), e.g. \"30s\" or \"500ms\""
        )
    };
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(invalid)?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().map_err(|_| invalid())?;
    let scale = match unit.trim() {
        "ms" => 1.0,
        "s" => 1_000.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        _ => return Err(invalid()),
    };
    let ms = number * scale;
    if ms < 1.0 {
        return Err(format!("timeout \"{text}\" is too short: the smallest is \"1ms\""));
    }
    if ms.fract() != 0.0 || ms > u64::MAX as f64 {
        return Err(format!("timeout \"{text}\" is not a whole number of milliseconds"));
    }
    Ok(ms as u64)
}

/// `scopes = ["…", …]`: each scope a literal a token can carry; a bad one
/// is reported at its literal and left out.
fn scopes(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<Vec<LitStr>>> {
    const HOW: &str = "`scopes` takes an array of string literals: `scopes = [\"notes:write\"]`";
    const ONE: &str = "a scope is a string literal, such as `\"notes:write\"`";
    string_list(meta, errors, HOW, ONE, |_, scope| scope_problem(&scope.value()))
}

/// `tags = ["…", …]`: each tag a non-empty literal without surrounding
/// spaces, named once; a bad one is reported at its literal and left out.
fn tags(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<Vec<LitStr>>> {
    const HOW: &str = "`tags` takes an array of string literals: `tags = [\"admin\", \"billing\"]`";
    const ONE: &str = "a tag is a string literal, such as `\"admin\"`";
    string_list(meta, errors, HOW, ONE, |list, tag| {
        let tag = tag.value();
        if tag.trim().is_empty() {
            Some("a tag cannot be empty; name one, such as \"admin\", or remove it".to_owned())
        } else if tag.trim() != tag {
            Some(format!("tag {tag:?} has spaces around it; write {:?}", tag.trim()))
        } else if list.iter().any(|t| t.value() == tag) {
            Some(format!("tag {tag:?} is listed twice; name each tag once"))
        } else {
            None
        }
    })
}

/// `key = ["…", …]`: an array of string literals, each kept unless
/// `problem` (given those kept so far) says what is wrong with it, which is
/// reported at the literal. `how` is the error for something that is no
/// array, `one` for an element that is no string literal.
fn string_list(
    meta: &ParseNestedMeta,
    errors: &mut Errors,
    how: &str,
    one: &str,
    problem: impl Fn(&[LitStr], &LitStr) -> Option<String>,
) -> syn::Result<Option<Vec<LitStr>>> {
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(how));
    }
    let array = match meta.value()?.parse::<Expr>()? {
        Expr::Array(array) => array,
        other => {
            errors.spanned(other, how);
            return Ok(None);
        }
    };
    let mut list: Vec<LitStr> = Vec::new();
    for element in array.elems {
        match element {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => match problem(&list, &s) {
                None => list.push(s),
                Some(problem) => errors.spanned(&s, problem),
            },
            other => errors.spanned(other, one),
        }
    }
    Ok(Some(list))
}

/// RFC 6749 §3.3: a token's scopes travel as one space-separated string,
/// so a scope is a non-empty run of printable ASCII other than space, `"`
/// and `\`.
fn scope_problem(scope: &str) -> Option<String> {
    if scope.is_empty() {
        return Some("a scope cannot be empty; name one, such as \"notes:read\", or remove it".to_owned());
    }
    if scope.contains(' ') {
        let split: Vec<String> = scope.split(' ').filter(|s| !s.is_empty()).map(|s| format!("\"{s}\"")).collect();
        return Some(format!(
            "scope \"{scope}\" contains a space, which separates scopes in a token; list each one: `scopes = [{}]`",
            split.join(", ")
        ));
    }
    let bad = scope.chars().find(|c| !matches!(c, '!' | '#'..='[' | ']'..='~'))?;
    Some(format!(
        "scope \"{}\" contains {bad:?}: a scope is printable ASCII without spaces, `\"` or `\\`",
        scope.escape_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_milliseconds() {
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500));
        assert_eq!(parse_duration("500ms"), Ok(500));
        assert_eq!(parse_duration("2m"), Ok(120_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000));
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("0.5ms").is_err());
        assert!(parse_duration("3 parsecs").is_err());
    }

    #[test]
    fn scopes_are_printable_ascii_without_space_quote_or_backslash() {
        assert_eq!(scope_problem("notes:write"), None);
        assert_eq!(scope_problem("https://api.example.com/notes.read"), None);
        assert!(scope_problem("").unwrap().contains("cannot be empty"));
        assert!(scope_problem("notes write").unwrap().contains(r#"`scopes = ["notes", "write"]`"#));
        for bad in ["a\"b", "a\\b", "é", "a\tb"] {
            assert!(scope_problem(bad).is_some(), "{bad:?}");
        }
    }
}
