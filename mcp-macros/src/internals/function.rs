//! The one model of the function an attribute is put on: the item minus
//! our helper attributes, its name on the wire, its doc and its
//! parameters, with the checks that hold for every attribute already made.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::ItemFn;

use super::attr::{Common, unraw};
use super::doc::Doc;
use super::errors::Errors;
use super::param::{self, Param};
use super::{Kind, signature};

/// The function an attribute is put on, as every attribute sees it.
pub(crate) struct Function {
    /// The user's function, minus our helper attributes.
    pub(crate) item: ItemFn,
    /// `::mcp_runtime` unless `crate = "…"` says otherwise.
    pub(crate) krate: TokenStream,
    /// Its name on the wire: `name = "…"`, else the function's.
    pub(crate) name: String,
    /// Where to point when the name is wrong.
    pub(crate) name_span: Span,
    pub(crate) doc: Doc,
    pub(crate) params: Vec<Param>,
}

impl Function {
    /// The model of `item` under `kind`'s attribute, whose shared keys are
    /// `common`; every mistake found is added to `errors`.
    pub(crate) fn from_syn(mut item: ItemFn, kind: Kind, common: &Common, errors: &mut Errors) -> Function {
        let krate = match &common.krate {
            Some(path) => quote!(#path),
            None => quote!(::mcp_runtime),
        };
        let (name, name_span) = match &common.name {
            Some(lit) => (lit.value(), lit.span()),
            None => (unraw(&item.sig.ident), item.sig.ident.span()),
        };
        let params = param::take(&mut item, kind, errors);
        signature::check(&item, kind, errors);
        let doc = Doc::from_attrs(&item.attrs);
        // A description given in the attribute also documents the function,
        // so `missing_docs` and rustdoc see what clients see.
        if doc.is_empty()
            && let Some(description) = &common.description
        {
            item.attrs.push(syn::parse_quote!(#[doc = #description]));
        }
        Function { item, krate, name, name_span, doc, params }
    }

    /// `add`: the function's identifier, which its companion module takes.
    pub(crate) fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    /// Tools and prompts are called by name, and their arguments named:
    /// the name must be one clients accept (`explicit` when the attribute
    /// gave it), and no two parameters may fill one argument.
    pub(crate) fn check_names(&self, kind: Kind, explicit: bool, errors: &mut Errors) {
        signature::check_name(kind, &self.name, self.name_span, explicit, errors);
        param::check_unique(&self.params, kind, errors);
    }
}
