//! Model → tokens: the user's function, its companion `Tool` type, the
//! trait impl that describes and calls it, and its link-time registration.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Item, ItemFn, ReturnType};

use crate::ast::{Param, ToolFn};
use crate::attr::{DefaultValue, SchemaProfileAttr, ToolAttr};
use crate::errors::Errors;
use crate::{shared, valid};

/// The whole `#[tool]` expansion.
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ToolAttr::parse(args, &mut errors);
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = not_a_function(&input).into_compile_error();
            return quote!(#err #input);
        }
    };
    let tool = ToolFn::from_syn(item, attr, &mut errors);
    valid::check(&tool, &mut errors);
    if errors.is_empty() { expand(&tool) } else { fallback(&tool, errors) }
}

/// The error for `#[tool]` on anything but a function, at the keyword that
/// says what the item is.
fn not_a_function(input: &TokenStream) -> syn::Error {
    const HOW: &str = "write `#[tool] async fn name(arg: Type) -> Output { … }`";
    let kind = |token: &dyn ToTokens, what: &str| {
        syn::Error::new_spanned(
            token.to_token_stream(),
            format_args!("`#[tool]` goes on a function, not {what}: {HOW}"),
        )
    };
    match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Struct(i)) => kind(&i.struct_token, "a struct"),
        Ok(Item::Enum(i)) => kind(&i.enum_token, "an enum"),
        Ok(Item::Union(i)) => kind(&i.union_token, "a union"),
        Ok(Item::Trait(i)) => kind(&i.trait_token, "a trait"),
        Ok(Item::Const(i)) => kind(&i.const_token, "a constant"),
        Ok(Item::Static(i)) => kind(&i.static_token, "a static"),
        Ok(Item::Type(i)) => kind(&i.type_token, "a type alias"),
        Ok(Item::Use(i)) => kind(&i.use_token, "a `use`"),
        Ok(Item::Impl(i)) => syn::Error::new_spanned(
            i.impl_token,
            "`#[tool]` goes on a function, not an impl block: tools are free functions, so move each one out of the impl and mark it `#[tool]`",
        ),
        Ok(Item::Mod(i)) => syn::Error::new_spanned(
            i.mod_token,
            "`#[tool]` goes on a function, not a module: mark each function inside it with `#[tool]`",
        ),
        _ => match syn::parse2::<syn::TraitItemFn>(input.clone()) {
            Ok(f) => syn::Error::new_spanned(
                &f.sig.ident,
                "`#[tool]` needs a function with a body, not a trait method declaration: tools are free functions",
            ),
            Err(_) => syn::Error::new(Span::call_site(), format_args!("`#[tool]` goes on a function: {HOW}")),
        },
    }
}

