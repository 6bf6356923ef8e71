//! `#[tool]`: parse → model → check → expand, or the fallback when the
//! model has errors ([`emit::expansion`]). A tool's model is the function
//! model every attribute shares, with the keys of `#[tool(...)]`; what a
//! parameter *is* is left to the runtime's traits.

mod attr;
mod check;
mod expand;

use proc_macro2::TokenStream;

use crate::emit;
use crate::internals::Kind;
use crate::internals::errors::Errors;
use attr::ToolAttr;

/// The whole `#[tool]` expansion.
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let attr = ToolAttr::parse(args, &mut errors);
    emit::expansion(
        Kind::Tool,
        input,
        &attr.common,
        errors,
        |function, errors| check::check(function, &attr, errors),
        |function| expand::expand(function, &attr),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internals::attr::arg::DefaultValue;
    use crate::internals::function::Function;
    use quote::quote;
    use syn::{FnArg, LitStr};

    /// A tool's model: its function and its attribute.
    struct Model {
        function: Function,
        attr: ToolAttr,
    }

    fn model(args: TokenStream, item: TokenStream) -> (Model, Vec<String>) {
        let mut errors = Errors::default();
        let attr = ToolAttr::parse(args, &mut errors);
        let function = Function::from_syn(syn::parse2(item).unwrap(), Kind::Tool, &attr.common, &mut errors);
        check::check(&function, &attr, &mut errors);
        (Model { function, attr }, errors.messages())
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
        let params = &tool.function.params;
        assert_eq!(tool.function.name, "calc.add");
        assert_eq!(tool.attr.common.timeout, Some(2_000));
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "right", "c"]);
        assert!(!params[0].doc.is_empty());
        assert_eq!(params[1].arg.description.as_ref().map(LitStr::value).as_deref(), Some("Right"));
        assert!(matches!(params[1].arg.default, Some(DefaultValue::Expr(_))));
        assert!(params[2].arg.default.is_none());
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
        let item = &tool.function.item;
        let FnArg::Typed(param) = &item.sig.inputs[0] else { panic!("a typed parameter") };
        let kept: Vec<String> = param.attrs.iter().map(|a| quote!(#a).to_string()).collect();
        assert_eq!(kept, ["# [serde (skip)]"]);
        assert_eq!(item.attrs.len(), 1, "the function keeps its own doc");
    }

    #[test]
    fn an_attribute_description_documents_an_undocumented_function() {
        let (tool, _) = model(
            quote!(description = "Say hi."),
            quote!(
                fn hi() {}
            ),
        );
        let doc = &tool.function.item.attrs[0];
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
            "must be plain identifiers",
            "cannot take `self`",
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
