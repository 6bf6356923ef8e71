//! The tokens every attribute's generator emits the same way: the
//! companion module named after the function, the trait impl around each
//! generator's own definition and request body, its registration, the
//! versioned wrapper the runtime expands, and the builder calls for the
//! keys every attribute takes. Parameters are in [`params`]; what is
//! emitted instead when the model has errors, in [`fallback`].

pub(crate) mod fallback;
pub(crate) mod params;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{ItemFn, LitStr, ReturnType};

use crate::internals::attr::Common;
use crate::internals::attr::icon::IconAttr;
use crate::internals::doc::Doc;
use crate::internals::errors::Errors;
use crate::internals::function::Function;
use crate::internals::{Kind, item};
use params::Params;

/// What the runtime calls its items for one kind.
struct Names {
    /// The trait (`Tool`), also the companion's type.
    name: Ident,
    builder: Ident,
    /// What the builder builds and `definition` returns.
    definition: Ident,
    /// The request method (`call`), and what its future gives.
    method: Ident,
    output: Ident,
}

impl Names {
    fn of(kind: Kind) -> Names {
        let name = kind.type_name();
        let (method, output) = match kind {
            Kind::Tool => ("call", "CallToolResult"),
            Kind::Resource => ("read", "Contents"),
            Kind::Prompt => ("get", "Rendered"),
        };
        Names {
            name: format_ident!("{name}"),
            builder: format_ident!("{name}Builder"),
            definition: format_ident!("{name}Definition"),
            method: format_ident!("{method}"),
            output: format_ident!("{output}"),
        }
    }
}

/// `mod <fn name> { pub struct <Kind>; }`: `add::Tool`, `config::Resource`,
/// `review::Prompt` name the companion, so a module can bring the function
/// and its companion in with one `use`.
fn companion(item: &ItemFn, kind: Kind) -> TokenStream {
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let kind_ident = Names::of(kind).name;
    let attribute = kind.noun();
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

/// One attribute's whole expansion, parse → model → check → expand: the
/// model of the function (or, on anything but a function, that error),
/// `check`'s own rules on it, then `expand`'s tokens, or the
/// [`fallback`](fallback::fallback) when any step found a mistake.
/// `errors` holds those of the attribute's keys, `common` their shared
/// part.
pub(crate) fn expansion(
    kind: Kind,
    input: TokenStream,
    common: &Common,
    mut errors: Errors,
    check: impl FnOnce(&mut Function, &mut Errors),
    expand: impl FnOnce(&Function) -> TokenStream,
) -> TokenStream {
    let item = match item::function(input, kind) {
        Ok(item) => item,
        Err(not_a_function) => return not_a_function,
    };
    let mut function = Function::from_syn(item, kind, common, &mut errors);
    check(&mut function, &mut errors);
    if errors.is_empty() { expand(&function) } else { fallback::fallback(&function, kind, errors) }
}

/// What a generator gives [`generate`].
pub(crate) struct Generated {
    /// Items the impl needs besides the parameters' constants.
    pub(crate) items: TokenStream,
    /// The builder's first argument: the wire name, or a resource's URI.
    pub(crate) first: TokenStream,
    /// The name the runtime gives the Rust function in its diagnostics.
    pub(crate) fn_name: String,
    /// The calls on `__mcp_builder` that come before the parameters'.
    pub(crate) definition: TokenStream,
    pub(crate) params: Params,
    /// What a request returns when a parameter could not be read;
    /// `__mcp_errors` holds every failure.
    pub(crate) on_error: TokenStream,
    /// The rest of a request once every value is read: [`params::run`].
    pub(crate) run: TokenStream,
}

/// The expansion: the user's function, its companion, the runtime's trait
/// implemented for the companion, and the companion registered so that
/// `Server::new` finds it, behind the versioned wrapper.
pub(crate) fn generate(function: &Function, kind: Kind, generated: Generated) -> TokenStream {
    let Generated { items, first, fn_name, definition, params, on_error, run } = generated;
    let (item, krate, ident) = (&function.item, &function.krate, function.ident());
    let Names { name, builder, definition: definition_type, method, output } = Names::of(kind);
    let request = params::request(&params, krate, on_error, run);
    let (consts, describes) = (&params.consts, &params.describes);
    let generated = quote! {
        #items
        #consts
        #[automatically_derived]
        impl #krate::__private::#name for #ident::#name {
            fn definition(&self) -> #krate::__private::#definition_type {
                let mut __mcp_builder = #krate::__private::#builder::new(#first, ::core::module_path!(), #fn_name);
                #definition
                #describes
                __mcp_builder.build()
            }

            fn #method(
                &self,
                mut __mcp_request: #krate::__private::RequestParts,
            ) -> #krate::__private::BoxFuture<'static, #krate::__private::#output> {
                #request
            }
        }
        #krate::__private::inventory::submit! {
            #krate::__private::Registration::<dyn #krate::__private::#name>::new(&#ident::#name)
        }
    };
    let companion = companion(item, kind);
    let generated = versioned(krate, kind, generated);
    quote! {
        // Parameters are owned by design (they are decoded from their
        // arguments), and a handler cannot be `const`; these lints would ask
        // for both.
        #[allow(clippy::needless_pass_by_value, clippy::missing_const_for_fn)]
        #item
        #companion
        #generated
    }
}

