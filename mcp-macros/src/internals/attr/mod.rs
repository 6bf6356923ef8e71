//! Key parsing every attribute shares, in typed slots: a bad value is
//! reported at the value, an unknown key at the key (with a "did you
//! mean"), a key given twice at its second occurrence, and parsing goes on
//! so that one compile shows every mistake. The keys themselves are parsed
//! by [`common`] (those of every attribute), [`arg`] (`#[arg(...)]`) and
//! each attribute's own module.

pub(crate) mod arg;
pub(crate) mod common;
pub(crate) mod icon;
mod meta;

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprArray, Lit, LitStr, Token};

use super::errors::Errors;
use super::suggest::did_you_mean;

pub(crate) use common::Common;

/// The key as written, without `r#`; empty for a path (`a::b`), which no
/// attribute takes.
pub(crate) fn key_of(meta: &ParseNestedMeta) -> String {
    meta.path.get_ident().map(unraw).unwrap_or_default()
}

/// `key = "…"`. A value of the wrong kind is reported (and consumed) here,
/// so the keys after it are still checked; then the result is `None`.
pub(crate) fn string(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<LitStr>> {
    string_or(meta, errors, |key, value| {
        let text = match value {
            Expr::Lit(syn::ExprLit { lit, .. }) => lit_text(lit),
            _ => "…".into(),
        };
        format!("`{key}` takes a string literal: `{key} = \"{text}\"`")
    })
}

/// [`string`], with `hint(key, value)` saying what to write instead of a
/// value that is not a string literal: for keys whose strings have a
/// syntax of their own, quoting the value as written would suggest
/// something just as wrong.
pub(crate) fn string_or(
    meta: &ParseNestedMeta,
    errors: &mut Errors,
    hint: impl FnOnce(&str, &Expr) -> String,
) -> syn::Result<Option<LitStr>> {
    let key = key_of(meta);
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(format_args!("`{key}` needs a value: `{key} = \"…\"`")));
    }
    match meta.value()?.parse::<Expr>()? {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Ok(Some(s)),
        other => {
            errors.spanned(&other, hint(&key, &other));
            Ok(None)
        }
    }
}

/// A literal's text without quotes, for "write it like this" hints.
fn lit_text(lit: &Lit) -> String {
    match lit {
        Lit::Int(i) => i.to_string(),
        Lit::Float(f) => f.to_string(),
        Lit::Bool(b) => b.value.to_string(),
        _ => "…".into(),
    }
}

/// `key` or `key = true/false`; like [`string`], a wrong value is reported
/// and gives `None`.
pub(crate) fn flag(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<bool>> {
    if !meta.input.peek(Token![=]) {
        return Ok(Some(true));
    }
    let key = key_of(meta);
    match meta.value()?.parse::<Expr>()? {
        Expr::Lit(syn::ExprLit { lit: Lit::Bool(b), .. }) => Ok(Some(b.value)),
        other => {
            errors.spanned(other, format_args!("`{key}` is a flag: write `{key}` or `{key} = false`"));
            Ok(None)
        }
    }
}

/// Store `value` in `slot`, or report the key as a duplicate (at the second
/// occurrence, where the user will delete it).
pub(crate) fn set<T>(slot: &mut Option<T>, value: Option<T>, meta: &ParseNestedMeta, errors: &mut Errors) {
    let Some(value) = value else { return };
    if slot.is_some() {
        let key = key_of(meta);
        errors.spanned(&meta.path, format_args!("duplicate `{key}`; give it once"));
    } else {
        *slot = Some(value);
    }
}

/// Report an unknown key, then skip its value so the remaining keys are
/// still checked.
pub(crate) fn unknown(meta: &ParseNestedMeta, attr: &str, expected: &[&str], errors: &mut Errors) -> syn::Result<()> {
    let key = quote::ToTokens::to_token_stream(&meta.path).to_string().replace(' ', "");
    let message = match did_you_mean(&key, expected) {
        Some(close) => format!("unknown `{attr}` argument `{key}`; did you mean `{close}`?"),
        None => {
            let list: Vec<String> = expected.iter().map(|k| format!("`{k}`")).collect();
            format!("unknown `{attr}` argument `{key}`; expected one of {}", list.join(", "))
        }
    };
    errors.spanned(&meta.path, message);
    skip_value(meta)
}

fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// `key = ["…", …]`: the string literals `valid` accepts; any other
/// element is reported (saying `wrong`) and left out, so the rest are still
/// checked. A value that is no array is an error saying `how`.
pub(crate) fn string_array(
    meta: &ParseNestedMeta,
    how: &str,
    wrong: &str,
    valid: impl Fn(&str) -> bool,
    errors: &mut Errors,
) -> syn::Result<Vec<LitStr>> {
    let array: ExprArray = meta.value()?.parse().map_err(|e| syn::Error::new(e.span(), how))?;
    let mut list = Vec::new();
    for element in array.elems {
        match element {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if valid(&s.value()) => list.push(s),
            other => errors.spanned(other, wrong),
        }
    }
    Ok(list)
}

/// `name` or `r#name` → `name`.
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}
