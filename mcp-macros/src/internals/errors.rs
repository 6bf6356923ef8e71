//! Collects every error of one expansion, so a user sees all of them at once.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

/// Every error of one expansion so far.
#[derive(Default)]
pub(crate) struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    /// Add `error`; the expansion goes on.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.list.push(error);
    }

    /// An error whose span covers `tokens`.
    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// No mistake found: the expansion may be generated.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// One `compile_error!` each, in the order found.
    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.list.into_iter().map(|e| e.into_compile_error()).collect()
    }

    #[cfg(test)]
    pub(crate) fn messages(&self) -> Vec<String> {
        self.list.iter().map(ToString::to_string).collect()
    }
}