/// `generated`, expanded through the runtime's macro for this interface
/// version (`expand_<kind>_v1_…`): against a runtime of another version,
/// that macro's name missing is the one error.
fn versioned(krate: &TokenStream, kind: Kind, generated: TokenStream) -> TokenStream {
    let wrapper = format_ident!("expand_{}_v1_needs_mcp_runtime_matching_mcp_macros", kind.noun());
    quote! {
        #krate::__private::#wrapper! {
            const _: () = { #generated };
        }
    }
}

/// The builder calls for the keys every attribute takes, with `own` (the
/// attribute's own keys) after the description and title.
pub(crate) fn common_calls(common: &Common, doc: &Doc, krate: &TokenStream, own: TokenStream) -> TokenStream {
    let description = text_or_doc(common.description.as_ref(), doc, krate);
    let title = match &common.title {
        Some(title) => quote!(#krate::__private::Some(#title)),
        None => quote!(#krate::__private::None),
    };
    let timeout =
        common.timeout.map(|ms| quote!(__mcp_builder.timeout(#krate::__private::Duration::from_millis(#ms));));
    let icons = common.icons.iter().map(|icon| self::icon(icon, krate));
    let meta = common.meta.iter().map(|(key, value)| quote!(__mcp_builder.meta(#key, &(#value));));
    let scopes = match common.scopes.as_deref() {
        Some(scopes) if !scopes.is_empty() => quote!(__mcp_builder.scopes([#(#scopes),*]);),
        _ => TokenStream::new(),
    };
    let tags = match common.tags.as_deref() {
        Some(tags) if !tags.is_empty() => quote!(__mcp_builder.tags([#(#tags),*]);),
        _ => TokenStream::new(),
    };
    quote! {
        __mcp_builder.description(#description);
        __mcp_builder.title(#title);
        #own
        #timeout
        #(#icons)*
        #(#meta)*
        #scopes
        #tags
    }
}

/// `Some("…")` from the attribute, else the doc comment (or `None`).
pub(crate) fn text_or_doc(given: Option<&LitStr>, doc: &Doc, krate: &TokenStream) -> TokenStream {
    match given {
        Some(text) => quote!(#krate::__private::Some(#text)),
        None => doc.to_option_tokens(krate),
    }
}

/// `__mcp_builder.icon(Icon::new(src)…);` for one `icon(…)`.
fn icon(icon: &IconAttr, krate: &TokenStream) -> TokenStream {
    let src = &icon.src;
    let mime = icon.mime_type.iter().map(|m| quote!(.with_mime_type(#m)));
    let sizes = &icon.sizes;
    let sizes = (!sizes.is_empty()).then(|| quote!(.with_sizes(&[#(#sizes),*])));
    let theme = icon.theme.iter().map(|t| quote!(.with_theme(#t)));
    quote!(__mcp_builder.icon(#krate::__private::Icon::new(#src) #(#mime)* #sizes #(#theme)*);)
}

/// Where the conversion of the function's output goes: at its return
/// type, so an output the runtime cannot take is reported there.
pub(crate) fn output_span(item: &ItemFn) -> Span {
    match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => item.sig.ident.span(),
    }
}
