//! A tool's model → tokens: what its definition says beyond the keys every
//! attribute takes (hints, rate limit, output schema, defaults, headers),
//! and how a call turns its output into a result.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ReturnType;
use syn::spanned::Spanned;

use super::attr::{SchemaProfileAttr, TaskAttr, ToolAttr};
use super::check::REQUIRE_DESCRIPTIONS;
use crate::emit::params::{self, Each};
use crate::emit::{self, Generated};
use crate::internals::Kind;
use crate::internals::attr::arg::DefaultValue;
use crate::internals::function::Function;
use crate::internals::param::Param;

/// The expansion of a tool whose model has no mistakes.
pub(crate) fn expand(function: &Function, attr: &ToolAttr) -> TokenStream {
    let Function { item, krate, name, doc, params, .. } = function;
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
    let rate_limit = attr
        .rate_limit
        .map(|(calls, ms)| quote!(__mcp_builder.rate_limit(#calls, #krate::__private::Duration::from_millis(#ms));));
    let common = emit::common_calls(&attr.common, doc, krate, quote!(#(#hints)* #rate_limit));
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
    let task = attr.task.map(|support| {
        let support = match support {
            TaskAttr::Never => quote!(Never),
            TaskAttr::Optional => quote!(Optional),
            TaskAttr::Required => quote!(Required),
        };
        quote!(__mcp_builder.task(#krate::__private::TaskSupport::#support);)
    });
    let ui = attr.ui.as_ref().map(|uri| quote!(__mcp_builder.ui(#uri);));
    let app_only = (attr.app_only == Some(true)).then(|| quote!(__mcp_builder.app_only();));
    let version = attr.version.as_ref().map(|version| quote!(__mcp_builder.version(#version);));
    let params = params::params(Kind::Tool, krate, params.iter().enumerate().map(|(i, p)| each(p, i, krate)));
    let span = emit::output_span(item);
    let into_result = quote_spanned! {span=>
        #krate::__private::IntoToolResult::into_tool_result(__mcp_out)
    };
    let default_fns = default_fns(&function.params, krate);
    let generated = Generated {
        items: quote! {
            // Tells cargo this crate depends on the variable, so changing it
            // recompiles the crate and the check runs again.
            const _: ::core::option::Option<&str> = ::core::option_env!(#REQUIRE_DESCRIPTIONS);
            #default_fns
        },
        first: quote!(#name),
        fn_name: item.sig.ident.to_string(),
        definition: quote! {
            __mcp_builder.handler_sees_only_parameters();
            #common #output #no_output_schema #schema_profile #task #ui #app_only #version
        },
        run: params::run(item, &params, krate, into_result),
        params,
        on_error: quote!(#krate::__private::ready(__mcp_errors.into_result())),
    };
    emit::generate(function, Kind::Tool, generated)
}

fn mentions_impl(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "impl",
        proc_macro2::TokenTree::Group(g) => mentions_impl(g.stream()),
        _ => false,
    })
}

/// One parameter: what it adds to the definition and how a call reads it,
/// spanned at its type, so a type that cannot be a parameter is reported
/// there.
fn each(p: &Param, index: usize, krate: &TokenStream) -> Each {
    let ((ty, by_ref), name) = (p.value_type(), &p.name);
    let description = emit::text_or_doc(p.arg.description.as_ref(), &p.doc, krate);
    let (describe, extract) = match &p.arg.default {
        None => (
            quote_spanned! {ty.span()=>
                <#ty as #krate::__private::ToolParam<_>>::describe(__mcp_builder, #name, #description);
            },
            quote_spanned! {ty.span()=>
                <#ty as #krate::__private::ToolParam<_>>::extract(__mcp_request, #name)
            },
        ),
        Some(_) => {
            let default = default_fn(index);
            (
                quote_spanned! {ty.span()=>
                    <#ty as #krate::__private::DefaultArgument>::describe_with_default(
                        __mcp_builder, #name, #description, &#default(),
                    );
                },
                quote_spanned! {ty.span()=>
                    <#ty as #krate::__private::DefaultArgument>::extract_or_else(__mcp_request, #name, #default)
                },
            )
        }
    };
    let then = p.arg.header.as_ref().map(|header| quote!(__mcp_builder.header(#name, #header);));
    Each { ty: ty.clone(), by_ref, describe, extract, then: then.into_token_stream() }
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
            let (ty, _) = p.value_type();
            let name = default_fn(i);
            let body = match p.arg.default.as_ref()? {
                // `default = "Electronics"` for a `String` (or a `PathBuf`,
                // a `Cow<str>`...): a string literal converts.
                DefaultValue::Expr(expr @ syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(_), .. })) => {
                    quote_spanned!(syn::spanned::Spanned::span(expr)=> ::core::convert::Into::into(#expr))
                }
                DefaultValue::Expr(expr) => quote!(#expr),
                DefaultValue::Trait(span) => quote_spanned!(*span=> <#ty as #krate::__private::Default>::default()),
            };
            Some(quote!(fn #name() -> #ty { #body }))
        })
        .collect()
}
