//! What `#[tool]`, `#[resource]` and `#[prompt]` share, in the shape of
//! serde_derive's `internals`: which attribute is at work, the one set of
//! signature checks ([`signature`]) and the one parameter model
//! ([`params`]). Each attribute's model and generator build on these, so a
//! rule added here holds for all three.

pub(crate) mod params;
pub(crate) mod signature;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{ItemFn, LitStr};

use crate::attr::unraw;

/// The attribute at work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// `#[tool]`, as messages write it.
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Kind::Tool => "`#[tool]`",
            Kind::Resource => "`#[resource]`",
            Kind::Prompt => "`#[prompt]`",
        }
    }

    /// `tool`, as messages say it.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    /// The attribute's own name, to find it applied twice.
    fn ident(self) -> &'static str {
        self.noun()
    }

    /// Why its parameters need concrete types.
    fn needs_concrete_types(self) -> &'static str {
        match self {
            Kind::Tool => "the input schema needs concrete parameter types",
            Kind::Resource => "each template variable is read into a concrete type",
            Kind::Prompt => "each argument is read into a concrete type",
        }
    }

    /// What its parameters' names are for.
    fn parameter_names(self) -> &'static str {
        match self {
            Kind::Tool => "they name the JSON arguments",
            Kind::Resource => "a variable's name, or any name for an injected value",
            Kind::Prompt => "they name the prompt's arguments",
        }
    }
}

/// The path generated code names the runtime by: `::mcp_runtime`, unless
/// `crate = "…"` says otherwise.
pub(crate) fn krate(given: Option<&syn::Path>) -> TokenStream {
    match given {
        Some(path) => quote!(#path),
        None => quote!(::mcp_runtime),
    }
}

/// The name on the wire: `name = "…"` if given, else the function's, and
/// where to point when it is wrong.
pub(crate) fn wire_name(given: Option<&LitStr>, item: &ItemFn) -> (String, Span) {
    match given {
        Some(lit) => (lit.value(), lit.span()),
        None => (unraw(&item.sig.ident), item.sig.ident.span()),
    }
}
