//! Doc comments → description tokens.
//!
//! Docs stay tokens: a literal line is kept as a string, and
//! `#[doc = include_str!(…)]` as the macro call, joined with `concat!`, so
//! the description is whatever rustdoc would show.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// One `#[doc]`: a line as written, or an expression such as
/// `include_str!(…)`, kept for rustc to expand.
pub(crate) enum DocPart {
    Line(String),
    Expr(Expr),
}

/// A doc comment, in order.
#[derive(Default)]
pub(crate) struct Doc {
    parts: Vec<DocPart>,
}

impl Doc {
    /// The `#[doc]` attributes among `attrs`; others are passed over.
    pub(crate) fn from_attrs<'a>(attrs: impl IntoIterator<Item = &'a Attribute>) -> Doc {
        let mut parts = Vec::new();
        for attr in attrs {
            let Meta::NameValue(nv) = &attr.meta else { continue };
            if !nv.path.is_ident("doc") {
                continue;
            }
            match &nv.value {
                Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
                    let line = s.value();
                    // `/// text` arrives as " text": drop that one space and
                    // keep any further indentation (Markdown code, lists).
                    parts.push(DocPart::Line(line.strip_prefix(' ').map(str::to_owned).unwrap_or(line)));
                }
                other => parts.push(DocPart::Expr(other.clone())),
            }
        }
        Doc { parts }
    }

    /// There is no doc comment at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// `Some(concat!(…))` or `None`, as an `Option<&'static str>` expression.
    pub(crate) fn to_option_tokens(&self, krate: &TokenStream) -> TokenStream {
        if self.parts.is_empty() {
            return quote!(#krate::__private::None);
        }
        let mut pieces = Vec::new();
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                pieces.push(quote!("\n"));
            }
            pieces.push(match part {
                DocPart::Line(s) => quote!(#s),
                DocPart::Expr(e) => quote!(#e),
            });
        }
        quote!(#krate::__private::Some(::core::concat!(#(#pieces),*)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_lose_one_leading_space_only() {
        let f: syn::ItemFn = syn::parse_quote! {
            /// Add.
            ///
            ///     code
            #[doc = include_str!("x.md")]
            fn f() {}
        };
        let doc = Doc::from_attrs(&f.attrs);
        let lines: Vec<String> = doc
            .parts
            .iter()
            .map(|p| match p {
                DocPart::Line(s) => s.clone(),
                DocPart::Expr(_) => "<expr>".into(),
            })
            .collect();
        assert_eq!(lines, ["Add.", "", "    code", "<expr>"]);
    }
}
