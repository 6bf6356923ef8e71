//! `#[tool(...)]` and `#[arg(...)]`: their keys, parsed into typed slots.
//!
//! Every key is checked here, where its tokens are: a bad value is reported
//! at the value, an unknown key at the key (with a "did you mean"), and
//! parsing goes on so that one compile shows every mistake.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprArray, Lit, LitStr, Token};

use crate::errors::Errors;
use crate::suggest::did_you_mean;

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "timeout",
    "rate_limit",
    "output_schema",
    "schema",
    "icon",
    "meta",
    "scopes",
    "crate",
];
const ARG_KEYS: &[&str] = &["rename", "description", "default", "header"];
const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];

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

/// The arguments of `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) common: Common,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) output_schema: Option<bool>,
    /// `schema = "strict"` or `"portable"`: the tool's own schema profile.
    pub(crate) schema: Option<SchemaProfileAttr>,
    /// Calls allowed, per period in milliseconds.
    pub(crate) rate_limit: Option<(u32, u64)>,
}

impl std::ops::Deref for ToolAttr {
    type Target = Common;

    fn deref(&self) -> &Common {
        &self.common
    }
}

/// The profile `#[tool(schema = "…")]` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaProfileAttr {
    Strict,
    Portable,
}

/// One `icon = "…"` or `icon(src = "…", …)`.
pub(crate) struct IconAttr {
    pub(crate) src: LitStr,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Vec<LitStr>,
    pub(crate) theme: Option<LitStr>,
}

impl ToolAttr {
    pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> ToolAttr {
        let mut attr = ToolAttr::default();
        // #[tool("add")]: a common guess at the syntax.
        if let Ok(lit) = syn::parse2::<LitStr>(args.clone()) {
            errors.spanned(&lit, format_args!("name the key: `#[tool(name = {})]`", quote::quote!(#lit)));
            return attr;
        }
        let parser = syn::meta::parser(|meta| {
            if attr.common.key(&meta, errors)? {
                return Ok(());
            }
            match key_of(&meta).as_str() {
                // #[tool(read_only)] or #[tool(read_only = false)]
                "read_only" => set(&mut attr.read_only, flag(&meta, errors)?, &meta, errors),
                "destructive" => set(&mut attr.destructive, flag(&meta, errors)?, &meta, errors),
                "idempotent" => set(&mut attr.idempotent, flag(&meta, errors)?, &meta, errors),
                "open_world" => set(&mut attr.open_world, flag(&meta, errors)?, &meta, errors),
                // #[tool(rate_limit = "10/s")]
                "rate_limit" => {
                    let limit = string_or(&meta, errors, rate_hint)?
                        .and_then(|lit| parse_rate(&lit.value()).map_err(|why| errors.spanned(&lit, why)).ok());
                    set(&mut attr.rate_limit, limit, &meta, errors);
                }
                // #[tool(output_schema = false)]
                "output_schema" => set(&mut attr.output_schema, flag(&meta, errors)?, &meta, errors),
                // #[tool(schema = "strict")]
                "schema" => {
                    let profile = string_or(&meta, errors, schema_hint)?.and_then(|lit| match lit.value().as_str() {
                        "strict" => Some(SchemaProfileAttr::Strict),
                        "portable" => Some(SchemaProfileAttr::Portable),
                        other => {
                            errors.spanned(
                                &lit,
                                format_args!(
                                    "unknown schema profile \"{other}\": write `schema = \"strict\"` (full JSON Schema 2020-12) or `schema = \"portable\"`"
                                ),
                            );
                            None
                        }
                    });
                    set(&mut attr.schema, profile, &meta, errors);
                }
                _ => unknown(&meta, "#[tool]", TOOL_KEYS, errors)?,
            }
            Ok(())
        });
        if let Err(e) = parser.parse2(args) {
            errors.push(e);
        }
        attr
    }
}

/// The arguments of `#[arg(...)]` on one parameter.
#[derive(Default)]
pub(crate) struct ArgAttr {
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<DefaultValue>,
    /// `header = "Region"`: mirrored in the `Mcp-Param-Region` header.
    pub(crate) header: Option<LitStr>,
}

/// Where an argument's default comes from.
pub(crate) enum DefaultValue {
    /// `#[arg(default)]`: the type's `Default`; the span is the key's.
    Trait(Span),
    /// `#[arg(default = <expr>)]`.
    Expr(Expr),
}

impl ArgAttr {
    /// Parse every `#[arg(...)]` in `attrs` into one `ArgAttr`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> ArgAttr {
        let mut arg = ArgAttr::default();
        for attr in attrs {
            let result = attr.parse_nested_meta(|meta| {
                match key_of(&meta).as_str() {
                    // #[arg(rename = "…")]
                    "rename" => set(&mut arg.rename, string(&meta, errors)?, &meta, errors),
                    // #[arg(description = "…")]
                    "description" => set(&mut arg.description, string(&meta, errors)?, &meta, errors),
                    // #[arg(default)] or #[arg(default = <expr>)]
                    "default" => {
                        let value = if meta.input.peek(Token![=]) {
                            DefaultValue::Expr(meta.value()?.parse()?)
                        } else {
                            DefaultValue::Trait(meta.path.get_ident().map_or_else(Span::call_site, |i| i.span()))
                        };
                        set(&mut arg.default, Some(value), &meta, errors);
                    }
                    // #[arg(header = "Region")]
                    "header" => {
                        let header = string(&meta, errors)?.filter(|lit| {
                            let ok = is_header_token(&lit.value());
                            if !ok {
                                errors.spanned(
                                    lit,
                                    "a header name is letters, digits and !#$%&'*+-.^_`|~, such as \"Region\" (sent as `Mcp-Param-Region`)",
                                );
                            }
                            ok
                        });
                        set(&mut arg.header, header, &meta, errors);
                    }
                    _ => unknown(&meta, "#[arg]", ARG_KEYS, errors)?,
                }
                Ok(())
            });
            if let Err(e) = result {
                errors.push(e);
            }
        }
        arg
    }
}

/// RFC 9110 §5.6.2: the characters of an HTTP field name.
fn is_header_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

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

/// `rate_limit = 5` → `rate_limit = "5/s"`: the number kept, as calls per
/// second, and the other periods named.
fn rate_hint(key: &str, value: &Expr) -> String {
    let calls = match value {
        Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. }) => n.base10_parse::<u32>().ok().filter(|&n| n > 0),
        _ => None,
    };
    let calls = calls.unwrap_or(10);
    format!(
        "`{key}` takes a string of calls per period: `{key} = \"{calls}/s\"` for {calls} calls a second (or \"{calls}/m\", \"{calls}/h\", \"{calls}/30s\")"
    )
}

