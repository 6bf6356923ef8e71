//! `#[tool(...)]` and `#[arg(...)]`: their keys, parsed into typed slots.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Attribute, LitBool, LitStr, Token};

use crate::errors::Errors;

const TOOL_KEYS: &str =
    "`name`, `title`, `description`, `read_only`, `destructive`, `idempotent`, `open_world`, `crate`";
const ARG_KEYS: &str = "`rename`, `description`";

/// The arguments of `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) krate: Option<syn::Path>,
}

impl ToolAttr {
    pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let parser = syn::meta::parser(|meta| {
            let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            match key.as_str() {
                // #[tool(name = "…")]
                "name" => set(&mut attr.name, string(&meta)?, &meta, errors),
                // #[tool(title = "…")]
                "title" => set(&mut attr.title, string(&meta)?, &meta, errors),
                // #[tool(description = "…")]
                "description" => set(&mut attr.description, string(&meta)?, &meta, errors),
                // #[tool(read_only)] or #[tool(read_only = false)]
                "read_only" => set(&mut attr.read_only, flag(&meta)?, &meta, errors),
                "destructive" => set(&mut attr.destructive, flag(&meta)?, &meta, errors),
                "idempotent" => set(&mut attr.idempotent, flag(&meta)?, &meta, errors),
                "open_world" => set(&mut attr.open_world, flag(&meta)?, &meta, errors),
                // #[tool(crate = "my_framework::mcp")]
                "crate" => {
                    let lit = string(&meta)?;
                    match lit.parse::<syn::Path>() {
                        Ok(path) => set(&mut attr.krate, path, &meta, errors),
                        Err(_) => errors.spanned(&lit, "`crate` must be a path such as \"::mcp_runtime\""),
                    }
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
}

impl ArgAttr {
    /// Parse every `#[arg(...)]` in `attrs` into one `ArgAttr`.
    pub(crate) fn parse(attrs: &[&Attribute], errors: &mut Errors) -> ArgAttr {
        let mut arg = ArgAttr::default();
        for attr in attrs {
            let result = attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match key.as_str() {
                    // #[arg(rename = "…")]
                    "rename" => set(&mut arg.rename, string(&meta)?, &meta, errors),
                    // #[arg(description = "…")]
                    "description" => set(&mut arg.description, string(&meta)?, &meta, errors),
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

fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(format_args!("`{key}` needs a value: `{key} = \"…\"`")));
    }
    let value = meta.value()?;
    value
        .parse::<LitStr>()
        .map_err(|e| syn::Error::new(e.span(), format_args!("`{key}` takes a string literal: `{key} = \"…\"`")))
}

fn flag(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        let lit = meta.value()?.parse::<LitBool>().map_err(|e| {
            syn::Error::new(e.span(), format_args!("`{key}` is a flag: write `{key}` or `{key} = false`"))
        })?;
        Ok(lit.value)
    } else {
        Ok(true)
    }
}

/// Store `value` in `slot`, or report the key as a duplicate (at the second
/// occurrence, where the user will delete it).
fn set<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta, errors: &mut Errors) {
    if slot.is_some() {
        let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        errors.spanned(&meta.path, format_args!("duplicate `{key}`; give it once"));
    } else {
        *slot = Some(value);
    }
}

/// Report an unknown key, then skip its value so the remaining keys are
/// still checked.
fn unknown(meta: &ParseNestedMeta, attr: &str, expected: &str, errors: &mut Errors) -> syn::Result<()> {
    let key = quote::ToTokens::to_token_stream(&meta.path).to_string().replace(' ', "");
    errors.spanned(&meta.path, format_args!("unknown `{attr}` argument `{key}`; expected one of {expected}"));
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            if inner.input.peek(Token![=]) {
                inner.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// `name` or `r#name` → `name`.
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// A span for diagnostics about the attribute as a whole.
pub(crate) fn call_site() -> Span {
    Span::call_site()
}
