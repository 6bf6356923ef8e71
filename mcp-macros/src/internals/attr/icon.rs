//! `icon = "…"` and `icon(src = "…", mime_type = "…", sizes = […], theme = "…")`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{LitStr, Token};

use super::{key_of, set, string, string_array, unknown};
use crate::internals::errors::Errors;

const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];

/// One `icon = "…"` or `icon(src = "…", …)`.
pub(crate) struct IconAttr {
    pub(crate) src: LitStr,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Vec<LitStr>,
    pub(crate) theme: Option<LitStr>,
}

/// One `icon = "…"` or `icon(…)`; `None` after reporting a bad one.
pub(crate) fn icon(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<IconAttr>> {
    if meta.input.peek(Token![=]) {
        let Some(src) = string(meta, errors)? else { return Ok(None) };
        return Ok(check_src(&src, errors).then_some(IconAttr {
            src,
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }));
    }
    if !meta.input.peek(syn::token::Paren) {
        return Err(
            meta.error("`icon` needs a source: `icon = \"https://…\"` or `icon(src = \"…\", mime_type = \"…\")`")
        );
    }
    let (mut src, mut mime_type, mut sizes, mut theme) = (None, None, None::<Vec<LitStr>>, None);
    let span = meta.path.get_ident().map_or_else(Span::call_site, |i| i.span());
    meta.parse_nested_meta(|inner| {
        match key_of(&inner).as_str() {
            "src" => set(&mut src, string(&inner, errors)?, &inner, errors),
            "mime_type" => set(&mut mime_type, string(&inner, errors)?, &inner, errors),
            // sizes = ["48x48", "any"]
            "sizes" => {
                let how = "`sizes` takes an array of strings: `sizes = [\"48x48\", \"any\"]`";
                let wrong = "an icon size is \"<width>x<height>\" (e.g. \"48x48\") or \"any\"";
                let list = string_array(&inner, how, wrong, valid_size, errors)?;
                set(&mut sizes, Some(list), &inner, errors);
            }
            "theme" => {
                let lit = string(&inner, errors)?.filter(|lit| {
                    let ok = matches!(lit.value().as_str(), "light" | "dark");
                    if !ok {
                        errors.spanned(lit, "an icon theme is \"light\" or \"dark\"");
                    }
                    ok
                });
                set(&mut theme, lit, &inner, errors);
            }
            _ => unknown(&inner, "icon(…)", ICON_KEYS, errors)?,
        }
        Ok(())
    })?;
    let Some(src) = src else {
        errors.push(syn::Error::new(span, "`icon(…)` needs `src = \"https://…\"`"));
        return Ok(None);
    };
    Ok(check_src(&src, errors).then_some(IconAttr { src, mime_type, sizes: sizes.unwrap_or_default(), theme }))
}

/// Icons are fetched or decoded by clients, which accept these schemes.
fn check_src(src: &LitStr, errors: &mut Errors) -> bool {
    let value = src.value();
    let ok = ["https://", "http://", "data:"].iter().any(|scheme| value.starts_with(scheme)) && value.len() > 8;
    if !ok {
        errors.spanned(src, "an icon `src` is an `https://` URL or a `data:` URI");
    }
    ok
}

fn valid_size(size: &str) -> bool {
    size == "any"
        || size
            .split_once('x')
            .is_some_and(|(w, h)| [w, h].iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
}
