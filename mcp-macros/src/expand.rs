//! Model → tokens: the user's function, its companion `Tool` type, the
//! trait impl that describes and calls it, and its link-time registration.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, ReturnType};

use crate::ast::ToolFn;
use crate::attr::{ToolAttr, call_site};
use crate::errors::Errors;
use crate::valid;

/// The whole `#[tool]` expansion.
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ToolAttr::parse(args, &mut errors);
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new(
                call_site(),
                "`#[tool]` goes on a function: `#[tool] async fn name(arg: Type) -> Output { … }`",
            );
            let err = err.into_compile_error();
            return quote!(#err #input);
        }
    };
    let tool = ToolFn::from_syn(item, attr, &mut errors);
    valid::check(&tool, &mut errors);
    if errors.is_empty() { expand(&tool) } else { fallback(&tool, errors) }
}

fn expand(tool: &ToolFn) -> TokenStream {
    let ToolFn { item, attr, krate, name, doc, params, .. } = tool;
    let ident = &item.sig.ident;
    let fn_name = ident.to_string();
    let companion = companion(tool);

    let description = match &attr.description {
        Some(d) => quote!(#krate::__private::Some(#d)),
        None => doc.to_option_tokens(krate),
    };
    let title = match &attr.title {
        Some(t) => quote!(#krate::__private::Some(#t)),
        None => quote!(#krate::__private::None),
    };
    let hints = [
        ("read_only", attr.read_only),
        ("destructive", attr.destructive),
        ("idempotent", attr.idempotent),
        ("open_world", attr.open_world),
    ]
    .into_iter()
    .filter_map(|(hint, value)| {
        let method = format_ident!("{hint}");
        value.map(|v| quote!(__mcp_builder.#method(#v);))
    });

    let describes = params.iter().map(|p| {
        let ty = &p.ty;
        let pname = &p.name;
        let pdesc = match &p.description {
            Some(d) => quote!(#krate::__private::Some(#d)),
            None => p.doc.to_option_tokens(krate),
        };
        quote_spanned! {ty.span()=>
            <#ty as #krate::__private::ToolParam<_>>::describe(&mut __mcp_builder, #pname, #pdesc);
        }
    });

    let vars: Vec<_> = (0..params.len()).map(|i| format_ident!("__mcp_arg{i}")).collect();
    let extracts = params.iter().zip(&vars).map(|(p, var)| {
        let ty = &p.ty;
        let pname = &p.name;
        quote_spanned! {ty.span()=>
            let #var = __mcp_errors.take(<#ty as #krate::__private::ToolParam<_>>::extract(&mut __mcp_call, #pname));
        }
    });
    let invoke = match item.sig.asyncness {
        Some(_) => quote!(#ident(#(#vars),*).await),
        None => quote!(#ident(#(#vars),*)),
    };
    let output_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => ident.span(),
    };
    let into_result = quote_spanned! {output_span=>
        #krate::__private::IntoToolResult::into_tool_result(__mcp_out)
    };
    let body = if params.is_empty() {
        quote! {
            let _ = __mcp_call;
            let __mcp_out = #invoke;
            #into_result
        }
    } else {
        let somes = vars.iter().map(|v| quote!(#krate::__private::Some(#v)));
        quote! {
            let mut __mcp_errors = #krate::__private::ArgumentErrors::new();
            #(#extracts)*
            if let (#(#somes,)*) = (#(#vars,)*) {
                let __mcp_out = #invoke;
                #into_result
            } else {
                __mcp_errors.into_result()
            }
        }
    };

    quote! {
        #item
        #companion
        const _: () = {
            #[automatically_derived]
            impl #krate::__private::Tool for #ident::Tool {
                fn definition(&self) -> #krate::__private::ToolDefinition {
                    let mut __mcp_builder = #krate::__private::ToolBuilder::new(#name, ::core::module_path!(), #fn_name);
                    __mcp_builder.description(#description);
                    __mcp_builder.title(#title);
                    #(#hints)*
                    #(#describes)*
                    __mcp_builder.build()
                }

                fn call(
                    &self,
                    mut __mcp_call: #krate::__private::ToolCall,
                ) -> #krate::__private::BoxFuture<'static, #krate::__private::CallToolResult> {
                    #krate::__private::Box::pin(async move { #body })
                }
            }
            #krate::__private::inventory::submit! {
                #krate::__private::Registration::new(&#ident::Tool)
            }
        };
    }
}

/// `mod <fn name> { pub struct Tool; }`: `use tools::add;` brings the
/// function and its companion together, and `add::Tool` registers it
/// explicitly.
fn companion(tool: &ToolFn) -> TokenStream {
    let vis = &tool.item.vis;
    let ident = &tool.item.sig.ident;
    let doc = format!("The MCP tool made from [`{ident}`](fn@super::{ident}) by `#[tool]`.");
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unreachable_pub, missing_docs, clippy::module_name_repetitions)]
        #vis mod #ident {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default)]
            pub struct Tool;
        }
    }
}

/// On error: the function as written (so its body is still checked), every
/// error, and a stub companion with an impl, so uses of `add::Tool` add no
/// second wall of errors. A method (it has `self`) sits in an `impl`, where
/// no module can go, so it gets no companion.
fn fallback(tool: &ToolFn, errors: Errors) -> TokenStream {
    let item = &tool.item;
    let errors = errors.into_compile_errors();
    if item.sig.receiver().is_some() {
        return quote!(#item #errors);
    }
    let companion = companion(tool);
    let krate = &tool.krate;
    let ident = &item.sig.ident;
    quote! {
        #item
        #errors
        #companion
        const _: () = {
            impl #krate::__private::Tool for #ident::Tool {
                fn definition(&self) -> #krate::__private::ToolDefinition {
                    ::core::unreachable!()
                }
                fn call(
                    &self,
                    _: #krate::__private::ToolCall,
                ) -> #krate::__private::BoxFuture<'static, #krate::__private::CallToolResult> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
