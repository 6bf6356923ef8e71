//! `#[prompt]`: parse → model → check → expand, or the fallback when the
//! model has errors, as for `#[tool]`. Each parameter is a prompt argument
//! (its value arrives as a string and is read into the parameter's type)
//! or an injected value; the runtime's traits decide, and report a type
//! that is neither at the type.

mod expand;

use proc_macro2::TokenStream;

use crate::emit;
use crate::internals::Kind;
use crate::internals::attr::common::{self, Common};
use crate::internals::errors::Errors;

/// `#[prompt(...)]` takes only the keys every attribute takes.
const PROMPT_KEYS: &[&str] = &["name", "title", "description", "icon", "meta", "scopes", "tags", "timeout", "crate"];

/// The whole `#[prompt]` expansion.
pub(crate) fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let mut attr = Common::default();
    common::parse(args, Kind::Prompt, PROMPT_KEYS, &mut attr, &mut errors, |_, _| Ok(false));
    emit::expansion(
        Kind::Prompt,
        input,
        &attr,
        errors,
        |function, errors| function.check_names(Kind::Prompt, attr.name.is_some(), errors),
        |function| expand::expand(function, &attr),
    )
}
