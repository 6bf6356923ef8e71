//! "Did you mean …?" for misspelled attribute keys.

/// The known key `key` was most likely meant as, if any is close enough.
///
/// Keys are first normalized the way people misremember them: the spec's
/// camelCase (`readOnlyHint`), dashes, and a trailing `_hint`. Then the
/// closest key by edit distance wins, if it is within a third of the length.
pub(crate) fn did_you_mean<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let normal = normalize(key);
    if let Some(exact) = known.iter().find(|k| **k == normal) {
        return Some(exact);
    }
    known
        .iter()
        .map(|k| (strsim::osa_distance(&normal, k), *k))
        .filter(|(d, k)| *d <= (k.len().max(normal.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// `readOnlyHint` → `read_only`, `open-world` → `open_world`.
fn normalize(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c == '-' {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    match out.strip_suffix("_hint") {
        Some(stem) => stem.to_owned(),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&str] = &["name", "title", "description", "read_only", "open_world", "timeout", "crate"];

    #[test]
    fn close_and_respelled_keys_are_suggested() {
        assert_eq!(did_you_mean("read_onyl", KEYS), Some("read_only"));
        assert_eq!(did_you_mean("readonly", KEYS), Some("read_only"));
        assert_eq!(did_you_mean("readOnlyHint", KEYS), Some("read_only"));
        assert_eq!(did_you_mean("open-world", KEYS), Some("open_world"));
        assert_eq!(did_you_mean("descripton", KEYS), Some("description"));
        assert_eq!(did_you_mean("timout", KEYS), Some("timeout"));
        assert_eq!(did_you_mean("nmae", KEYS), Some("name"));
    }

    #[test]
    fn distant_keys_get_no_guess() {
        assert_eq!(did_you_mean("colour", KEYS), None);
        assert_eq!(did_you_mean("x", KEYS), None);
    }
}
