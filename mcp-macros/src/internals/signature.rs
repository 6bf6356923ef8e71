//! The one set of checks on the function an attribute is put on: the
//! runtime calls it, async or not, as a free function through a plain,
//! safe, Rust-ABI call with concrete types, and names it by a name clients
//! accept. Parameters' own shape is checked where they are read
//! ([`super::param`]).

use proc_macro2::Span;
use syn::{FnArg, ItemFn, Type};

use super::Kind;
use super::errors::Errors;

/// Everything about the signature that no attribute can serve.
pub(crate) fn check(item: &ItemFn, kind: Kind, errors: &mut Errors) {
    receiver(item, kind, errors);
    qualifiers(item, kind, errors);
    generics(item, kind, errors);
    impl_trait_params(item, kind, errors);
}

/// The runtime has no value to call a method on.
fn receiver(item: &ItemFn, kind: Kind, errors: &mut Errors) {
    if let Some(receiver) = item.sig.receiver() {
        errors.spanned(
            receiver,
            format_args!(
                "{} functions cannot take `self`; make it a free function and keep shared data in `State<T>` or a \
                 `static` (e.g. a `std::sync::OnceLock`)",
                kind.attribute()
            ),
        );
    }
}

/// A plain (safe, Rust-ABI) call.
fn qualifiers(item: &ItemFn, kind: Kind, errors: &mut Errors) {
    let (sig, attribute) = (&item.sig, kind.attribute());
    if let Some(t) = &sig.constness {
        errors.spanned(t, format_args!("{attribute} functions cannot be `const`; remove `const`"));
    }
    if let Some(t) = &sig.unsafety {
        errors.spanned(
            t,
            format_args!(
                "{attribute} functions cannot be `unsafe`: a client may call them with any arguments; remove \
                 `unsafe` and keep `unsafe` blocks inside the body"
            ),
        );
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(abi, format_args!("{attribute} functions cannot be `extern`; remove the ABI"));
    }
    if let Some(v) = &sig.variadic {
        let instead = match kind {
            Kind::Tool => "take the values as one `Vec<T>` parameter",
            Kind::Resource | Kind::Prompt => "take each value as a parameter of its own",
        };
        errors.spanned(v, format_args!("{attribute} functions cannot be variadic; {instead}"));
    }
}

/// Schemas and readers are made for concrete types.
fn generics(item: &ItemFn, kind: Kind, errors: &mut Errors) {
    let (generics, attribute, why) = (&item.sig.generics, kind.attribute(), kind.needs_concrete_types());
    if !generics.params.is_empty() {
        errors.spanned(&generics.params, format_args!("{attribute} does not support generic functions: {why}"));
    } else if let Some(w) = &generics.where_clause {
        errors.spanned(w, format_args!("{attribute} does not support `where` clauses: {why}"));
    }
}

/// `impl Trait` in argument position is a hidden generic.
fn impl_trait_params(item: &ItemFn, kind: Kind, errors: &mut Errors) {
    for input in &item.sig.inputs {
        if let FnArg::Typed(t) = input
            && let Type::ImplTrait(it) = &*t.ty
        {
            errors.spanned(
                it,
                format_args!(
                    "`impl Trait` parameters are generic; a {} parameter needs a concrete type such as `String`",
                    kind.noun()
                ),
            );
        }
    }
}

/// SEP-986, for tools and prompts alike: 1–128 characters from
/// `A-Za-z0-9_.-`. Clients reject others.
pub(crate) fn check_name(kind: Kind, name: &str, span: Span, explicit: bool, errors: &mut Errors) {
    let noun = kind.noun();
    let fix = if explicit { String::new() } else { format!("; set one with `#[{noun}(name = \"…\")]`") };
    let problem = if name.is_empty() {
        format!("a {noun} name cannot be empty: use 1–128 characters from `A-Za-z0-9_.-`")
    } else if name.chars().count() > 128 {
        format!("{noun} name is {} characters long; clients accept at most 128", name.chars().count())
    } else if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))) {
        format!("{noun} name `{name}` contains {bad:?}; use only characters from `A-Za-z0-9_.-`{fix}")
    } else {
        return;
    };
    errors.push(syn::Error::new(span, problem));
}
