//! `#[resource("uri", …)]`: parse → model → validate → expand, as for
//! `#[tool]`. The URI (or URI template) is checked here, and so is the
//! match between its variables and the function's parameters, each
//! mistake at its token; whether a type can be read from text or is
//! injected is left to the runtime's traits, which report at the type.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, ItemFn, Lit, LitFloat, LitInt, LitStr, ReturnType, Token, Type};

use crate::attr::{Common, key_of, set, string, unknown, unraw};
use crate::doc::Doc;
use crate::errors::Errors;
use crate::internals::{self, Kind, params, signature};
use crate::suggest::did_you_mean;

const RESOURCE_KEYS: &[&str] =
    &["name", "title", "description", "mime_type", "size", "annotations", "timeout", "icon", "meta", "scopes", "crate"];
const ANNOTATION_KEYS: &[&str] = &["audience", "priority", "last_modified"];
const HOW: &str = "write `#[resource(\"scheme://path\")]` or `#[resource(\"scheme://{variable}\")]`";

/// The arguments of `#[resource(...)]`.
#[derive(Default)]
struct ResourceAttr {
    common: Common,
    uri: Option<LitStr>,
    mime_type: Option<LitStr>,
    size: Option<LitInt>,
    audience: Option<Vec<LitStr>>,
    priority: Option<LitFloat>,
    last_modified: Option<LitStr>,
}

impl std::ops::Deref for ResourceAttr {
    type Target = Common;

    fn deref(&self) -> &Common {
        &self.common
    }
}

/// The URI first, then `key = value` pairs.
struct Args {
    uri: Option<LitStr>,
    rest: TokenStream,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            let uri: LitStr = input.parse()?;
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
            return Ok(Args { uri: Some(uri), rest: input.parse()? });
        }
        Ok(Args { uri: None, rest: input.parse()? })
    }
}

impl ResourceAttr {
    fn parse(args: TokenStream, errors: &mut Errors) -> ResourceAttr {
        let mut attr = ResourceAttr::default();
        let args = match syn::parse2::<Args>(args) {
            Ok(args) => args,
            Err(e) => {
                errors.push(e);
                return attr;
            }
        };
        attr.uri = args.uri;
        let parser = syn::meta::parser(|meta| {
            if attr.common.key(&meta, errors)? {
                return Ok(());
            }
            match key_of(&meta).as_str() {
                "mime_type" => set(&mut attr.mime_type, string(&meta, errors)?, &meta, errors),
                // #[resource("…", size = 1024)]
                "size" => {
                    let size = meta
                        .value()?
                        .parse::<LitInt>()
                        .map_err(|e| syn::Error::new(e.span(), "`size` is a number of bytes: `size = 1024`"))?;
                    set(&mut attr.size, Some(size), &meta, errors);
                }
                // annotations(audience = ["user"], priority = 0.5, last_modified = "2025-01-12T15:00:58Z")
                "annotations" => annotations(&meta, &mut attr, errors)?,
                _ => unknown(&meta, "#[resource]", RESOURCE_KEYS, errors)?,
            }
            Ok(())
        });
        if let Err(e) = parser.parse2(args.rest) {
            errors.push(e);
        }
        attr
    }
}

fn annotations(meta: &ParseNestedMeta, attr: &mut ResourceAttr, errors: &mut Errors) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error("`annotations` takes entries: `annotations(audience = [\"user\"], priority = 0.5)`"));
    }
    meta.parse_nested_meta(|inner| {
        match key_of(&inner).as_str() {
            "audience" => {
                let array: ExprArray = inner.value()?.parse().map_err(|e| {
                    syn::Error::new(e.span(), "`audience` takes an array: `audience = [\"user\", \"assistant\"]`")
                })?;
                let mut list = Vec::new();
                for element in array.elems {
                    match element {
                        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })
                            if matches!(s.value().as_str(), "user" | "assistant") =>
                        {
                            list.push(s)
                        }
                        other => errors.spanned(other, "an audience is \"user\" or \"assistant\""),
                    }
                }
                set(&mut attr.audience, Some(list), &inner, errors);
            }
            "priority" => {
                let value: Lit = inner.value()?.parse()?;
                let priority = match &value {
                    Lit::Float(f) => f.base10_parse::<f64>().ok().map(|p| (p, f.clone())),
                    Lit::Int(i) => {
                        i.base10_parse::<f64>().ok().map(|p| (p, LitFloat::new(&format!("{p:.1}"), i.span())))
                    }
                    _ => None,
                };
                match priority {
                    Some((p, lit)) if (0.0..=1.0).contains(&p) => set(&mut attr.priority, Some(lit), &inner, errors),
                    _ => errors.spanned(&value, "`priority` is a number from 0 (least important) to 1 (most)"),
                }
            }
            "last_modified" => set(&mut attr.last_modified, string(&inner, errors)?, &inner, errors),
            _ => unknown(&inner, "annotations(…)", ANNOTATION_KEYS, errors)?,
        }
        Ok(())
    })
}

