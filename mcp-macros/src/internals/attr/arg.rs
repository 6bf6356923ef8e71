//! `#[arg(...)]` on a parameter: one reader for every attribute, each
//! taking the keys [`Kind::arg_keys`] lists.

use proc_macro2::Span;
use syn::{Attribute, Expr, LitStr, Token};

use super::{key_of, set, string, unknown};
use crate::internals::Kind;
use crate::internals::errors::Errors;

/// The arguments of `#[arg(...)]` on one parameter.
#[derive(Default)]
pub(crate) struct ArgAttr {
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    /// Tools: the value of an argument left out.
    pub(crate) default: Option<DefaultValue>,
    /// Tools: `header = "Region"`, mirrored in the `Mcp-Param-Region` header.
    pub(crate) header: Option<LitStr>,
    /// Prompts and resources: an async `fn(Completing) -> Vec<String>`
    /// completing the value.
    pub(crate) complete: Option<syn::Path>,
}

/// Where an argument's default comes from.
pub(crate) enum DefaultValue {
    /// `#[arg(default)]`: the type's `Default`; the span is the key's.
    Trait(Span),
    /// `#[arg(default = <expr>)]`.
    Expr(Expr),
}

impl ArgAttr {
    /// Parse every `#[arg(...)]` in `attrs` into one `ArgAttr`, with the
    /// keys `kind`'s parameters take.
    pub(crate) fn parse(attrs: &[Attribute], kind: Kind, errors: &mut Errors) -> ArgAttr {
        let keys = kind.arg_keys();
        let mut arg = ArgAttr::default();
        for attr in attrs {
            let result = attr.parse_nested_meta(|meta| {
                match key_of(&meta).as_str() {
                    key if !keys.contains(&key) => unknown(&meta, "#[arg]", keys, errors)?,
                    // #[arg(rename = "…")]
                    "rename" => set(&mut arg.rename, string(&meta, errors)?, &meta, errors),
                    // #[arg(description = "…")]
                    "description" => set(&mut arg.description, string(&meta, errors)?, &meta, errors),
                    // #[arg(default)] or #[arg(default = <expr>)]
                    "default" => {
                        let value = if meta.input.peek(Token![=]) {
                            DefaultValue::Expr(meta.value()?.parse()?)
                        } else {
                            DefaultValue::Trait(meta.path.get_ident().map_or_else(Span::call_site, |i| i.span()))
                        };
                        set(&mut arg.default, Some(value), &meta, errors);
                    }
                    // #[arg(header = "Region")]
                    "header" => {
                        let header = string(&meta, errors)?.filter(|lit| {
                            let ok = is_header_token(&lit.value());
                            if !ok {
                                errors.spanned(
                                    lit,
                                    "a header name is letters, digits and !#$%&'*+-.^_`|~, such as \"Region\" (sent as `Mcp-Param-Region`)",
                                );
                            }
                            ok
                        });
                        set(&mut arg.header, header, &meta, errors);
                    }
                    // #[arg(complete = cities)]: an async fn(Completing) -> Vec<String>
                    "complete" => {
                        let path: syn::Path = meta.value()?.parse().map_err(|e| {
                            syn::Error::new(e.span(), "`complete` names an async function: `complete = path::to::function`")
                        })?;
                        set(&mut arg.complete, Some(path), &meta, errors);
                    }
                    // Every key `Kind::arg_keys` lists has its arm above.
                    _ => unknown(&meta, "#[arg]", keys, errors)?,
                }
                Ok(())
            });
            if let Err(e) = result {
                errors.push(e);
            }
        }
        arg
    }
}

/// RFC 9110 §5.6.2: the characters of an HTTP field name.
fn is_header_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}
