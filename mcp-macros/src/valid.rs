//! Checks that need the whole model; one small function per rule.

use std::collections::HashMap;

use syn::{FnArg, Type};

use crate::ast::ToolFn;
use crate::errors::Errors;

pub(crate) fn check(tool: &ToolFn, errors: &mut Errors) {
    check_fn_qualifiers(tool, errors);
    check_no_generics(tool, errors);
    check_no_impl_trait_params(tool, errors);
    check_no_borrowed_text_or_slices(tool, errors);
    check_tool_name(tool, errors);
    check_unique_param_names(tool, errors);
    check_description(tool, errors);
}

/// The variable that makes a crate require a description on every tool.
pub(crate) const REQUIRE_DESCRIPTIONS: &str = "MCP_REQUIRE_DESCRIPTIONS";

/// A model chooses tools by their descriptions, so a crate may insist on
/// one: set `MCP_REQUIRE_DESCRIPTIONS=1` while it compiles (from its
/// `build.rs`: `cargo::rustc-env=MCP_REQUIRE_DESCRIPTIONS=1`).
fn check_description(tool: &ToolFn, errors: &mut Errors) {
    let required = std::env::var(REQUIRE_DESCRIPTIONS).is_ok_and(|v| !v.is_empty() && v != "0");
    if required && tool.doc.is_empty() && tool.attr.description.is_none() {
        errors.push(syn::Error::new(
            tool.item.sig.ident.span(),
            format_args!(
                "tool `{}` has no description, and this crate requires one ({REQUIRE_DESCRIPTIONS} is set): \
                 add a `///` doc comment saying what it does, or `#[tool(description = \"…\")]`",
                tool.name
            ),
        ));
    }
}

/// A tool is called by the runtime through a plain (safe, Rust-ABI) call.
fn check_fn_qualifiers(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.item.sig;
    if let Some(t) = &sig.constness {
        errors.spanned(t, "`#[tool]` functions cannot be `const`; remove `const`");
    }
    if let Some(t) = &sig.unsafety {
        errors.spanned(t, "`#[tool]` functions cannot be `unsafe`: a client may call them with any arguments; remove `unsafe` and keep `unsafe` blocks inside the body");
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(abi, "`#[tool]` functions cannot be `extern`; remove the ABI");
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, "`#[tool]` functions cannot be variadic; take the values as one `Vec<T>` parameter");
    }
}

/// The schema is computed for concrete types; a generic tool has none.
fn check_no_generics(tool: &ToolFn, errors: &mut Errors) {
    let generics = &tool.item.sig.generics;
    if !generics.params.is_empty() {
        errors.spanned(
            &generics.params,
            "`#[tool]` does not support generic functions: the input schema needs concrete parameter types",
        );
    } else if let Some(w) = &generics.where_clause {
        errors.spanned(w, "`#[tool]` does not support `where` clauses: the input schema needs concrete types");
    }
}

/// `impl Trait` in argument position is a hidden generic.
fn check_no_impl_trait_params(tool: &ToolFn, errors: &mut Errors) {
    for input in &tool.item.sig.inputs {
        if let FnArg::Typed(t) = input
            && let Type::ImplTrait(it) = &*t.ty
        {
            errors.spanned(
                it,
                "`impl Trait` parameters are generic; a tool parameter needs a concrete type such as `String`",
            );
        }
    }
}

/// `&T` parameters borrow a value the call owns, so `T` must be a whole
/// value; `&str` and `&[T]` have owned forms that say so.
fn check_no_borrowed_text_or_slices(tool: &ToolFn, errors: &mut Errors) {
    for input in &tool.item.sig.inputs {
        let FnArg::Typed(t) = input else { continue };
        let Type::Reference(r) = &*t.ty else { continue };
        let (owned, borrowed) = match &*r.elem {
            Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => ("String", "&str"),
            Type::Slice(_) => ("Vec<T>", "&[T]"),
            _ => continue,
        };
        errors
            .spanned(r, format_args!("tool arguments arrive as owned values; take `{owned}` instead of `{borrowed}`"));
    }
}

/// SEP-986: 1–128 characters from `A-Za-z0-9_.-`. Clients reject others.
fn check_tool_name(tool: &ToolFn, errors: &mut Errors) {
    let name = &tool.name;
    let fix = if tool.attr.name.is_some() { "" } else { "; set one with `#[tool(name = \"…\")]`" };
    let problem = if name.is_empty() {
        "a tool name cannot be empty: use 1–128 characters from `A-Za-z0-9_.-`".to_owned()
    } else if name.chars().count() > 128 {
        format!("tool name is {} characters long; clients accept at most 128", name.chars().count())
    } else if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))) {
        format!("tool name `{name}` contains {bad:?}; use only characters from `A-Za-z0-9_.-`{fix}")
    } else {
        return;
    };
    errors.push(syn::Error::new(tool.name_span, problem));
}

/// Two parameters cannot fill one JSON argument.
fn check_unique_param_names(tool: &ToolFn, errors: &mut Errors) {
    let mut seen = HashMap::new();
    for p in &tool.params {
        if seen.insert(p.name.as_str(), ()).is_some() {
            errors.push(syn::Error::new(
                p.name_span,
                format_args!(
                    "two parameters are named `{}` in the input schema; rename one with `#[arg(rename = \"…\")]`",
                    p.name
                ),
            ));
        }
    }
}
