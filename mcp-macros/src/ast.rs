//! The model of one `#[tool]` function, built from the parsed `ItemFn`.
//!
//! Building it also takes our helper attributes (`///` and `#[arg]` on
//! parameters) off the function, which is what makes per-parameter docs
//! compile on stable. The model decides nothing about what a parameter
//! *is*: the runtime's traits do.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, FnArg, ItemFn, LitStr, Pat, Type};

use crate::attr::{ArgAttr, DefaultValue, ToolAttr, unraw};
use crate::doc::Doc;
use crate::errors::Errors;

pub(crate) struct ToolFn {
    /// The user's function, minus our helper attributes.
    pub(crate) item: ItemFn,
    pub(crate) attr: ToolAttr,
    /// `::mcp_runtime` unless `#[tool(crate = "…")]` says otherwise.
    pub(crate) krate: TokenStream,
    /// The tool's name on the wire.
    pub(crate) name: String,
    /// Where to point when the name is wrong.
    pub(crate) name_span: Span,
    pub(crate) doc: Doc,
    pub(crate) params: Vec<Param>,
}

pub(crate) struct Param {
    /// The argument's name on the wire.
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) ty: Type,
    pub(crate) doc: Doc,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<DefaultValue>,
}

impl ToolFn {
    pub(crate) fn from_syn(mut item: ItemFn, attr: ToolAttr, errors: &mut Errors) -> ToolFn {
        let krate = match &attr.krate {
            Some(path) => quote!(#path),
            None => quote!(::mcp_runtime),
        };
        let (name, name_span) = match &attr.name {
            Some(lit) => (lit.value(), lit.span()),
            None => (unraw(&item.sig.ident), item.sig.ident.span()),
        };
        // `#[arg]` belongs on parameters; on the function rustc would only
        // say it cannot find the attribute.
        item.attrs.retain(|a| {
            let misplaced = a.path().is_ident("arg");
            if misplaced {
                errors.spanned(
                    a.path(),
                    "`#[arg(...)]` goes on a parameter: `fn f(#[arg(rename = \"…\")] x: T)`; settings for the tool go in `#[tool(...)]`",
                );
            }
            !misplaced
        });
        let doc = Doc::from_attrs(&item.attrs);
        // A description given in the attribute also documents the function,
        // so `missing_docs` and rustdoc see what clients see.
        if doc.is_empty()
            && let Some(description) = &attr.description
        {
            item.attrs.push(syn::parse_quote!(#[doc = #description]));
        }
        let mut params = Vec::new();
        for input in item.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(receiver) => errors.spanned(
                    &*receiver,
                    "`#[tool]` functions cannot take `self`; make it a free function and keep shared data in a `static` (e.g. a `std::sync::OnceLock`)",
                ),
                FnArg::Typed(typed) => {
                    let (ours, theirs): (Vec<Attribute>, Vec<Attribute>) =
                        typed.attrs.drain(..).partition(|a| a.path().is_ident("doc") || a.path().is_ident("arg"));
                    typed.attrs = theirs;
                    let arg_attrs: Vec<&Attribute> = ours.iter().filter(|a| a.path().is_ident("arg")).collect();
                    let arg = ArgAttr::parse(&arg_attrs, errors);
                    let ident = match &*typed.pat {
                        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(&p.ident),
                        _ => None,
                    };
                    let Some(ident) = ident else {
                        errors.spanned(
                            &typed.pat,
                            "tool parameters must be plain identifiers (they name the JSON arguments); \
                             take the whole value and destructure it inside the body",
                        );
                        continue;
                    };
                    let (name, name_span) = match &arg.rename {
                        Some(lit) => (lit.value(), lit.span()),
                        None => (unraw(ident), ident.span()),
                    };
                    params.push(Param {
                        name,
                        name_span,
                        ty: (*typed.ty).clone(),
                        doc: Doc::from_attrs(ours.iter().filter(|a| a.path().is_ident("doc"))),
                        description: arg.description,
                        default: arg.default,
                    });
                }
            }
        }
        ToolFn { item, attr, krate, name, name_span, doc, params }
    }
}
