//! Collects every error of one expansion, so a user sees all of them at once.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

#[derive(Default)]
pub(crate) struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.list.push(error);
    }

    /// An error whose span covers `tokens`.
    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.list.into_iter().map(|e| e.into_compile_error()).collect()
    }

    #[cfg(test)]
    pub(crate) fn messages(&self) -> Vec<String> {
        self.list.iter().map(ToString::to_string).collect()
    }
}
