//! `#[resource("uri", ...)]`: the URI first, then the keys of resources
//! alone, read after those every attribute takes.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::{Lit, LitFloat, LitInt, LitStr, Token};

use crate::internals::Kind;
use crate::internals::attr::common::{self, Common};
use crate::internals::attr::{key_of, set, string, string_array, unknown};
use crate::internals::errors::Errors;

const RESOURCE_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "mime_type",
    "size",
    "annotations",
    "timeout",
    "icon",
    "meta",
    "scopes",
    "tags",
    "crate",
];
const ANNOTATION_KEYS: &[&str] = &["audience", "priority", "last_modified"];

/// The arguments of `#[resource(...)]`.
#[derive(Default)]
pub(crate) struct ResourceAttr {
    pub(crate) common: Common,
    pub(crate) uri: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) size: Option<LitInt>,
    pub(crate) annotations: Annotations,
}

/// `annotations(…)`: hints for clients.
#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) audience: Option<Vec<LitStr>>,
    pub(crate) priority: Option<LitFloat>,
    pub(crate) last_modified: Option<LitStr>,
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
    /// Read `#[resource(<args>)]`.
    pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> ResourceAttr {
        let mut attr = ResourceAttr::default();
        let args = match syn::parse2::<Args>(args) {
            Ok(args) => args,
            Err(e) => {
                errors.push(e);
                return attr;
            }
        };
        attr.uri = args.uri;
        common::parse(args.rest, Kind::Resource, RESOURCE_KEYS, &mut attr.common, errors, |meta, errors| {
            match key_of(meta).as_str() {
                "mime_type" => set(&mut attr.mime_type, string(meta, errors)?, meta, errors),
                // #[resource("…", size = 1024)]
                "size" => {
                    let size = meta
                        .value()?
                        .parse::<LitInt>()
                        .map_err(|e| syn::Error::new(e.span(), "`size` is a number of bytes: `size = 1024`"))?;
                    set(&mut attr.size, Some(size), meta, errors);
                }
                // annotations(audience = ["user"], priority = 0.5, last_modified = "2025-01-12T15:00:58Z")
                "annotations" => annotations(meta, &mut attr.annotations, errors)?,
                _ => return Ok(false),
            }
            Ok(true)
        });
        attr
    }
}

fn annotations(meta: &ParseNestedMeta, attr: &mut Annotations, errors: &mut Errors) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error("`annotations` takes entries: `annotations(audience = [\"user\"], priority = 0.5)`"));
    }
    meta.parse_nested_meta(|inner| {
        match key_of(&inner).as_str() {
            "audience" => {
                let how = "`audience` takes an array: `audience = [\"user\", \"assistant\"]`";
                let wrong = "an audience is \"user\" or \"assistant\"";
                let list = string_array(&inner, how, wrong, |a| matches!(a, "user" | "assistant"), errors)?;
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
