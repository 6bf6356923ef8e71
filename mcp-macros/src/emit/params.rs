//! Parameters in generated code: for each, the one constant that names
//! its trait, the call that describes it and the `let` that reads its
//! value; then the request's future, which reads them all and calls the
//! function.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Type};

use crate::internals::Kind;

/// What a generator says of one parameter.
pub(crate) struct Each {
    /// The type of the value the runtime produces.
    pub(crate) ty: Type,
    /// The function takes `&value` (a tool's `ctx: &Context`).
    pub(crate) by_ref: bool,
    /// Adds the parameter to `__mcp_builder` (a `&mut <Kind>Builder`).
    pub(crate) describe: TokenStream,
    /// Its value's `Result`, read from `__mcp_request` (a
    /// `&mut RequestParts`).
    pub(crate) extract: TokenStream,
    /// Further calls on `__mcp_builder` for it (a header, a completer).
    pub(crate) then: TokenStream,
}

/// Every parameter's tokens.
pub(crate) struct Params {
    /// One [`param_const`] each.
    pub(super) consts: TokenStream,
    /// What `definition` says of them, in order.
    pub(super) describes: TokenStream,
    /// `let __mcp_arg<i> = …;` each, failures kept in `__mcp_errors`.
    extracts: TokenStream,
    vars: Vec<Ident>,
    /// What the function is called with: `__mcp_arg<i>` or `&__mcp_arg<i>`.
    args: Vec<TokenStream>,
    /// Some `args` borrow their value.
    borrows: bool,
}

/// The tokens of `each` parameter of a `kind` function.
pub(crate) fn params(kind: Kind, krate: &TokenStream, each: impl IntoIterator<Item = Each>) -> Params {
    let builder = super::Names::of(kind).builder;
    let mut params = Params {
        consts: quote!(),
        describes: quote!(),
        extracts: quote!(),
        vars: Vec::new(),
        args: Vec::new(),
        borrows: false,
    };
    for (i, Each { ty, by_ref, describe, extract, then }) in each.into_iter().enumerate() {
        let (name, var) = (format_ident!("__MCP_PARAM{i}"), format_ident!("__mcp_arg{i}"));
        params.consts.extend(param_const(&name, &ty, krate, &builder, describe, extract));
        params.describes.extend(quote!((#name.0)(&mut __mcp_builder); #then));
        params.extracts.extend(quote! {
            let mut #var = ::core::option::Option::None;
            (#name.1)(&mut __mcp_request, &mut __mcp_errors, &mut #var);
        });
        params.args.push(if by_ref { quote!(&#var) } else { quote!(#var) });
        params.borrows |= by_ref;
        params.vars.push(var);
    }
    params
}

/// The constant through which `definition` and the request's function reach
/// one parameter's trait: the trait is named in this one place, so a type
/// that lacks it is one error. Named in each of the two functions, it was
/// two (rustc shows the message once but counts "2 previous errors").
///
/// The value comes back through a `&mut Option` rather than as the return
/// value, where a lifetime elided in the type (`Cow<'_, str>`) would have
/// no input lifetime to take.
fn param_const(
    name: &Ident,
    ty: &Type,
    krate: &TokenStream,
    builder: &Ident,
    describe: TokenStream,
    extract: TokenStream,
) -> TokenStream {
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

/// The request method's body: every parameter's value read (or, when one
/// fails, `on_error` returned, which may use `__mcp_errors`, holding every
/// failure), then `run`, which may use the values ([`run`]).
pub(super) fn request(params: &Params, krate: &TokenStream, on_error: TokenStream, run: TokenStream) -> TokenStream {
    if params.vars.is_empty() {
        return quote! {
            let _ = __mcp_request;
            #run
        };
    }
    let Params { extracts, vars, .. } = params;
    let somes = vars.iter().map(|v| quote!(#krate::__private::Some(#v)));
    quote! {
        let mut __mcp_errors = #krate::__private::ParamErrors::new();
        #extracts
        let (#(#somes,)*) = (#(#vars,)*) else {
            return #on_error;
        };
        #run
    }
}

/// The `on_error` of resources and prompts: the request fails
/// with `ParamErrors::<into_error>()`.
pub(crate) fn fail(krate: &TokenStream, into_error: &str) -> TokenStream {
    let into_error = format_ident!("{into_error}");
    quote! {{
        let __mcp_error = __mcp_errors.#into_error();
        #krate::__private::Box::pin(async move { ::core::result::Result::Err(__mcp_error) })
    }}
}

/// The future of one request: the function called with the parameters'
/// values (awaited through `boxed` when it is async, run on the request's
/// task when it is not), its output turned into the result by `convert`
/// (which reads `__mcp_out`). An async function's future is boxed, so a
/// future that is not `Send` is reported at the function's name.
pub(crate) fn run(item: &ItemFn, params: &Params, krate: &TokenStream, convert: TokenStream) -> TokenStream {
    let ident = &item.sig.ident;
    let args = &params.args;
    match item.sig.asyncness {
        // The future borrows from the values, so they move in with it.
        Some(_) if params.borrows => quote_spanned! {ident.span()=>
            #krate::__private::boxed(async move { #ident(#(#args),*).await }, move |__mcp_out| #convert)
        },
        Some(_) => quote_spanned! {ident.span()=>
            #krate::__private::boxed(#ident(#(#args),*), move |__mcp_out| #convert)
        },
        None => quote! {
            #krate::__private::Box::pin(async move {
                let __mcp_out = #ident(#(#args),*);
                #convert
            })
        },
    }
}

/// `__mcp_builder.complete_with(…)` for `#[arg(complete = path)]`, spanned
/// at the path, so a function of the wrong signature is reported there.
pub(crate) fn complete_with(name: &str, path: Option<&syn::Path>, krate: &TokenStream) -> TokenStream {
    let Some(path) = path else { return TokenStream::new() };
    quote_spanned!(path.span()=> __mcp_builder.complete_with(#name, #krate::__private::completer(#path));)
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
        let tool = crate::tool::tool(
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
