//! What an attribute emits when its model has errors, in the manner of
//! thiserror's fallback: the function as written (so its body is still
//! checked), every error, and a stub companion with an impl of its trait,
//! so that uses of `add::Tool` still resolve and type-check and add no
//! errors of their own.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, companion};
use crate::internals::Kind;
use crate::internals::errors::Errors;
use crate::internals::function::Function;

/// The tokens for `function` under `kind`'s attribute when `errors` holds
/// at least one mistake.
pub(crate) fn fallback(function: &Function, kind: Kind, errors: Errors) -> TokenStream {
    // A variadic is already reported; without it rustc adds no second error.
    let mut item = function.item.clone();
    if item.sig.variadic.take().is_some() {
        let inputs = std::mem::take(&mut item.sig.inputs);
        item.sig.inputs = inputs.into_iter().collect();
    }
    let errors = errors.into_compile_errors();
    // A method (it has `self`) sits in an `impl`, where no module can go.
    if item.sig.receiver().is_some() {
        return quote!(#item #errors);
    }
    let companion = companion(&item, kind);
    let (krate, ident) = (&function.krate, function.ident());
    let Names { name, definition, method, output, .. } = Names::of(kind);
    quote! {
        #item
        #errors
        #companion
        const _: () = {
            impl #krate::__private::#name for #ident::#name {
                fn definition(&self) -> #krate::__private::#definition {
                    ::core::unreachable!()
                }
                fn #method(
                    &self,
                    _: #krate::__private::RequestParts,
                ) -> #krate::__private::BoxFuture<'static, #krate::__private::#output> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