/// One variable of a URI template.
struct Variable {
    name: String,
    /// A `{?a,b}` query variable, which a URI may leave out.
    query: bool,
}

/// The variables of `template`, or what is wrong with its syntax.
fn variables(template: &str) -> Result<Vec<Variable>, String> {
    let mut found: Vec<Variable> = Vec::new();
    let mut rest = template;
    let mut seen_query = false;
    while let Some(open) = rest.find('{') {
        if rest[..open].contains('}') {
            return Err("`}` without a `{`".into());
        }
        if seen_query {
            return Err("a query expression `{?…}` must come last".into());
        }
        let close = rest[open..].find('}').ok_or("a `{` is never closed")? + open;
        let expression = &rest[open + 1..close];
        let (names, query) = match expression.as_bytes().first() {
            Some(b'+') => (&expression[1..], false),
            Some(b'?') => (&expression[1..], true),
            Some(c) if !c.is_ascii_alphanumeric() && *c != b'_' => {
                return Err(format!(
                    "`{{{expression}}}` uses an operator resources do not support; use `{{name}}`, `{{+name}}` or `{{?a,b}}`"
                ));
            }
            _ => (expression.strip_suffix('*').unwrap_or(expression), false),
        };
        for name in names.split(',') {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("`{name}` is not a variable name (letters, digits and `_`)"));
            }
            if found.iter().any(|v| v.name == name) {
                return Err(format!("the variable `{name}` appears twice"));
            }
            found.push(Variable { name: name.to_owned(), query });
        }
        seen_query |= query;
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return Err("`}` without a `{`".into());
    }
    if seen_query && !rest.is_empty() {
        return Err("a query expression `{?…}` must come last".into());
    }
    Ok(found)
}

/// One parameter, and what supplies it.
struct Param {
    name: String,
    ty: Type,
    /// A template variable (by name), else an injected value.
    variable: bool,
    /// `#[arg(complete = f)]`: the variable's completion function.
    complete: Option<syn::Path>,
}

/// The whole `#[resource]` expansion.
pub(crate) fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ResourceAttr::parse(args, &mut errors);
    let mut item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new(Span::call_site(), format_args!("`#[resource]` goes on a function: {HOW}"));
            let err = err.into_compile_error();
            return quote!(#err #input);
        }
    };
    let krate = internals::krate(attr.krate.as_ref());
    let template = check_uri(&attr, &mut errors);
    let params = params(&mut item, attr.uri.as_ref(), template.as_deref().unwrap_or(&[]), &mut errors);
    signature::check(&item, Kind::Resource, &mut errors);
    if let (Some(size), Some(vars)) = (&attr.size, &template)
        && !vars.is_empty()
    {
        errors.spanned(size, "a template names many resources, so it has no one `size`; remove `size`");
    }
    let doc = Doc::from_attrs(&item.attrs);
    if !errors.is_empty() {
        let errors = errors.into_compile_errors();
        return quote!(#item #errors);
    }
    expand(&item, &attr, &krate, &doc, &params)
}

/// The URI is the attribute's first argument; a template's syntax is
/// checked here. Returns the template's variables (none for a fixed URI).
fn check_uri(attr: &ResourceAttr, errors: &mut Errors) -> Option<Vec<Variable>> {
    let Some(uri) = &attr.uri else {
        errors.push(syn::Error::new(Span::call_site(), format_args!("a resource needs its URI: {HOW}")));
        return None;
    };
    let value = uri.value();
    let scheme_ok = value.split_once(':').is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && !rest.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !scheme_ok {
        errors.spanned(
            uri,
            format_args!(
                "\"{value}\" is not a URI: it starts with a scheme, as in \"config://app\" or \"file:///{{+path}}\""
            ),
        );
        return None;
    }
    match variables(&value) {
        Ok(vars) => Some(vars),
        Err(why) => {
            errors.spanned(uri, format_args!("malformed URI template: {why}"));
            None
        }
    }
}

