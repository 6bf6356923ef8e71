//! The item an attribute is put on must be a function: anything else is
//! one error, at the keyword that says what the item is instead.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Item, ItemFn};

use super::Kind;

/// `input` as a function, or the tokens to emit instead: the error, then
/// the item as written, so its own errors still show.
pub(crate) fn function(input: TokenStream, kind: Kind) -> Result<ItemFn, TokenStream> {
    syn::parse2(input.clone()).map_err(|_| {
        let error = not_a_function(&input, kind).into_compile_error();
        quote!(#error #input)
    })
}

/// The attribute as it is put on a function.
fn mark(kind: Kind) -> &'static str {
    match kind {
        Kind::Tool => "`#[tool]`",
        Kind::Resource => "`#[resource(\"…\")]`",
        Kind::Prompt => "`#[prompt]`",
    }
}

/// How to write the attribute on a function.
fn how(kind: Kind) -> &'static str {
    match kind {
        Kind::Tool => "write `#[tool] async fn name(arg: Type) -> Output { … }`",
        Kind::Resource => "write `#[resource(\"scheme://path\")] fn name() -> String { … }`",
        Kind::Prompt => "write `#[prompt] fn name(arg: String) -> Vec<PromptMessage> { … }`",
    }
}

fn not_a_function(input: &TokenStream, kind: Kind) -> syn::Error {
    let (attribute, noun, mark, how) = (kind.attribute(), kind.noun(), mark(kind), how(kind));
    let at = |token: &dyn ToTokens, message: String| syn::Error::new_spanned(token.to_token_stream(), message);
    let not =
        |token: &dyn ToTokens, what: &str| at(token, format!("{attribute} goes on a function, not {what}: {how}"));
    match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Struct(i)) => not(&i.struct_token, "a struct"),
        Ok(Item::Enum(i)) => not(&i.enum_token, "an enum"),
        Ok(Item::Union(i)) => not(&i.union_token, "a union"),
        Ok(Item::Trait(i)) => not(&i.trait_token, "a trait"),
        Ok(Item::Const(i)) => not(&i.const_token, "a constant"),
        Ok(Item::Static(i)) => not(&i.static_token, "a static"),
        Ok(Item::Type(i)) => not(&i.type_token, "a type alias"),
        Ok(Item::Use(i)) => not(&i.use_token, "a `use`"),
        Ok(Item::Impl(i)) => at(
            &i.impl_token,
            format!(
                "{attribute} goes on a function, not an impl block: {noun}s are free functions, so move each one \
                 out of the impl and mark it {mark}"
            ),
        ),
        Ok(Item::Mod(i)) => at(
            &i.mod_token,
            format!("{attribute} goes on a function, not a module: mark each function inside it with {mark}"),
        ),
        _ => match syn::parse2::<syn::TraitItemFn>(input.clone()) {
            Ok(f) => at(
                &f.sig.ident,
                format!(
                    "{attribute} needs a function with a body, not a trait method declaration: {noun}s are free \
                     functions"
                ),
            ),
            Err(_) => syn::Error::new(Span::call_site(), format!("{attribute} goes on a function: {how}")),
        },
    }
}
