//! `#[resource("uri", …)]`: parse → model → check → expand, or the
//! fallback when the model has errors, as for `#[tool]`. The URI (or URI
//! template) is checked here, and so is the match between its variables
//! and the function's parameters, each mistake at its token; whether a
//! type can be read from text or is injected is left to the runtime's
//! traits, which report at the type.

mod attr;
mod bind;
mod expand;
mod template;

use proc_macro2::TokenStream;

use crate::emit;
use crate::internals::Kind;
use crate::internals::errors::Errors;
use attr::ResourceAttr;

/// The whole `#[resource]` expansion.
pub(crate) fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ResourceAttr::parse(args, &mut errors);
    let template = template::check_uri(attr.uri.as_ref(), &mut errors);
    let check = |function: &mut _, errors: &mut Errors| {
        bind::bind(function, attr.uri.as_ref(), template.as_deref().unwrap_or(&[]), errors);
        if let (Some(size), Some(vars)) = (&attr.size, &template)
            && !vars.is_empty()
        {
            errors.spanned(size, "a template names many resources, so it has no one `size`; remove `size`");
        }
    };
    emit::expansion(Kind::Resource, input, &attr.common, errors, check, |function| expand::expand(function, &attr))
}
