//! `#[prompt]`: parse → model → validate → expand, as for `#[tool]`. Each
//! parameter is a prompt argument (its value arrives as a string and is
//! read into the parameter's type) or an injected value; the runtime's
//! traits decide, and report a type that is neither at the type.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, ItemFn, LitStr, ReturnType};

use crate::attr::{Common, key_of, set, string, unknown, unraw};
use crate::doc::Doc;
use crate::errors::Errors;
use crate::internals::{self, Kind, params, signature};

const PROMPT_KEYS: &[&str] = &["name", "title", "description", "icon", "meta", "scopes", "timeout", "crate"];
const ARG_KEYS: &[&str] = &["rename", "description", "complete"];

/// The arguments of `#[prompt(...)]`: only the keys every attribute takes.
type PromptAttr = Common;

fn parse_attr(args: TokenStream, errors: &mut Errors) -> PromptAttr {
    let mut attr = PromptAttr::default();
    if let Ok(lit) = syn::parse2::<LitStr>(args.clone()) {
        errors.spanned(&lit, format_args!("name the key: `#[prompt(name = {})]`", quote!(#lit)));
        return attr;
    }
    let parser = syn::meta::parser(|meta| {
        if !attr.key(&meta, errors)? {
            unknown(&meta, "#[prompt]", PROMPT_KEYS, errors)?;
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }
    attr
}

/// One parameter: a prompt argument or an injected value.
type Param = params::Param<TextArg>;

/// `#[arg(rename = "…", description = "…", complete = path::to::fn)]`, on a
/// parameter whose value arrives as text (a prompt argument, a template
/// variable).
#[derive(Default)]
pub(crate) struct TextArg {
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    /// An async `fn(Completing) -> Vec<String>` completing the value.
    pub(crate) complete: Option<syn::Path>,
}

impl params::ArgKeys for TextArg {
    fn rename(&self) -> Option<&LitStr> {
        self.rename.as_ref()
    }
}

/// Read a parameter's `#[arg(...)]` attributes.
pub(crate) fn arg_attr(attrs: &[Attribute], errors: &mut Errors) -> TextArg {
    let (mut rename, mut description, mut complete) = (None, None, None);
    for attr in attrs {
        let result = attr.parse_nested_meta(|meta| {
            match key_of(&meta).as_str() {
                "rename" => set(&mut rename, string(&meta, errors)?, &meta, errors),
                "description" => set(&mut description, string(&meta, errors)?, &meta, errors),
                // #[arg(complete = cities)]: an async fn(Completing) -> Vec<String>
                "complete" => {
                    let path: syn::Path = meta.value()?.parse().map_err(|e| {
                        syn::Error::new(e.span(), "`complete` names an async function: `complete = path::to::function`")
                    })?;
                    set(&mut complete, Some(path), &meta, errors);
                }
                _ => unknown(&meta, "#[arg]", ARG_KEYS, errors)?,
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    TextArg { rename, description, complete }
}

/// The whole `#[prompt]` expansion.
pub(crate) fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = parse_attr(args, &mut errors);
    let mut item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "`#[prompt]` goes on a function: write `#[prompt] fn name(arg: String) -> Vec<PromptMessage> { … }`",
            )
            .into_compile_error();
            return quote!(#err #input);
        }
    };
    let krate = internals::krate(attr.krate.as_ref());
    let (name, name_span) = internals::wire_name(attr.name.as_ref(), &item);
    signature::check_name(Kind::Prompt, &name, name_span, attr.name.is_some(), &mut errors);
    let params = params::take(&mut item, Kind::Prompt, &mut errors, arg_attr);
    params::check_unique(params.iter().map(|p| (p.name.as_str(), p.name_span)), Kind::Prompt, &mut errors);
    signature::check(&item, Kind::Prompt, &mut errors);
    let doc = Doc::from_attrs(&item.attrs);
    if !errors.is_empty() {
        let errors = errors.into_compile_errors();
        return quote!(#item #errors);
    }
    expand(&item, &attr, &krate, &name, &doc, &params)
}

fn expand(
    item: &ItemFn,
    attr: &PromptAttr,
    krate: &TokenStream,
    name: &str,
    doc: &Doc,
    params: &[Param],
) -> TokenStream {
    let ident = &item.sig.ident;
    let fn_name = unraw(ident);
    let description = crate::shared::text_or_doc(attr.description.as_ref(), doc, krate);
    let title = crate::shared::optional(attr.title.as_ref(), krate);
    let icons = attr.icons.iter().map(|icon| crate::shared::icon(icon, krate));
    let timeout = crate::shared::timeout(attr.timeout, krate);
    let meta = crate::shared::meta(&attr.meta);
    let scopes = crate::shared::scopes(attr.scopes.as_deref());
    let param_consts = params.iter().enumerate().map(|(i, p)| {
        let (ty, pname) = (&p.ty, &p.name);
        let description = match &p.arg.description {
            Some(d) => quote!(#krate::__private::Some(#d)),
            None => p.doc.to_option_tokens(krate),
        };
        let describe = quote_spanned! {ty.span()=>
            <#ty as #krate::__private::PromptParam<_>>::describe(__mcp_builder, #pname, #description);
        };
        let extract = quote_spanned! {ty.span()=>
            <#ty as #krate::__private::PromptParam<_>>::extract(__mcp_request, #pname)
        };
        crate::shared::param_const(i, ty, krate, "PromptBuilder", describe, extract)
    });
    let describes = params.iter().enumerate().map(|(i, p)| {
        let pname = &p.name;
        let complete = p.arg.complete.as_ref().map(|path| {
            quote_spanned!(path.span()=> __mcp_builder.complete_with(#pname, #krate::__private::completer(#path));)
        });
        let describe = crate::shared::param_describe(i);
        quote!(#describe #complete)
    });
    let vars: Vec<_> = (0..params.len()).map(|i| format_ident!("__mcp_arg{i}")).collect();
    let request = format_ident!("__mcp_request");
    let extracts = vars.iter().enumerate().map(|(i, var)| crate::shared::param_value(i, var, &request));
    let output_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => ident.span(),
    };
    let into_result = quote_spanned! {output_span=>
        #krate::__private::IntoPromptResult::into_prompt_result(__mcp_out)
    };
    let run = crate::shared::run(item, &vars, krate, into_result);
    let bind = crate::shared::bind_or_fail(&vars, krate, "into_prompt_error");
    let companion = crate::shared::companion(item, "Prompt");
    let generated = quote! {
            #(#param_consts)*
            #[automatically_derived]
            impl #krate::__private::Prompt for #ident::Prompt {
                fn definition(&self) -> #krate::__private::PromptDefinition {
                    let mut __mcp_builder = #krate::__private::PromptBuilder::new(#name, ::core::module_path!(), #fn_name);
                    __mcp_builder.description(#description);
                    __mcp_builder.title(#title);
                    #timeout
                    #(#icons)*
                    #(#meta)*
                    #scopes
                    #(#describes)*
                    __mcp_builder.build()
                }

                fn get(
                    &self,
                    mut __mcp_request: #krate::__private::RequestParts,
                ) -> #krate::__private::BoxFuture<'static, #krate::__private::Rendered> {
                    let mut __mcp_errors = #krate::__private::ParamErrors::new();
                    #(#extracts)*
                    #bind
                    #run
                }
            }
            #krate::__private::inventory::submit! {
                #krate::__private::Registration::<dyn #krate::__private::Prompt>::new(&#ident::Prompt)
            }
    };
    let generated = crate::shared::versioned(krate, "prompt", generated);
    quote! {
        #[allow(clippy::needless_pass_by_value, clippy::missing_const_for_fn)]
        #item
        #companion
        #generated
    }
}
