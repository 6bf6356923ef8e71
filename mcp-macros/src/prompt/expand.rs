//! A prompt's model → tokens: each argument described and read through
//! `PromptParam`, and the output turned into messages.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::emit::params::{self, Each};
use crate::emit::{self, Generated};
use crate::internals::Kind;
use crate::internals::attr::{Common, unraw};
use crate::internals::function::Function;

/// The expansion of a prompt whose model has no mistakes.
pub(crate) fn expand(function: &Function, attr: &Common) -> TokenStream {
    let Function { item, krate, name, doc, params, .. } = function;
    let each = params.iter().map(|p| {
        let (ty, name) = (&p.ty, &p.name);
        let description = emit::text_or_doc(p.arg.description.as_ref(), &p.doc, krate);
        Each {
            ty: ty.clone(),
            by_ref: false,
            describe: quote_spanned! {ty.span()=>
                <#ty as #krate::__private::PromptParam<_>>::describe(__mcp_builder, #name, #description);
            },
            extract: quote_spanned! {ty.span()=>
                <#ty as #krate::__private::PromptParam<_>>::extract(__mcp_request, #name)
            },
            then: params::complete_with(name, p.arg.complete.as_ref(), krate),
        }
    });
    let params = params::params(Kind::Prompt, krate, each);
    let span = emit::output_span(item);
    let into_result = quote_spanned! {span=>
        #krate::__private::IntoPromptResult::into_prompt_result(__mcp_out)
    };
    let generated = Generated {
        items: quote!(),
        first: quote!(#name),
        fn_name: unraw(&item.sig.ident),
        definition: emit::common_calls(attr, doc, krate, quote!()),
        run: params::run(item, &params, krate, into_result),
        params,
        on_error: params::fail(krate, "into_prompt_error"),
    };
    emit::generate(function, Kind::Prompt, generated)
}