/// The parameters: a name that is a template variable reads it; any other
/// is injected. Template variables without a parameter, and parameters
/// that look like a misspelled variable, are reported.
fn params(item: &mut ItemFn, uri: Option<&LitStr>, vars: &[Variable], errors: &mut Errors) -> Vec<Param> {
    let mut params = Vec::new();
    for taken in params::take(item, Kind::Resource, errors, crate::prompt::arg_attr) {
        for lit in taken.arg.rename.iter().chain(&taken.arg.description) {
            errors
                .spanned(lit, "a resource parameter takes only `#[arg(complete = f)]`: it is named after its variable");
        }
        let name = unraw(&taken.ident);
        let variable = vars.iter().any(|v| v.name == name);
        if !variable && let Some(close) = did_you_mean(&name, &vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>())
        {
            errors.spanned(
                &taken.ident,
                format_args!("`{name}` is no variable of the URI template; did you mean `{close}`?"),
            );
        }
        let complete = taken.arg.complete;
        if let (Some(path), false) = (&complete, variable) {
            errors.spanned(path, format_args!("`{name}` is no template variable, so there is nothing to complete"));
        }
        params.push(Param { name, ty: taken.ty, variable, complete });
    }
    for var in vars {
        if !params.iter().any(|p| p.name == var.name) {
            let names: Vec<&str> = params.iter().filter(|p| !p.variable).map(|p| p.name.as_str()).collect();
            let ty = if var.query { "Option<T>" } else { "T" };
            let hint = match did_you_mean(&var.name, &names) {
                Some(close) => format!("; did you mean to name the parameter `{close}` `{}`?", var.name),
                None => {
                    format!("; add a parameter `{}: {ty}` (a parameter reads the variable it is named after)", var.name)
                }
            };
            let message = format!("the URI template's variable `{}` is read by no parameter{hint}", var.name);
            match uri {
                Some(uri) => errors.spanned(uri, message),
                None => errors.push(syn::Error::new(item.sig.ident.span(), message)),
            }
        }
    }
    params
}

fn expand(item: &ItemFn, attr: &ResourceAttr, krate: &TokenStream, doc: &Doc, params: &[Param]) -> TokenStream {
    let ident = &item.sig.ident;
    let fn_name = unraw(ident);
    let uri = attr.uri.as_ref().expect("checked");
    let description = crate::shared::text_or_doc(attr.description.as_ref(), doc, krate);
    let title = crate::shared::optional(attr.title.as_ref(), krate);
    let name = attr.name.iter().map(|n| quote!(__mcp_builder.name(#n);));
    let mime = attr.mime_type.iter().map(|m| quote!(__mcp_builder.mime_type(#m);));
    let mime_opt = match &attr.mime_type {
        Some(m) => quote!(#krate::__private::Some(#m)),
        None => quote!(#krate::__private::None),
    };
    let size = attr.size.iter().map(|s| quote!(__mcp_builder.size(#s);));
    let audience = attr.audience.iter().map(|a| quote!(__mcp_builder.audience(&[#(#a),*]);));
    let priority = attr.priority.iter().map(|p| quote!(__mcp_builder.priority(#p);));
    let last_modified = attr.last_modified.iter().map(|l| quote!(__mcp_builder.last_modified(#l);));
    let timeout = crate::shared::timeout(attr.timeout, krate);
    let icons = attr.icons.iter().map(|icon| crate::shared::icon(icon, krate));
    let meta = crate::shared::meta(&attr.meta);
    let scopes = crate::shared::scopes(attr.scopes.as_deref());
    let param_consts = params.iter().enumerate().map(|(i, p)| {
        let (ty, name) = (&p.ty, &p.name);
        let (describe, extract) = if p.variable {
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
        crate::shared::param_const(i, ty, krate, "ResourceBuilder", describe, extract)
    });
    let describes = params.iter().enumerate().map(|(i, p)| {
        let name = &p.name;
        let complete = p.complete.as_ref().filter(|_| p.variable).map(|path| {
            quote_spanned!(path.span()=> __mcp_builder.complete_with(#name, #krate::__private::completer(#path));)
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
    let into_contents = quote_spanned! {output_span=>
        #krate::__private::IntoResourceContents::into_contents(__mcp_out, &__mcp_uri, #mime_opt)
    };
    let run = crate::shared::run(item, &vars, krate, into_contents);
    let bind = crate::shared::bind_or_fail(&vars, krate, "into_resource_error");
    let companion = crate::shared::companion(item, "Resource");
    let generated = quote! {
            #(#param_consts)*
            #[automatically_derived]
            impl #krate::__private::Resource for #ident::Resource {
                fn definition(&self) -> #krate::__private::ResourceDefinition {
                    let mut __mcp_builder = #krate::__private::ResourceBuilder::new(#uri, ::core::module_path!(), #fn_name);
                    __mcp_builder.description(#description);
                    __mcp_builder.title(#title);
                    #(#name)* #(#mime)* #(#size)* #(#audience)* #(#priority)* #(#last_modified)*
                    #timeout
                    #(#icons)*
                    #(#meta)*
                    #scopes
                    #(#describes)*
                    __mcp_builder.build()
                }

                fn read(
                    &self,
                    mut __mcp_request: #krate::__private::RequestParts,
                ) -> #krate::__private::BoxFuture<'static, #krate::__private::Contents> {
                    let mut __mcp_errors = #krate::__private::ParamErrors::new();
                    #(#extracts)*
                    #bind
                    let __mcp_uri = #krate::__private::RequestParts::target(&__mcp_request).to_owned();
                    #run
                }
            }
            #krate::__private::inventory::submit! {
                #krate::__private::Registration::<dyn #krate::__private::Resource>::new(&#ident::Resource)
            }
    };
    let generated = crate::shared::versioned(krate, "resource", generated);
    quote! {
        #[allow(clippy::needless_pass_by_value, clippy::missing_const_for_fn)]
        #item
        #companion
        #generated
    }
}
