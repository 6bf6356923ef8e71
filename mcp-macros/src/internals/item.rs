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
        let error = match kind {
            Kind::Tool => not_a_function(&input),
            Kind::Resource => syn::Error::new(
                Span::call_site(),
                "`#[resource]` goes on a function: write `#[resource(\"scheme://path\")]` or \
                 `#[resource(\"scheme://{variable}\")]`",
            ),
            Kind::Prompt => syn::Error::new(
                Span::call_site(),
                "`#[prompt]` goes on a function: write `#[prompt] fn name(arg: String) -> Vec<PromptMessage> { … }`",
            ),
        };
        let error = error.into_compile_error();
        quote!(#error #input)
    })
}

/// The error for `#[tool]` on anything but a function, at the keyword that
/// says what the item is.
fn not_a_function(input: &TokenStream) -> syn::Error {
    const HOW: &str = "write `#[tool] async fn name(arg: Type) -> Output { … }`";
    let kind = |token: &dyn ToTokens, what: &str| {
        syn::Error::new_spanned(
            token.to_token_stream(),
            format_args!("`#[tool]` goes on a function, not {what}: {HOW}"),
        )
    };
    match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Struct(i)) => kind(&i.struct_token, "a struct"),
        Ok(Item::Enum(i)) => kind(&i.enum_token, "an enum"),
        Ok(Item::Union(i)) => kind(&i.union_token, "a union"),
        Ok(Item::Trait(i)) => kind(&i.trait_token, "a trait"),
        Ok(Item::Const(i)) => kind(&i.const_token, "a constant"),
        Ok(Item::Static(i)) => kind(&i.static_token, "a static"),
        Ok(Item::Type(i)) => kind(&i.type_token, "a type alias"),
        Ok(Item::Use(i)) => kind(&i.use_token, "a `use`"),
        Ok(Item::Impl(i)) => syn::Error::new_spanned(
            i.impl_token,
            "`#[tool]` goes on a function, not an impl block: tools are free functions, so move each one out of the impl and mark it `#[tool]`",
        ),
        Ok(Item::Mod(i)) => syn::Error::new_spanned(
            i.mod_token,
            "`#[tool]` goes on a function, not a module: mark each function inside it with `#[tool]`",
        ),
        _ => match syn::parse2::<syn::TraitItemFn>(input.clone()) {
            Ok(f) => syn::Error::new_spanned(
                &f.sig.ident,
                "`#[tool]` needs a function with a body, not a trait method declaration: tools are free functions",
            ),
            Err(_) => syn::Error::new(Span::call_site(), format_args!("`#[tool]` goes on a function: {HOW}")),
        },
    }
}
