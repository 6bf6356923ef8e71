//! `#[tool(...)]`: the keys of tools alone, read after those every
//! attribute takes.

use proc_macro2::TokenStream;
use syn::{Expr, Lit};

use crate::internals::Kind;
use crate::internals::attr::common::{self, Common, parse_duration};
use crate::internals::attr::{flag, key_of, set, string_or};
use crate::internals::errors::Errors;

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
    "tags",
    "task",
    "ui",
    "app_only",
    "version",
    "crate",
];

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
    /// `task = "optional"`, `"required"` or `"never"`.
    pub(crate) task: Option<TaskAttr>,
    /// `ui = "ui://…"`: the view that shows its results.
    pub(crate) ui: Option<syn::LitStr>,
    /// `app_only`: callable by views alone.
    pub(crate) app_only: Option<bool>,
    /// `version = "2"`: served beside the tool's other versions.
    pub(crate) version: Option<syn::LitStr>,
}

/// Whether a tool's calls may run as tasks, as `#[tool(task = "…")]` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskAttr {
    Never,
    Optional,
    Required,
}

/// The profile `#[tool(schema = "…")]` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaProfileAttr {
    Strict,
    Portable,
}

impl ToolAttr {
    /// Read `#[tool(<args>)]`.
    pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> ToolAttr {
        let mut attr = ToolAttr::default();
        common::parse(args, Kind::Tool, TOOL_KEYS, &mut attr.common, errors, |meta, errors| {
            match key_of(meta).as_str() {
                // #[tool(read_only)] or #[tool(read_only = false)]
                "read_only" => set(&mut attr.read_only, flag(meta, errors)?, meta, errors),
                "destructive" => set(&mut attr.destructive, flag(meta, errors)?, meta, errors),
                "idempotent" => set(&mut attr.idempotent, flag(meta, errors)?, meta, errors),
                "open_world" => set(&mut attr.open_world, flag(meta, errors)?, meta, errors),
                // #[tool(rate_limit = "10/s")]
                "rate_limit" => {
                    let limit = string_or(meta, errors, rate_hint)?
                        .and_then(|lit| parse_rate(&lit.value()).map_err(|why| errors.spanned(&lit, why)).ok());
                    set(&mut attr.rate_limit, limit, meta, errors);
                }
                // #[tool(output_schema = false)]
                "output_schema" => set(&mut attr.output_schema, flag(meta, errors)?, meta, errors),
                // #[tool(schema = "strict")]
                "schema" => {
                    let profile = string_or(meta, errors, schema_hint)?.and_then(|lit| match lit.value().as_str() {
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
                    set(&mut attr.schema, profile, meta, errors);
                }
                // #[tool(task = "optional")]
                "task" => {
                    let support = string_or(meta, errors, task_hint)?.and_then(|lit| match lit.value().as_str() {
                        "optional" => Some(TaskAttr::Optional),
                        "required" => Some(TaskAttr::Required),
                        "never" => Some(TaskAttr::Never),
                        other => {
                            errors.spanned(
                                &lit,
                                format_args!(
                                    "unknown task support \"{other}\": write `task = \"optional\"` (a task when the client supports tasks), `task = \"required\"` (only clients that support tasks may call it) or `task = \"never\"`"
                                ),
                            );
                            None
                        }
                    });
                    set(&mut attr.task, support, meta, errors);
                }
                // #[tool(ui = "ui://notes/editor")]
                "ui" => {
                    let uri = string_or(meta, errors, ui_hint)?.and_then(|lit| {
                        let uri = lit.value();
                        if uri.strip_prefix("ui://").is_some_and(|path| !path.is_empty()) {
                            return Some(lit);
                        }
                        errors.spanned(
                            &lit,
                            format_args!(
                                "`ui` names a view by its `ui://` URI, such as `ui = \"ui://notes/editor\"`; \"{uri}\" is not one"
                            ),
                        );
                        None
                    });
                    set(&mut attr.ui, uri, meta, errors);
                }
                // #[tool(app_only)]
                "app_only" => set(&mut attr.app_only, flag(meta, errors)?, meta, errors),
                // #[tool(version = "2")]
                "version" => {
                    let version = string_or(meta, errors, version_hint)?.and_then(|lit| {
                        let version = lit.value();
                        if !version.trim().is_empty() && version.trim() == version {
                            return Some(lit);
                        }
                        let why = match version.trim() {
                            "" => {
                                "a version cannot be empty: write one, such as `version = \"2\"`, or remove `version`"
                                    .to_owned()
                            }
                            trimmed => {
                                format!("version {version:?} has spaces around it; write `version = {trimmed:?}`")
                            }
                        };
                        errors.spanned(&lit, why);
                        None
                    });
                    set(&mut attr.version, version, meta, errors);
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        attr
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

/// `task = optional` or `task = true` → `task = "optional"` (or the word
/// written, when it is one of the three).
fn task_hint(key: &str, value: &Expr) -> String {
    let word = match value {
        Expr::Path(p) if p.path.is_ident("required") => "required",
        Expr::Path(p) if p.path.is_ident("never") => "never",
        _ => "optional",
    };
    format!("`{key}` takes a string: `{key} = \"{word}\"` (one of \"optional\", \"required\", \"never\")")
}

/// `ui = ui::editor` or `ui = EDITOR` → `ui = "ui://…"`.
fn ui_hint(key: &str, _value: &Expr) -> String {
    format!("`{key}` takes the view's URI as a string literal: `{key} = \"ui://notes/editor\"`")
}

/// `version = 2` or `version = 1.5` → `version = "2"` (the number as
/// written, quoted; anything else gets "2").
fn version_hint(key: &str, value: &Expr) -> String {
    let written = match value {
        Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. }) => n.base10_digits().to_owned(),
        Expr::Lit(syn::ExprLit { lit: Lit::Float(n), .. }) => n.base10_digits().to_owned(),
        _ => "2".to_owned(),
    };
    format!("`{key}` takes the version as a string literal: `{key} = \"{written}\"`")
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_version_that_is_not_a_string_gets_one_to_write() {
        for (args, version) in [
            (quote::quote!(version = 2), "2"),
            (quote::quote!(version = 1.5), "1.5"),
            (quote::quote!(version = V2), "2"),
        ] {
            assert_eq!(suggested(&tool_error(args), "version"), version);
        }
        assert!(tool_error(quote::quote!(version = "")).contains("cannot be empty"));
        assert!(tool_error(quote::quote!(version = " 2")).contains("`version = \"2\"`"));
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
}
