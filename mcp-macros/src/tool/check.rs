//! The rules of tools alone, on top of the checks every attribute's model
//! has already made.

use syn::{FnArg, Type};

use super::attr::ToolAttr;
use crate::internals::Kind;
use crate::internals::errors::Errors;
use crate::internals::function::Function;

/// Every rule of tools alone, each mistake added to `errors`.
pub(crate) fn check(function: &Function, attr: &ToolAttr, errors: &mut Errors) {
    check_no_borrowed_text_or_slices(function, errors);
    function.check_names(Kind::Tool, attr.common.name.is_some(), errors);
    check_description(function, attr, errors);
}

/// The variable that makes a crate require a description on every tool.
pub(crate) const REQUIRE_DESCRIPTIONS: &str = "MCP_REQUIRE_DESCRIPTIONS";

/// A model chooses tools by their descriptions, so a crate may insist on
/// one: set `MCP_REQUIRE_DESCRIPTIONS=1` while it compiles (from its
/// `build.rs`: `cargo::rustc-env=MCP_REQUIRE_DESCRIPTIONS=1`).
fn check_description(function: &Function, attr: &ToolAttr, errors: &mut Errors) {
    let required = std::env::var(REQUIRE_DESCRIPTIONS).is_ok_and(|v| !v.is_empty() && v != "0");
    if required && function.doc.is_empty() && attr.common.description.is_none() {
        errors.push(syn::Error::new(
            function.ident().span(),
            format_args!(
                "tool `{}` has no description, and this crate requires one ({REQUIRE_DESCRIPTIONS} is set): \
                 add a `///` doc comment saying what it does, or `#[tool(description = \"…\")]`",
                function.name
            ),
        ));
    }
}

/// `&T` parameters borrow a value the call owns, so `T` must be a whole
/// value; `&str` and `&[T]` have owned forms that say so.
fn check_no_borrowed_text_or_slices(function: &Function, errors: &mut Errors) {
    for input in &function.item.sig.inputs {
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
