//! RFC 6570 URI templates as resources use them: parse, match a URI and
//! extract its variables (percent-decoded), and tell whether two templates
//! can match one URI.
//!
//! Supported: `{var}` (one path segment: never `/`, `?` or `#`), `{+var}`
//! and `{var*}` (any text, `/` included), and `{?a,b}` (query variables,
//! each optional). Other operators are refused when the server starts.

use std::collections::HashSet;

/// One piece of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `{var}`: one segment.
    Segment(String),
    /// `{+var}` or `{var*}`: any text.
    Reserved(String),
    /// `{?a,b}`: the query's variables.
    Query(Vec<String>),
}

/// A parsed URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
}

/// Whether `uri` is a template (has an expression).
pub(crate) fn is_template(uri: &str) -> bool {
    uri.contains('{')
}

impl UriTemplate {
    /// Parse `template`, or say what is wrong with it.
    pub(crate) fn parse(template: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        let mut names = HashSet::new();
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..].find('}').ok_or_else(|| format!("`{{` at byte {open} is never closed"))? + open;
            let expression = &rest[open + 1..close];
            let part = match expression.as_bytes().first() {
                Some(b'+') => Part::Reserved(name(&expression[1..])?),
                Some(b'?') => Part::Query(expression[1..].split(',').map(name).collect::<Result<_, _>>()?),
                Some(b'#' | b'.' | b'/' | b';' | b'&' | b'=' | b',' | b'!' | b'@' | b'|') => {
                    return Err(format!(
                        "`{{{expression}}}` uses an operator resources do not support; use `{{name}}`, `{{+name}}` or `{{?a,b}}`"
                    ));
                }
                _ => match expression.strip_suffix('*') {
                    Some(exploded) => Part::Reserved(name(exploded)?),
                    None => Part::Segment(name(expression)?),
                },
            };
            for variable in part.variables() {
                if !names.insert(variable.to_owned()) {
                    return Err(format!("the variable `{variable}` appears twice"));
                }
            }
            if matches!(parts.last(), Some(Part::Query(_))) {
                return Err("a query expression `{?…}` must come last".to_owned());
            }
            parts.push(part);
            rest = &rest[close + 1..];
        }
        if rest.contains('}') {
            return Err("`}` without a `{`".to_owned());
        }
        if !rest.is_empty() {
            if matches!(parts.last(), Some(Part::Query(_))) {
                return Err("a query expression `{?…}` must come last".to_owned());
            }
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { parts })
    }

    /// Every variable, in order.
    pub(crate) fn variables(&self) -> Vec<&str> {
        self.parts.iter().flat_map(Part::variables).collect()
    }

    /// The variables of the query expression (each optional).
    pub(crate) fn query_variables(&self) -> Vec<&str> {
        self.parts.iter().filter(|p| matches!(p, Part::Query(_))).flat_map(Part::variables).collect()
    }

    /// The variables of `uri` if it matches, percent-decoded.
    pub(crate) fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut found = Vec::new();
        match_parts(&self.parts, uri, &mut found).then_some(found)
    }

    /// Whether some URI matches both templates.
    pub(crate) fn overlaps(&self, other: &UriTemplate) -> bool {
        let (a, b) = (self.atoms(), other.atoms());
        let mut seen = HashSet::new();
        intersect(&a, &b, 0, 0, &mut seen)
    }

    /// The template as a pattern of characters and wildcards.
    fn atoms(&self) -> Vec<Atom> {
        let mut atoms = Vec::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => atoms.extend(text.chars().map(Atom::Char)),
                Part::Segment(_) => atoms.push(Atom::Segment),
                Part::Reserved(_) => atoms.push(Atom::Any),
                // Nothing, or `?` and the rest.
                Part::Query(_) => atoms.extend([Atom::Query, Atom::Any]),
            }
        }
        atoms
    }
}

impl Part {
    fn variables(&self) -> Vec<&str> {
        match self {
            Part::Literal(_) => Vec::new(),
            Part::Segment(name) | Part::Reserved(name) => vec![name.as_str()],
            Part::Query(names) => names.iter().map(String::as_str).collect(),
        }
    }
}

fn name(text: &str) -> Result<String, String> {
    let valid = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid { Ok(text.to_owned()) } else { Err(format!("`{text}` is not a variable name (letters, digits and `_`)")) }
}

/// Characters a `{var}` never spans.
fn ends_segment(c: char) -> bool {
    matches!(c, '/' | '?' | '#')
}

fn match_parts(parts: &[Part], uri: &str, found: &mut Vec<(String, String)>) -> bool {
    let Some((part, rest)) = parts.split_first() else { return uri.is_empty() };
    match part {
        Part::Literal(text) => uri.strip_prefix(text.as_str()).is_some_and(|uri| match_parts(rest, uri, found)),
        Part::Segment(name) | Part::Reserved(name) => {
            let segment = matches!(part, Part::Segment(_));
            // The longest candidate first, then shorter ones (backtracking).
            let limit = if segment { uri.find(ends_segment).unwrap_or(uri.len()) } else { uri.len() };
            // A variable is never empty.
            let mut ends: Vec<usize> = uri[..limit].char_indices().map(|(i, _)| i).skip(1).collect();
            ends.push(limit);
            for end in ends.into_iter().rev().filter(|end| *end > 0) {
                let Some(value) = decode(&uri[..end]) else { continue };
                let mark = found.len();
                found.push((name.clone(), value));
                if match_parts(rest, &uri[end..], found) {
                    return true;
                }
                found.truncate(mark);
            }
            false
        }
        Part::Query(names) => {
            let Some(query) = uri.strip_prefix('?') else { return uri.is_empty() };
            for pair in query.split('&').filter(|p| !p.is_empty()) {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                if names.iter().any(|n| n == key) {
                    let Some(value) = decode(value) else { return false };
                    found.push((key.to_owned(), value));
                }
            }
            true
        }
    }
}