/// `schema = strict` or `schema = 1` → `schema = "strict"` (or
/// `"portable"`, when that is the word written).
fn schema_hint(key: &str, value: &Expr) -> String {
    let portable_written = matches!(value, Expr::Path(p) if p.path.is_ident("portable"));
    let (strict, portable) =
        (format!("`{key} = \"strict\"` (full JSON Schema 2020-12)"), format!("`{key} = \"portable\"`"));
    let (first, second) = if portable_written { (portable, strict) } else { (strict, portable) };
    format!("`{key}` takes a profile's name as a string: {first} or {second}")
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

/// `timeout = "30s"`, in milliseconds; `None` after reporting a bad value.
pub(crate) fn duration(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<u64>> {
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

/// `"10/s"`, `"100/m"`, `"1000/h"` → (calls, period in milliseconds).
pub(crate) fn parse_rate(text: &str) -> Result<(u32, u64), String> {
    let invalid =
        || format!("invalid rate limit \"{text}\": write calls per period, such as \"10/s\", \"100/m\" or \"1000/h\"");
    let (count, period) = text.split_once('/').ok_or_else(invalid)?;
    let count: u32 = count.trim().parse().map_err(|_| invalid())?;
    if count == 0 {
        return Err(format!("rate limit \"{text}\" allows no calls; allow at least one, or remove `rate_limit`"));
    }
    let period = match period.trim() {
        "s" | "sec" | "second" => 1_000,
        "m" | "min" | "minute" => 60_000,
        "h" | "hour" => 3_600_000,
        other => parse_duration(other).map_err(|_| invalid())?,
    };
    Ok((count, period))
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

pub(crate) fn icon(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<IconAttr>> {
    if meta.input.peek(Token![=]) {
        let Some(src) = string(meta, errors)? else { return Ok(None) };
        return Ok(check_src(&src, errors).then_some(IconAttr {
            src,
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }));
    }
    if !meta.input.peek(syn::token::Paren) {
        return Err(
            meta.error("`icon` needs a source: `icon = \"https://…\"` or `icon(src = \"…\", mime_type = \"…\")`")
        );
    }
    let (mut src, mut mime_type, mut sizes, mut theme) = (None, None, None::<Vec<LitStr>>, None);
    let span = meta.path.get_ident().map_or_else(Span::call_site, |i| i.span());
    meta.parse_nested_meta(|inner| {
        match key_of(&inner).as_str() {
            "src" => set(&mut src, string(&inner, errors)?, &inner, errors),
            "mime_type" => set(&mut mime_type, string(&inner, errors)?, &inner, errors),
            // sizes = ["48x48", "any"]
            "sizes" => {
                let array: ExprArray = inner.value()?.parse().map_err(|e| {
                    syn::Error::new(e.span(), "`sizes` takes an array of strings: `sizes = [\"48x48\", \"any\"]`")
                })?;
                let mut list = Vec::new();
                for element in array.elems {
                    match element {
                        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if valid_size(&s.value()) => list.push(s),
                        other => {
                            errors.spanned(other, "an icon size is \"<width>x<height>\" (e.g. \"48x48\") or \"any\"")
                        }
                    }
                }
                set(&mut sizes, Some(list), &inner, errors);
            }
            "theme" => {
                let lit = string(&inner, errors)?.filter(|lit| {
                    let ok = matches!(lit.value().as_str(), "light" | "dark");
                    if !ok {
                        errors.spanned(lit, "an icon theme is \"light\" or \"dark\"");
                    }
                    ok
                });
                set(&mut theme, lit, &inner, errors);
            }
            _ => unknown(&inner, "icon(…)", ICON_KEYS, errors)?,
        }
        Ok(())
    })?;
    let Some(src) = src else {
        errors.push(syn::Error::new(span, "`icon(…)` needs `src = \"https://…\"`"));
        return Ok(None);
    };
    Ok(check_src(&src, errors).then_some(IconAttr { src, mime_type, sizes: sizes.unwrap_or_default(), theme }))
}

/// Icons are fetched or decoded by clients, which accept these schemes.
fn check_src(src: &LitStr, errors: &mut Errors) -> bool {
    let value = src.value();
    let ok = ["https://", "http://", "data:"].iter().any(|scheme| value.starts_with(scheme)) && value.len() > 8;
    if !ok {
        errors.spanned(src, "an icon `src` is an `https://` URL or a `data:` URI");
    }
    ok
}

/// `scopes = ["…", …]`: each scope a literal a token can carry; a bad one
/// is reported at its literal and left out.
fn scopes(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<Vec<LitStr>>> {
    const HOW: &str = "`scopes` takes an array of string literals: `scopes = [\"notes:write\"]`";
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(HOW));
    }
    let array = match meta.value()?.parse::<Expr>()? {
        Expr::Array(array) => array,
        other => {
            errors.spanned(other, HOW);
            return Ok(None);
        }
    };
    let mut list = Vec::new();
    for element in array.elems {
        match element {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => match scope_problem(&s.value()) {
                None => list.push(s),
                Some(problem) => errors.spanned(&s, problem),
            },
            other => errors.spanned(other, "a scope is a string literal, such as `\"notes:write\"`"),
        }
    }
    Ok(Some(list))
}

/// RFC 6749 §3.3: a token's scopes travel as one space-separated string,
/// so a scope is a non-empty run of printable ASCII other than space, `"`
/// and `\`.
pub(crate) fn scope_problem(scope: &str) -> Option<String> {
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

fn valid_size(size: &str) -> bool {
    size == "any"
        || size
            .split_once('x')
            .is_some_and(|(w, h)| [w, h].iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
}

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
pub(crate) fn meta_key_problem(key: &str) -> Option<String> {
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

/// `name` or `r#name` → `name`.
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
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
    fn rates_read_as_calls_per_period() {
        assert_eq!(parse_rate("10/s"), Ok((10, 1_000)));
        assert_eq!(parse_rate("100/m"), Ok((100, 60_000)));
        assert_eq!(parse_rate("5/30s"), Ok((5, 30_000)));
        assert!(parse_rate("0/s").is_err());
        assert!(parse_rate("ten/s").is_err());
        assert!(parse_rate("10").is_err());
        assert!(parse_rate("10/fortnight").is_err());
    }

    /// The one error of `#[tool(<args>)]`.
    fn tool_error(args: TokenStream) -> String {
        let mut errors = Errors::default();
        ToolAttr::parse(args, &mut errors);
        let mut messages = errors.messages();
        assert_eq!(messages.len(), 1, "{messages:?}");
        messages.remove(0)
    }

    /// The first `key = "…"` a message suggests.
    fn suggested(message: &str, key: &str) -> String {
        let start = message.find(&format!("`{key} = \"")).expect(message) + key.len() + 5;
        message[start..].split('"').next().unwrap().to_owned()
    }

    #[test]
    fn a_rate_limit_that_is_not_a_string_gets_a_valid_one_to_write() {
        for (args, calls) in [
            (quote::quote!(rate_limit = 5), 5),
            (quote::quote!(rate_limit = 0), 10),
            (quote::quote!(rate_limit = 2.5), 10),
            (quote::quote!(rate_limit = RATE), 10),
        ] {
            let message = tool_error(args);
            let rate = suggested(&message, "rate_limit");
            assert_eq!(rate, format!("{calls}/s"), "{message}");
            assert_eq!(parse_rate(&rate), Ok((calls, 1_000)));
        }
    }

    #[test]
    fn a_schema_that_is_not_a_string_gets_a_profile_to_write() {
        for (args, profile) in [
            (quote::quote!(schema = 1), "strict"),
            (quote::quote!(schema = strict), "strict"),
            (quote::quote!(schema = portable), "portable"),
        ] {
            assert_eq!(suggested(&tool_error(args), "schema"), profile);
        }
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
