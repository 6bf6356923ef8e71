//! What every attribute's expansion shares: the companion module named
//! after the function, the versioned wrapper the runtime expands, optional
//! strings, and the guard that ends a request whose parameters failed.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::{ItemFn, LitStr, Type};

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

/// The constant through which `definition` and the request's function reach
/// one parameter's trait: the trait is named in this one place, so a type
/// that lacks it is one error. Named in each of the two functions, it was
/// two (rustc shows the message once but counts "2 previous errors").
///
/// `describe` adds the parameter to `__mcp_builder` (a `&mut #builder`);
/// `extract` is its value's `Result`, read from `__mcp_request` (a
/// `&mut RequestParts`). The value comes back through a `&mut Option`
/// rather than as the return value, where a lifetime elided in the type
/// (`Cow<'_, str>`) would have no input lifetime to take.
pub(crate) fn param_const(
    index: usize,
    ty: &Type,
    krate: &TokenStream,
    builder: &str,
    describe: TokenStream,
    extract: TokenStream,
) -> TokenStream {
    let name = param_const_name(index);
    let builder = format_ident!("{builder}");
    quote! {
        #[allow(clippy::type_complexity)]
        const #name: (
            fn(&mut #krate::__private::#builder),
            fn(
                &mut #krate::__private::RequestParts,
                &mut #krate::__private::ParamErrors,
                &mut ::core::option::Option<#ty>,
            ),
        ) = (
            |__mcp_builder| { #describe },
            |__mcp_request, __mcp_errors, __mcp_value| *__mcp_value = __mcp_errors.take(#extract),
        );
    }
}

/// `let <var> = …;`: parameter `index`'s value (or `None`, its error kept
/// in `__mcp_errors`), read from `request` through [`param_const`].
pub(crate) fn param_value(index: usize, var: &Ident, request: &Ident) -> TokenStream {
    let name = param_const_name(index);
    quote! {
        let mut #var = ::core::option::Option::None;
        (#name.1)(&mut #request, &mut __mcp_errors, &mut #var);
    }
}

/// `(<const>.0)(&mut __mcp_builder);`: parameter `index` described.
pub(crate) fn param_describe(index: usize) -> TokenStream {
    let name = param_const_name(index);
    quote!((#name.0)(&mut __mcp_builder);)
}

fn param_const_name(index: usize) -> Ident {
    format_ident!("__MCP_PARAM{index}")
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
pub(crate) fn run(item: &ItemFn, vars: &[Ident], krate: &TokenStream, convert: TokenStream) -> TokenStream {
    let ident = &item.sig.ident;
    match item.sig.asyncness {
        Some(_) => quote::quote_spanned! {ident.span()=>
            #krate::__private::boxed(#ident(#(#vars),*), move |__mcp_out| #convert)
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

/// `__mcp_builder.timeout(..)` when the attribute set `timeout`.
pub(crate) fn timeout(ms: Option<u64>, krate: &TokenStream) -> Option<TokenStream> {
    ms.map(|ms| quote!(__mcp_builder.timeout(#krate::__private::Duration::from_millis(#ms));))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The part of an expansion after its parameters' constants: the impl
    /// whose `definition` and request function must not name a parameter
    /// trait again (each would be one more count of the same error).
    fn impl_part(expansion: &TokenStream) -> String {
        let text = expansion.to_string();
        let start = text.find("# [automatically_derived] impl").expect("the expansion has its impl");
        text[start..].to_owned()
    }

    #[test]
    fn each_parameter_trait_is_named_only_in_its_constant() {
        let tool = crate::expand::tool(
            quote!(),
            quote! {
                /// Doc.
                fn f(a: u8, #[arg(default)] b: u8, ctx: &Context) {}
            },
        );
        let prompt = crate::prompt::prompt(
            quote!(),
            quote! {
                /// Doc.
                fn p(a: String, ctx: Context) -> String { a }
            },
        );
        let resource = crate::resource::resource(
            quote!("notes://{id}"),
            quote! {
                /// Doc.
                fn r(id: u32, ctx: Context) -> String { id.to_string() }
            },
        );
        for (expansion, traits) in [
            (tool, &["ToolParam", "DefaultArgument"][..]),
            (prompt, &["PromptParam"][..]),
            (resource, &["TemplateVariable", "Injected"][..]),
        ] {
            let text = expansion.to_string();
            let rest = impl_part(&expansion);
            for name in traits {
                assert!(text.contains(name), "{name} is used: {text}");
                assert!(!rest.contains(name), "{name} is named again after the constants: {rest}");
            }
            assert!(rest.contains("__MCP_PARAM0 . 0") && rest.contains("__MCP_PARAM0 . 1"), "{rest}");
        }
    }
}