/// Percent-decode `text` as UTF-8; `None` if it is malformed.
pub(crate) fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A character of a template, or a wildcard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Atom {
    Char(char),
    /// Any text without `/`, `?` or `#`.
    Segment,
    /// Any text.
    Any,
    /// A query expression's start, always followed by `Any`: either both
    /// match nothing, or this matches `?` and the `Any` the rest.
    Query,
}

/// Whether the patterns `a[i..]` and `b[j..]` share a string: a search over
/// pairs of positions, where a wildcard may end or take the other side's
/// next character.
fn intersect(a: &[Atom], b: &[Atom], i: usize, j: usize, seen: &mut HashSet<(usize, usize)>) -> bool {
    if !seen.insert((i, j)) {
        return false;
    }
    match (a.get(i), b.get(j)) {
        (None, None) => true,
        (Some(Atom::Query), other) => {
            intersect(a, b, i + 2, j, seen)
                || match other {
                    Some(Atom::Char('?') | Atom::Query) => intersect(a, b, i + 1, j + 1, seen),
                    Some(Atom::Any) => intersect(a, b, i + 1, j, seen),
                    _ => false,
                }
        }
        (other, Some(Atom::Query)) => {
            intersect(a, b, i, j + 2, seen)
                || match other {
                    Some(Atom::Char('?')) => intersect(a, b, i + 1, j + 1, seen),
                    Some(Atom::Any) => intersect(a, b, i, j + 1, seen),
                    _ => false,
                }
        }
        (Some(Atom::Char(x)), Some(Atom::Char(y))) => x == y && intersect(a, b, i + 1, j + 1, seen),
        (Some(wild @ (Atom::Segment | Atom::Any)), other) => {
            intersect(a, b, i + 1, j, seen)
                || match other {
                    Some(Atom::Char(c)) if takes(*wild, *c) => intersect(a, b, i, j + 1, seen),
                    Some(Atom::Segment | Atom::Any) => intersect(a, b, i, j + 1, seen),
                    _ => false,
                }
        }
        (other, Some(wild @ (Atom::Segment | Atom::Any))) => {
            intersect(a, b, i, j + 1, seen)
                || match other {
                    Some(Atom::Char(c)) if takes(*wild, *c) => intersect(a, b, i + 1, j, seen),
                    _ => false,
                }
        }
        _ => false,
    }
}

fn takes(wild: Atom, c: char) -> bool {
    wild == Atom::Any || !ends_segment(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).unwrap().matches(uri)
    }

    fn pairs(list: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    #[test]
    fn segments_never_span_a_slash_and_reserved_variables_may() {
        assert_eq!(vars("users://{id}/profile", "users://42/profile"), pairs(&[("id", "42")]));
        assert_eq!(vars("users://{id}/profile", "users://4/2/profile"), None);
        assert_eq!(vars("users://{id}/profile", "users:///profile"), None);
        assert_eq!(vars("file:///{+path}", "file:///a/b/c.txt"), pairs(&[("path", "a/b/c.txt")]));
        assert_eq!(vars("file:///{path*}", "file:///a/b"), pairs(&[("path", "a/b")]));
        assert_eq!(vars("test://template/{id}/data", "test://template/123/data"), pairs(&[("id", "123")]));
    }

    #[test]
    fn values_are_percent_decoded_and_queries_are_optional() {
        assert_eq!(vars("notes://{title}", "notes://a%20b"), pairs(&[("title", "a b")]));
        assert_eq!(vars("notes://{title}", "notes://bad%zz"), None);
        assert_eq!(vars("search://{q}{?limit,page}", "search://rust"), pairs(&[("q", "rust")]));
        assert_eq!(
            vars("search://{q}{?limit,page}", "search://rust?page=2&other=x"),
            pairs(&[("q", "rust"), ("page", "2")])
        );
    }

    #[test]
    fn malformed_templates_say_what_is_wrong() {
        assert!(UriTemplate::parse("a://{id").unwrap_err().contains("never closed"));
        assert!(UriTemplate::parse("a://{#frag}").unwrap_err().contains("operator"));
        assert!(UriTemplate::parse("a://{id}/{id}").unwrap_err().contains("appears twice"));
        assert!(UriTemplate::parse("a://{?q}/x").unwrap_err().contains("must come last"));
        assert!(UriTemplate::parse("a://{a-b}").unwrap_err().contains("not a variable name"));
        assert_eq!(UriTemplate::parse("a://{x}{?y,z}").unwrap().variables(), ["x", "y", "z"]);
    }

    #[test]
    fn overlapping_templates_are_found() {
        let overlap = |a: &str, b: &str| UriTemplate::parse(a).unwrap().overlaps(&UriTemplate::parse(b).unwrap());
        assert!(overlap("users://{id}/profile", "users://{name}/profile"));
        assert!(!overlap("users://{id}/profile", "users://{id}/posts"));
        assert!(overlap("files://{+path}", "files://docs/{name}"));
        assert!(!overlap("a://{x}", "b://{x}"));
        assert!(!overlap("a://{x}", "a://{x}/{y}"));
        assert!(overlap("a://{+x}", "a://{x}/{y}"));
        // A query expression matches nothing or `?…`, never `/…`.
        assert!(!overlap("api://pets{?limit}", "api://pets/{id}"));
        assert!(overlap("api://pets{?limit}", "api://pets{?tag}"));
        assert!(overlap("api://pets{?limit}", "api://{name}"));
        assert!(overlap("api://pets{?limit}", "api://pets?all"));
        assert!(overlap("api://{+rest}", "api://pets{?limit}"));
    }
}
