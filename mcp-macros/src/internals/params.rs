//! The one parameter model: each parameter of the user's function with
//! its wire name, its type, its doc and its `#[arg]` keys, our helper
//! attributes taken off it (which is what makes per-parameter docs
//! compile on stable). What a parameter *is* (an argument, a variable, an
//! injected value) is left to the runtime's traits.

use proc_macro2::Span;
use syn::{Attribute, FnArg, Ident, ItemFn, LitStr, Pat, Type};

use super::Kind;
use crate::attr::unraw;
use crate::doc::Doc;
use crate::errors::Errors;

/// One parameter; `A` is the attribute's own `#[arg]` keys.
pub(crate) struct Param<A> {
    pub(crate) ident: Ident,
    /// Its name on the wire: `#[arg(rename = "…")]`, else the identifier's.
    pub(crate) name: String,
    pub(crate) name_span: Span,
    /// As written.
    pub(crate) ty: Type,
    pub(crate) doc: Doc,
    pub(crate) arg: A,
}

/// The `#[arg]` keys every attribute reads the same way.
pub(crate) trait ArgKeys {
    /// `#[arg(rename = "…")]`.
    fn rename(&self) -> Option<&LitStr>;
}

/// Take the function's parameters, with their `///` and `#[arg(...)]`
/// read (by `parse`) and removed; the attributes of other macros stay.
pub(crate) fn take<A: ArgKeys>(
    item: &mut ItemFn,
    kind: Kind,
    errors: &mut Errors,
    mut parse: impl FnMut(&[Attribute], &mut Errors) -> A,
) -> Vec<Param<A>> {
    misplaced_attributes(item, kind, errors);
    let mut params = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                errors.spanned(
                    &*receiver,
                    format_args!(
                        "{} functions cannot take `self`; make it a free function and keep shared data in \
                         `State<T>` or a `static` (e.g. a `std::sync::OnceLock`)",
                        kind.attribute()
                    ),
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let (ours, theirs): (Vec<Attribute>, Vec<Attribute>) =
            typed.attrs.drain(..).partition(|a| a.path().is_ident("doc") || a.path().is_ident("arg"));
        typed.attrs = theirs;
        let args: Vec<Attribute> = ours.iter().filter(|a| a.path().is_ident("arg")).cloned().collect();
        let arg = parse(&args, errors);
        let ident = match &*typed.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            _ => {
                errors.spanned(
                    &typed.pat,
                    format_args!(
                        "{} parameters must be plain identifiers ({}); take the whole value and destructure it \
                         inside the body",
                        kind.noun(),
                        kind.parameter_names()
                    ),
                );
                continue;
            }
        };
        let (name, name_span) = match arg.rename() {
            Some(lit) => (lit.value(), lit.span()),
            None => (unraw(&ident), ident.span()),
        };
        let doc = Doc::from_attrs(ours.iter().filter(|a| a.path().is_ident("doc")));
        params.push(Param { ident, name, name_span, ty: (*typed.ty).clone(), doc, arg });
    }
    params
}

/// Two parameters cannot fill one argument: `names` are the parameters'
/// wire names, in order, with where each is written.
pub(crate) fn check_unique<'a>(names: impl IntoIterator<Item = (&'a str, Span)>, kind: Kind, errors: &mut Errors) {
    let place = match kind {
        Kind::Tool => "the input schema",
        Kind::Resource => "the URI template",
        Kind::Prompt => "the prompt's arguments",
    };
    let mut seen = std::collections::HashSet::new();
    for (name, span) in names {
        if !seen.insert(name) {
            errors.push(syn::Error::new(
                span,
                format_args!("two parameters are named `{name}` in {place}; rename one with `#[arg(rename = \"…\")]`"),
            ));
        }
    }
}

/// `#[arg]` belongs on parameters (on the function rustc would only say it
/// cannot find the attribute), and a second attribute of the same kind
/// would define the companion module twice.
fn misplaced_attributes(item: &mut ItemFn, kind: Kind, errors: &mut Errors) {
    item.attrs.retain(|a| {
        let misplaced = a.path().is_ident("arg");
        if misplaced {
            errors.spanned(
                a.path(),
                format_args!(
                    "`#[arg(...)]` goes on a parameter: `fn f(#[arg(rename = \"…\")] x: T)`; settings for the {} \
                     go in `#[{}(...)]`",
                    kind.noun(),
                    kind.ident()
                ),
            );
        }
        !misplaced
    });
    item.attrs.retain(|a| {
        let again = a.path().segments.last().is_some_and(|s| s.ident == kind.ident());
        if again {
            errors.spanned(
                a,
                format_args!("{} is applied twice; keep one and put every setting in it", kind.attribute()),
            );
        }
        !again
    });
}