fn expand(tool: &ToolFn) -> TokenStream {
    let ToolFn { item, attr, krate, name, doc, params, .. } = tool;
    let ident = &item.sig.ident;
    let fn_name = ident.to_string();
    let companion = shared::companion(item, "Tool");
    let description = shared::text_or_doc(attr.description.as_ref(), doc, krate);
    let title = shared::optional(attr.title.as_ref(), krate);
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
    let timeout = crate::shared::timeout(attr.common.timeout, krate);
    let rate_limit = attr
        .rate_limit
        .map(|(calls, ms)| quote!(__mcp_builder.rate_limit(#calls, #krate::__private::Duration::from_millis(#ms));));
    let icons = attr.icons.iter().map(|icon| shared::icon(icon, krate));
    let meta = attr.meta.iter().map(|(key, value)| quote!(__mcp_builder.meta(#key, &(#value));));
    let scopes = shared::scopes(attr.scopes.as_deref());
    // The return type says what the output is (`Json<T>` declares a schema);
    // a type that cannot be named here (`impl Trait`) declares nothing.
    let output = match &item.sig.output {
        ReturnType::Type(_, ty) if !mentions_impl(ty.to_token_stream()) => quote! {{
            #[allow(unused_imports)]
            use #krate::__private::{DescribeOutput as _, NoOutput as _};
            (&#krate::__private::OutputOf::<#ty>::new()).describe_output(&mut __mcp_builder);
        }},
        _ => quote!(),
    };
    let no_output_schema = (attr.output_schema == Some(false)).then(|| quote!(__mcp_builder.without_output_schema();));
    let schema_profile = attr.schema.map(|profile| {
        let profile = match profile {
            SchemaProfileAttr::Strict => quote!(Strict),
            SchemaProfileAttr::Portable => quote!(Portable),
        };
        quote!(__mcp_builder.schema_profile(#krate::__private::SchemaProfile::#profile);)
    });

    let require_var = valid::REQUIRE_DESCRIPTIONS;
    let param_consts = params
        .iter()
        .enumerate()
        .map(|(i, p)| shared::param_const(i, &p.ty, krate, "ToolBuilder", describe(p, i, krate), extract(p, i, krate)));
    let describes = params.iter().enumerate().map(|(i, p)| {
        let describe = shared::param_describe(i);
        let header = p.header.as_ref().map(|header| {
            let name = &p.name;
            quote!(__mcp_builder.header(#name, #header);)
        });
        quote!(#describe #header)
    });
    let default_fns = default_fns(params, krate);
    let vars: Vec<_> = (0..params.len()).map(|i| format_ident!("__mcp_arg{i}")).collect();
    let call = format_ident!("__mcp_call");
    let extracts = vars.iter().enumerate().map(|(i, var)| shared::param_value(i, var, &call));
    let output_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => ident.span(),
    };
    let into_result = quote_spanned! {output_span=>
        #krate::__private::IntoToolResult::into_tool_result(__mcp_out)
    };
    // An async tool's own future is boxed, so a future that is not `Send`
    // is reported at the function's name; a sync tool runs when the call
    // is first polled, on the call's task.
    // `&T` parameters borrow a value the call owns.
    let args: Vec<TokenStream> =
        params.iter().zip(&vars).map(|(p, v)| if p.by_ref { quote!(&#v) } else { quote!(#v) }).collect();
    let borrows = params.iter().any(|p| p.by_ref);
    let run = match item.sig.asyncness {
        // The future borrows from the values, so they move in with it.
        Some(_) if borrows => quote_spanned! {ident.span()=>
            #krate::__private::boxed(async move { #ident(#(#args),*).await }, |__mcp_out| #into_result)
        },
        Some(_) => quote_spanned! {ident.span()=>
            #krate::__private::boxed(#ident(#(#args),*), |__mcp_out| #into_result)
        },
        None => quote! {
            #krate::__private::Box::pin(async move {
                let __mcp_out = #ident(#(#args),*);
                #into_result
            })
        },
    };
    let body = if params.is_empty() {
        quote! {
            let _ = __mcp_call;
            #run
        }
    } else {
        let bind = shared::bind(&vars, krate, quote!(#krate::__private::ready(__mcp_errors.into_result())));
        quote! {
            let mut __mcp_errors = #krate::__private::ParamErrors::new();
            #(#extracts)*
            #bind
            #run
        }
    };
    let generated = quote! {
        // Tells cargo this crate depends on the variable, so changing it
        // recompiles the crate and the check above runs again.
        const _: ::core::option::Option<&str> = ::core::option_env!(#require_var);
        #default_fns
        #(#param_consts)*
        #[automatically_derived]
        impl #krate::__private::Tool for #ident::Tool {
            fn definition(&self) -> #krate::__private::ToolDefinition {
                let mut __mcp_builder = #krate::__private::ToolBuilder::new(#name, ::core::module_path!(), #fn_name);
                __mcp_builder.description(#description);
                __mcp_builder.title(#title);
                #(#hints)*
                #timeout
                #rate_limit
                #(#icons)*
                #(#meta)*
                #scopes
                #output
                #no_output_schema
                #schema_profile
                #(#describes)*
                __mcp_builder.build()
            }

            fn call(
                &self,
                mut __mcp_call: #krate::__private::RequestParts,
            ) -> #krate::__private::BoxFuture<'static, #krate::__private::CallToolResult> {
                #body
            }
        }
        #krate::__private::inventory::submit! {
            #krate::__private::Registration::<dyn #krate::__private::Tool>::new(&#ident::Tool)
        }
    };
    let generated = shared::versioned(krate, "tool", generated);
    quote! {
        // Parameters are owned by design (they are decoded from JSON), and a
        // tool cannot be `const`; these lints would ask for both.
        #[allow(clippy::needless_pass_by_value, clippy::missing_const_for_fn)]
        #item
        #companion
        #generated
    }
}

fn mentions_impl(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "impl",
        proc_macro2::TokenTree::Group(g) => mentions_impl(g.stream()),
        _ => false,
    })
}

/// What one parameter adds to the definition (to `__mcp_builder`, a
/// `&mut ToolBuilder`). Spanned at its type, so a type that cannot be a
/// parameter is reported there.
fn describe(p: &Param, index: usize, krate: &TokenStream) -> TokenStream {
    let Param { ty, name, .. } = p;
    let description = match &p.description {
        Some(d) => quote!(#krate::__private::Some(#d)),
        None => p.doc.to_option_tokens(krate),
    };
    match &p.default {
        None => quote_spanned! {ty.span()=>
            <#ty as #krate::__private::ToolParam<_>>::describe(__mcp_builder, #name, #description);
        },
        Some(_) => {
            let default = default_fn(index);
            quote_spanned! {ty.span()=>
                <#ty as #krate::__private::DefaultArgument>::describe_with_default(
                    __mcp_builder, #name, #description, &#default(),
                );
            }
        }
    }
}

/// The expression producing one parameter's value (or its error) for a call,
/// from `__mcp_request` (a `&mut RequestParts`).
fn extract(p: &Param, index: usize, krate: &TokenStream) -> TokenStream {
    let Param { ty, name, .. } = p;
    match &p.default {
        None => quote_spanned! {ty.span()=>
            <#ty as #krate::__private::ToolParam<_>>::extract(__mcp_request, #name)
        },
        Some(_) => {
            let default = default_fn(index);
            quote_spanned! {ty.span()=>
                <#ty as #krate::__private::DefaultArgument>::extract_or_else(__mcp_request, #name, #default)
            }
        }
    }
}

fn default_fn(index: usize) -> syn::Ident {
    format_ident!("__mcp_default{index}")
}

/// One function per `#[arg(default)]`, so the default expression is written
/// (and type-checked, and reported) once, against the parameter's type.
fn default_fns(params: &[Param], krate: &TokenStream) -> TokenStream {
    params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let ty = &p.ty;
            let name = default_fn(i);
            let body = match p.default.as_ref()? {
                DefaultValue::Expr(expr) => quote!(#expr),
                DefaultValue::Trait(span) => quote_spanned!(*span=> <#ty as #krate::__private::Default>::default()),
            };
            Some(quote!(fn #name() -> #ty { #body }))
        })
        .collect()
}

/// On error: the function as written (so its body is still checked), every
/// error, and a stub companion with an impl, so uses of `add::Tool` add no
/// second wall of errors. A method (it has `self`) sits in an `impl`, where
/// no module can go, so it gets no companion.
fn fallback(tool: &ToolFn, errors: Errors) -> TokenStream {
    // A variadic is already reported; without it rustc adds no second error.
    let mut item = tool.item.clone();
    if item.sig.variadic.take().is_some() {
        let inputs = std::mem::take(&mut item.sig.inputs);
        item.sig.inputs = inputs.into_iter().collect();
    }
    let item = &item;
    let errors = errors.into_compile_errors();
    if item.sig.receiver().is_some() {
        return quote!(#item #errors);
    }
    let companion = shared::companion(&tool.item, "Tool");
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
                    _: #krate::__private::RequestParts,
                ) -> #krate::__private::BoxFuture<'static, #krate::__private::CallToolResult> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
