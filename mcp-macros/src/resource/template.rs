//! A resource's URI, or URI template: its scheme and its RFC 6570
//! variables, each mistake reported at the URI.

use proc_macro2::Span;

use syn::LitStr;

use crate::internals::errors::Errors;

const HOW: &str = "write `#[resource(\"scheme://path\")]` or `#[resource(\"scheme://{variable}\")]`";

/// One variable of a URI template.
pub(crate) struct Variable {
    pub(crate) name: String,
    /// A `{?a,b}` query variable, which a URI may leave out.
    pub(crate) query: bool,
}

/// The variables of `template`, or what is wrong with its syntax.
fn variables(template: &str) -> Result<Vec<Variable>, String> {
    let mut found: Vec<Variable> = Vec::new();
    let mut rest = template;
    let mut seen_query = false;
    while let Some(open) = rest.find('{') {
        if rest[..open].contains('}') {
            return Err("`}` without a `{`".into());
        }
        if seen_query {
            return Err("a query expression `{?…}` must come last".into());
        }
        let close = rest[open..].find('}').ok_or("a `{` is never closed")? + open;
        let expression = &rest[open + 1..close];
        let (names, query) = match expression.as_bytes().first() {
            Some(b'+') => (&expression[1..], false),
            Some(b'?') => (&expression[1..], true),
            Some(c) if !c.is_ascii_alphanumeric() && *c != b'_' => {
                return Err(format!(
                    "`{{{expression}}}` uses an operator resources do not support; use `{{name}}`, `{{+name}}` or `{{?a,b}}`"
                ));
            }
            _ => (expression.strip_suffix('*').unwrap_or(expression), false),
        };
        for name in names.split(',') {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("`{name}` is not a variable name (letters, digits and `_`)"));
            }
            if found.iter().any(|v| v.name == name) {
                return Err(format!("the variable `{name}` appears twice"));
            }
            found.push(Variable { name: name.to_owned(), query });
        }
        seen_query |= query;
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return Err("`}` without a `{`".into());
    }
    if seen_query && !rest.is_empty() {
        return Err("a query expression `{?…}` must come last".into());
    }
    Ok(found)
}

/// The URI is the attribute's first argument; a template's syntax is
/// checked here. Returns the template's variables (none for a fixed URI).
pub(crate) fn check_uri(uri: Option<&LitStr>, errors: &mut Errors) -> Option<Vec<Variable>> {
    let Some(uri) = uri else {
        errors.push(syn::Error::new(Span::call_site(), format_args!("a resource needs its URI: {HOW}")));
        return None;
    };
    let value = uri.value();
    let scheme_ok = value.split_once(':').is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && !rest.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !scheme_ok {
        errors.spanned(
            uri,
            format_args!(
                "\"{value}\" is not a URI: it starts with a scheme, as in \"config://app\" or \"file:///{{+path}}\""
            ),
        );
        return None;
    }
    match variables(&value) {
        Ok(vars) => Some(vars),
        Err(why) => {
            errors.spanned(uri, format_args!("malformed URI template: {why}"));
            None
        }
    }
}
