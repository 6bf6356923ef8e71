//! A resource's model → tokens: what its definition says beyond the keys
//! every attribute takes (name, MIME type, size, annotations), each
//! variable read through `TemplateVariable` and each other parameter
//! through `Injected`, and the output turned into contents.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::attr::ResourceAttr;
use crate::emit::params::{self, Each};
use crate::emit::{self, Generated};
use crate::internals::Kind;
use crate::internals::attr::unraw;
use crate::internals::function::Function;
use crate::internals::param::Source;

/// The expansion of a resource whose model has no mistakes.
pub(crate) fn expand(function: &Function, attr: &ResourceAttr) -> TokenStream {
    let Function { item, krate, doc, params, .. } = function;
    let uri = attr.uri.as_ref().expect("checked");
    let annotations = &attr.annotations;
    let name = attr.common.name.iter().map(|n| quote!(__mcp_builder.name(#n);));
    let mime = attr.mime_type.iter().map(|m| quote!(__mcp_builder.mime_type(#m);));
    let mime_opt = match &attr.mime_type {
        Some(m) => quote!(#krate::__private::Some(#m)),
        None => quote!(#krate::__private::None),
    };
    let size = attr.size.iter().map(|s| quote!(__mcp_builder.size(#s);));
    let audience = annotations.audience.iter().map(|a| quote!(__mcp_builder.audience(&[#(#a),*]);));
    let priority = annotations.priority.iter().map(|p| quote!(__mcp_builder.priority(#p);));
    let last_modified = annotations.last_modified.iter().map(|l| quote!(__mcp_builder.last_modified(#l);));
    let own = quote!(#(#name)* #(#mime)* #(#size)* #(#audience)* #(#priority)* #(#last_modified)*);
    let common = emit::common_calls(&attr.common, doc, krate, own);
    let each = params.iter().map(|p| {
        let (ty, name) = (&p.ty, &p.name);
        let variable = p.source == Source::Variable;
        let (describe, extract) = if variable {
            (
                quote_spanned!(ty.span()=> <#ty as #krate::__private::TemplateVariable>::describe(__mcp_builder, #name);),
                quote_spanned!(ty.span()=> <#ty as #krate::__private::TemplateVariable>::extract(__mcp_request, #name)),
            )
        } else {
            (
                quote_spanned!(ty.span()=> <#ty as #krate::__private::Injected>::describe(__mcp_builder);),
                quote_spanned!(ty.span()=> <#ty as #krate::__private::Injected>::extract(__mcp_request)),
            )
        };
        let then = params::complete_with(name, p.arg.complete.as_ref().filter(|_| variable), krate);
        Each { ty: ty.clone(), by_ref: false, describe, extract, then }
    });
    let params = params::params(Kind::Resource, krate, each);
    let span = emit::output_span(item);
    let into_contents = quote_spanned! {span=>
        #krate::__private::IntoResourceContents::into_contents(__mcp_out, &__mcp_uri, #mime_opt)
    };
    let run = params::run(item, &params, krate, into_contents);
    let generated = Generated {
        items: quote!(),
        first: quote!(#uri),
        fn_name: unraw(&item.sig.ident),
        definition: common,
        run: quote! {
            let __mcp_uri = #krate::__private::RequestParts::target(&__mcp_request).to_owned();
            #run
        },
        params,
        on_error: params::fail(krate, "into_resource_error"),
    };
    emit::generate(function, Kind::Resource, generated)
}
