//! What every attribute's expansion shares: the companion module named
//! after the function, the versioned wrapper the runtime expands, optional
//! strings, and the guard that ends a request whose parameters failed.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::{ItemFn, LitStr};

use crate::doc::Doc;

/// `mod <fn name> { pub struct <Kind>; }`: `add::Tool`, `config::Resource`,
/// `review::Prompt` name the companion, so a module can bring the function
/// and its companion in with one `use`.
pub(crate) fn companion(item: &ItemFn, kind: &str) -> TokenStream {
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let kind_ident = format_ident!("{kind}");
    let attribute = kind.to_lowercase();
    let doc = format!("The MCP {attribute} made from [`{ident}`](fn@super::{ident}) by `#[{attribute}]`.");
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unreachable_pub, missing_docs, clippy::module_name_repetitions)]
        #vis mod #ident {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default)]
            pub struct #kind_ident;
        }
    }
}

/// `generated`, expanded through the runtime's macro for this interface
/// version (`expand_<kind>_v1_…`): against a runtime of another version,
/// that macro's name missing is the one error.
pub(crate) fn versioned(krate: &TokenStream, kind: &str, generated: TokenStream) -> TokenStream {
    let wrapper = format_ident!("expand_{}_v1_needs_mcp_runtime_matching_mcp_macros", kind.to_lowercase());
    quote! {
        #krate::__private::#wrapper! {
            const _: () = { #generated };
        }
    }
}

/// `Some("…")` from the attribute, else the doc comment (or `None`).
pub(crate) fn text_or_doc(given: Option<&LitStr>, doc: &Doc, krate: &TokenStream) -> TokenStream {
    match given {
        Some(text) => quote!(#krate::__private::Some(#text)),
        None => doc.to_option_tokens(krate),
    }
}

/// `Some("…")` or `None`.
pub(crate) fn optional(given: Option<&LitStr>, krate: &TokenStream) -> TokenStream {
    match given {
        Some(text) => quote!(#krate::__private::Some(#text)),
        None => quote!(#krate::__private::None),
    }
}

/// Unwrap every parameter's value, or end the request with `on_error`
/// (which may use `__mcp_errors`, holding every failure).
pub(crate) fn bind(vars: &[Ident], krate: &TokenStream, on_error: TokenStream) -> TokenStream {
    let somes = vars.iter().map(|v| quote!(#krate::__private::Some(#v)));
    quote! {
        let (#(#somes,)*) = (#(#vars,)*) else {
            return #on_error;
        };
    }
}

/// `__mcp_builder.icon(Icon::new(src)…);` for one `icon(…)`.
pub(crate) fn icon(icon: &crate::attr::IconAttr, krate: &TokenStream) -> TokenStream {
    let src = &icon.src;
    let mime = icon.mime_type.iter().map(|m| quote!(.with_mime_type(#m)));
    let sizes = &icon.sizes;
    let sizes = (!sizes.is_empty()).then(|| quote!(.with_sizes(&[#(#sizes),*])));
    let theme = icon.theme.iter().map(|t| quote!(.with_theme(#t)));
    quote!(__mcp_builder.icon(#krate::__private::Icon::new(#src) #(#mime)* #sizes #(#theme)*);)
}

/// `__mcp_builder.meta(key, &value);` for each `meta(…)` entry.
pub(crate) fn meta(entries: &[(LitStr, syn::Expr)]) -> Vec<TokenStream> {
    entries.iter().map(|(key, value)| quote!(__mcp_builder.meta(#key, &(#value));)).collect()
}

/// `__mcp_builder.scopes([…]);` for `scopes = […]`.
pub(crate) fn scopes(scopes: Option<&[LitStr]>) -> TokenStream {
    match scopes {
        Some(scopes) if !scopes.is_empty() => quote!(__mcp_builder.scopes([#(#scopes),*]);),
        _ => TokenStream::new(),
    }
}

/// The future of one request: the function called with `vars` (awaited
/// through `boxed` when it is async, run on the request's task when it is
/// not), its output turned into the result by `convert` (which reads
/// `__mcp_out`).
pub(crate) fn run(
    item: &ItemFn,
    vars: &[Ident],
    krate: &TokenStream,
    boxed: &str,
    convert: TokenStream,
) -> TokenStream {
    let ident = &item.sig.ident;
    let boxed = format_ident!("{boxed}");
    match item.sig.asyncness {
        Some(_) => quote::quote_spanned! {ident.span()=>
            #krate::__private::#boxed(#ident(#(#vars),*), move |__mcp_out| #convert)
        },
        None => quote! {
            #krate::__private::Box::pin(async move {
                let __mcp_out = #ident(#(#vars),*);
                #convert
            })
        },
    }
}

/// [`bind`] for resources and prompts: a failure is the request's error,
/// from `ParamErrors::<into_error>()`.
pub(crate) fn bind_or_fail(vars: &[Ident], krate: &TokenStream, into_error: &str) -> TokenStream {
    let into_error = format_ident!("{into_error}");
    bind(
        vars,
        krate,
        quote! {{
            let __mcp_error = __mcp_errors.#into_error();
            #krate::__private::Box::pin(async move { ::core::result::Result::Err(__mcp_error) })
        }},
    )
}
