//! The model of one `#[tool]` function, built from the parsed `ItemFn`.
//!
//! Its parameters come from the one parameter model every attribute
//! shares ([`internals::params`]); a tool's own view adds what `#[arg]`
//! says only of tools (defaults, headers) and takes `&T` as `T` by
//! reference. The model decides nothing about what a parameter *is*: the
//! runtime's traits do.

use proc_macro2::{Span, TokenStream};
use syn::{ItemFn, LitStr, Type};

use crate::attr::{ArgAttr, DefaultValue, ToolAttr};
use crate::doc::Doc;
use crate::errors::Errors;
use crate::internals::{self, Kind, params};

pub(crate) struct ToolFn {
    /// The user's function, minus our helper attributes.
    pub(crate) item: ItemFn,
    pub(crate) attr: ToolAttr,
    /// `::mcp_runtime` unless `#[tool(crate = "…")]` says otherwise.
    pub(crate) krate: TokenStream,
    /// The tool's name on the wire.
    pub(crate) name: String,
    /// Where to point when the name is wrong.
    pub(crate) name_span: Span,
    pub(crate) doc: Doc,
    pub(crate) params: Vec<Param>,
}

pub(crate) struct Param {
    /// The argument's name on the wire.
    pub(crate) name: String,
    pub(crate) name_span: Span,
    /// The type of the value the runtime produces: for `ctx: &Context`,
    /// `Context` (then `by_ref` is set and the function gets `&value`).
    pub(crate) ty: Type,
    pub(crate) by_ref: bool,
    pub(crate) doc: Doc,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<DefaultValue>,
    /// `#[arg(header = "…")]`: the `Mcp-Param-*` header mirroring it.
    pub(crate) header: Option<LitStr>,
}

impl ToolFn {
    pub(crate) fn from_syn(mut item: ItemFn, attr: ToolAttr, errors: &mut Errors) -> ToolFn {
        let krate = internals::krate(attr.krate.as_ref());
        let (name, name_span) = internals::wire_name(attr.name.as_ref(), &item);
        let taken = params::take(&mut item, Kind::Tool, errors, ArgAttr::parse);
        let doc = Doc::from_attrs(&item.attrs);
        // A description given in the attribute also documents the function,
        // so `missing_docs` and rustdoc see what clients see.
        if doc.is_empty()
            && let Some(description) = &attr.description
        {
            item.attrs.push(syn::parse_quote!(#[doc = #description]));
        }
        let params = taken
            .into_iter()
            .map(|p| {
                let (ty, by_ref) = match p.ty {
                    Type::Reference(r) if r.mutability.is_none() => (*r.elem, true),
                    other => (other, false),
                };
                Param {
                    name: p.name,
                    name_span: p.name_span,
                    ty,
                    by_ref,
                    doc: p.doc,
                    description: p.arg.description,
                    default: p.arg.default,
                    header: p.arg.header,
                }
            })
            .collect();
        ToolFn { item, attr, krate, name, name_span, doc, params }
    }
}

impl params::ArgKeys for ArgAttr {
    fn rename(&self) -> Option<&LitStr> {
        self.rename.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::valid;
    use proc_macro2::TokenStream;
    use quote::quote;
    use syn::FnArg;

    fn model(args: TokenStream, item: TokenStream) -> (ToolFn, Vec<String>) {
        let mut errors = Errors::default();
        let attr = ToolAttr::parse(args, &mut errors);
        let tool = ToolFn::from_syn(syn::parse2(item).unwrap(), attr, &mut errors);
        valid::check(&tool, &mut errors);
        (tool, errors.messages())
    }

    #[test]
    fn parameters_take_names_docs_and_defaults_from_their_attributes() {
        let (tool, errors) = model(
            quote!(name = "calc.add", timeout = "2s"),
            quote! {
                /// Add.
                async fn add(
                    /// Left
                    a: f64,
                    #[arg(rename = "right", description = "Right", default = 1.0)] r#b: f64,
                    #[serde(skip)] c: Option<u8>,
                ) -> f64 { a + b }
            },
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(tool.name, "calc.add");
        assert_eq!(tool.attr.common.timeout, Some(2_000));
        let names: Vec<&str> = tool.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "right", "c"]);
        assert!(!tool.params[0].doc.is_empty());
        assert_eq!(tool.params[1].description.as_ref().map(LitStr::value).as_deref(), Some("Right"));
        assert!(matches!(tool.params[1].default, Some(DefaultValue::Expr(_))));
        assert!(tool.params[2].default.is_none());
    }

    #[test]
    fn helper_attributes_leave_the_function_and_others_stay() {
        let (tool, _) = model(
            quote!(),
            quote! {
                /// Doc.
                fn f(/// Doc
                     #[arg(rename = "y")] #[serde(skip)] x: u8) {}
            },
        );
        let FnArg::Typed(param) = &tool.item.sig.inputs[0] else { panic!("a typed parameter") };
        let kept: Vec<String> = param.attrs.iter().map(|a| quote!(#a).to_string()).collect();
        assert_eq!(kept, ["# [serde (skip)]"]);
        assert_eq!(tool.item.attrs.len(), 1, "the function keeps its own doc");
    }

    #[test]
    fn an_attribute_description_documents_an_undocumented_function() {
        let (tool, _) = model(
            quote!(description = "Say hi."),
            quote!(
                fn hi() {}
            ),
        );
        let doc = &tool.item.attrs[0];
        assert_eq!(quote!(#doc).to_string(), "# [doc = \"Say hi.\"]");
    }

    #[test]
    fn every_mistake_in_one_function_is_collected() {
        let (_, errors) = model(
            quote!(name = "bad name", read_only = 1, colour),
            quote! {
                #[arg(rename = "z")]
                const fn f<T>(&self, (a, b): (u8, u8), #[arg(rename = "x")] c: u8, #[arg(rename = "x")] d: impl Copy) {}
            },
        );
        let expected = [
            "`read_only` is a flag",
            "unknown `#[tool]` argument `colour`",
            "`#[arg(...)]` goes on a parameter",
            "cannot take `self`",
            "must be plain identifiers",
            "cannot be `const`",
            "does not support generic functions",
            "`impl Trait` parameters are generic",
            "tool name `bad name` contains ' '",
            "two parameters are named `x`",
        ];
        assert_eq!(errors.len(), expected.len(), "{errors:#?}");
        for (error, fragment) in errors.iter().zip(expected) {
            assert!(error.contains(fragment), "{error:?} should contain {fragment:?}");
        }
    }
}
