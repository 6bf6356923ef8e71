//! The one parameter model: each parameter of the user's function with
//! its wire name, its type, its doc and its `#[arg]` keys, our helper
//! attributes taken off it (which is what makes per-parameter docs
//! compile on stable), and what supplies its value.

use proc_macro2::Span;
use syn::{Attribute, FnArg, Ident, ItemFn, Pat, Type};

use super::Kind;
use super::attr::arg::ArgAttr;
use super::attr::unraw;
use super::doc::Doc;
use super::errors::Errors;

/// One parameter.
pub(crate) struct Param {
    pub(crate) ident: Ident,
    /// Its name on the wire: `#[arg(rename = "…")]`, else the identifier's.
    pub(crate) name: String,
    pub(crate) name_span: Span,
    /// As written.
    pub(crate) ty: Type,
    pub(crate) doc: Doc,
    pub(crate) arg: ArgAttr,
    pub(crate) source: Source,
}

impl Param {
    /// The type of the value the runtime makes, and whether the function
    /// borrows it: a tool's `ctx: &Context` takes a `Context` by reference.
    pub(crate) fn value_type(&self) -> (&Type, bool) {
        match &self.ty {
            Type::Reference(r) if r.mutability.is_none() => (&r.elem, true),
            other => (other, false),
        }
    }
}

/// What supplies a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The runtime's traits, from the type alone: an argument when the
    /// type can be read from one, else an injected value (`Context`,
    /// `State<T>`). Never the type's spelling, so aliases and re-exports
    /// work. Tools and prompts.
    Traits,
    /// A resource's URI template variable, by the parameter's name.
    Variable,
    /// A resource parameter no variable is named after.
    Injected,
}

/// Take the function's parameters, with their `///` and `#[arg(...)]`
/// read and removed; the attributes of other macros stay.
pub(crate) fn take(item: &mut ItemFn, kind: Kind, errors: &mut Errors) -> Vec<Param> {
    misplaced_attributes(item, kind, errors);
    let mut params = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        // A receiver is reported with the signature's checks.
        let FnArg::Typed(typed) = input else { continue };
        let (ours, theirs): (Vec<Attribute>, Vec<Attribute>) =
            typed.attrs.drain(..).partition(|a| a.path().is_ident("doc") || a.path().is_ident("arg"));
        typed.attrs = theirs;
        let args: Vec<Attribute> = ours.iter().filter(|a| a.path().is_ident("arg")).cloned().collect();
        let arg = ArgAttr::parse(&args, kind, errors);
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
        let (name, name_span) = match &arg.rename {
            Some(lit) => (lit.value(), lit.span()),
            None => (unraw(&ident), ident.span()),
        };
        let doc = Doc::from_attrs(ours.iter().filter(|a| a.path().is_ident("doc")));
        let (ty, source) = ((*typed.ty).clone(), Source::Traits);
        params.push(Param { ident, name, name_span, ty, doc, arg, source });
    }
    params
}

/// Two parameters cannot fill one argument.
pub(crate) fn check_unique(params: &[Param], kind: Kind, errors: &mut Errors) {
    let place = match kind {
        Kind::Tool => "the input schema",
        Kind::Resource => "the URI template",
        Kind::Prompt => "the prompt's arguments",
    };
    let mut seen = std::collections::HashSet::new();
    for Param { name, name_span, .. } in params {
        if !seen.insert(name) {
            errors.push(syn::Error::new(
                *name_span,
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
                    "`#[arg(...)]` goes on a parameter: `fn f(#[arg(rename = \"…\")] x: T)`; settings for the {0} \
                     go in `#[{0}(...)]`",
                    kind.noun(),
                ),
            );
        }
        !misplaced
    });
    item.attrs.retain(|a| {
        let again = a.path().segments.last().is_some_and(|s| s.ident == kind.noun());
        if again {
            errors.spanned(
                a,
                format_args!("{} is applied twice; keep one and put every setting in it", kind.attribute()),
            );
        }
        !again
    });
}
