//! A tool's checks that need its whole model: the signature checks every
//! attribute shares, then the rules of tools alone.

use syn::{FnArg, Type};

use crate::ast::ToolFn;
use crate::errors::Errors;
use crate::internals::{Kind, params, signature};

pub(crate) fn check(tool: &ToolFn, errors: &mut Errors) {
    signature::check(&tool.item, Kind::Tool, errors);
    check_no_borrowed_text_or_slices(tool, errors);
    signature::check_name(Kind::Tool, &tool.name, tool.name_span, tool.attr.name.is_some(), errors);
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

/// Two parameters cannot fill one JSON argument.
fn check_unique_param_names(tool: &ToolFn, errors: &mut Errors) {
    params::check_unique(tool.params.iter().map(|p| (p.name.as_str(), p.name_span)), Kind::Tool, errors);
}
