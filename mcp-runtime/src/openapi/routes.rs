//! Route maps (ordered rules deciding what each operation becomes) and
//! tool names (from `operationId`, or method and path; sanitized, unique,
//! shortened).

use std::collections::HashSet;

use reqwest::Method;
use sha2::{Digest, Sha256};

use super::OpenApiError;
use super::operation::Operation;

/// What an operation becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MapTo {
    /// A tool.
    Tool,
    /// A resource with a fixed URI (a GET without parameters).
    Resource,
    /// A resource template (a GET whose parameters are path parameters
    /// and optional query parameters).
    ResourceTemplate,
    /// Nothing: the operation is not served.
    Exclude,
}

/// One rule of a route map: the operations it matches (by method, path
/// pattern and tags; a condition left unset matches every operation) and
/// what they become. Rules are tried in the order they were added; the
/// first that matches decides, and an operation no rule matches becomes a
/// tool.
///
/// ```
/// use mcp_runtime::openapi::RouteMap;
/// // Leave the admin API out, and every DELETE.
/// let rules = [RouteMap::exclude().path(r"^/admin(/|$)"), RouteMap::exclude().methods(["DELETE"])];
/// ```
#[derive(Clone, Debug)]
pub struct RouteMap {
    methods: Option<Vec<String>>,
    pattern: Option<String>,
    tags: Vec<String>,
    to: MapTo,
}

impl RouteMap {
    /// A rule that makes the operations it matches tools.
    pub fn tool() -> RouteMap {
        RouteMap { methods: None, pattern: None, tags: Vec::new(), to: MapTo::Tool }
    }

    /// A rule that makes the GET operations it matches resources: one
    /// without parameters a resource, one whose parameters are path
    /// parameters and optional query parameters a resource template
    /// (`api://pets/{petId}{?fields}`). An operation that cannot be one (not
    /// a GET, a required query parameter, a header or a body) stays a
    /// tool, and [`OpenApi::mapping`](super::OpenApi::mapping) says why.
    pub fn resource() -> RouteMap {
        RouteMap { to: MapTo::Resource, ..RouteMap::tool() }
    }

    /// A rule that leaves the operations it matches out.
    pub fn exclude() -> RouteMap {
        RouteMap { to: MapTo::Exclude, ..RouteMap::tool() }
    }

    /// Match only these HTTP methods (any case: `"get"`, `"POST"`).
    pub fn methods<I, S>(mut self, methods: I) -> RouteMap
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.methods = Some(methods.into_iter().map(|m| m.as_ref().to_ascii_uppercase()).collect());
        self
    }

    /// Match only paths (as the document writes them, `/pets/{petId}`)
    /// that this regular expression finds something in; anchor it
    /// (`^…$`) to match whole paths. An invalid expression is reported
    /// when the tools are made.
    pub fn path(mut self, pattern: &str) -> RouteMap {
        self.pattern = Some(pattern.to_owned());
        self
    }

    /// Match only operations that have at least one of these tags.
    pub fn tags<I, S>(mut self, tags: I) -> RouteMap
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// What the operations it matches become ([`MapTo::Resource`] for
    /// [`resource`](Self::resource), whose operations may turn out
    /// templates).
    pub fn map_to(&self) -> MapTo {
        self.to
    }
}

/// A route map's rules, their patterns compiled.
pub(crate) struct Rules(Vec<(RouteMap, Option<regex_lite::Regex>)>);

impl Rules {
    pub(crate) fn new(maps: &[RouteMap]) -> Result<Rules, OpenApiError> {
        let mut rules = Vec::with_capacity(maps.len());
        for (i, map) in maps.iter().enumerate() {
            let pattern = match &map.pattern {
                Some(pattern) => Some(regex_lite::Regex::new(pattern).map_err(|e| {
                    OpenApiError::config(format!("route map rule {i}: the path pattern `{pattern}` is invalid: {e}"))
                })?),
                None => None,
            };
            rules.push((map.clone(), pattern));
        }
        Ok(Rules(rules))
    }

    /// What `operation` becomes, and which rule (its index) decided.
    pub(crate) fn decide(&self, operation: &Operation) -> (MapTo, Option<usize>) {
        for (i, (map, pattern)) in self.0.iter().enumerate() {
            let method = operation.method.as_str();
            if map.methods.as_ref().is_some_and(|methods| !methods.iter().any(|m| m == method)) {
                continue;
            }
            if pattern.as_ref().is_some_and(|p| !p.is_match(&operation.path)) {
                continue;
            }
            if !map.tags.is_empty() && !map.tags.iter().any(|t| operation.tags.contains(t)) {
                continue;
            }
            return (map.to, Some(i));
        }
        (MapTo::Tool, None)
    }
}

/// The longest tool name made: what OpenAI's and Anthropic's function
/// names allow (MCP allows 128).
const MAX_NAME: usize = 64;

/// Tool names, each unique among those already given.
#[derive(Default)]
pub(crate) struct Names(HashSet<String>);

impl Names {
    /// The tool name of `operation`: its `operationId`, or method and
    /// path (`get_pets_petId`), with characters outside `[A-Za-z0-9_-]`
    /// made `_`, shortened to 64 characters (the end replaced by a hash
    /// of the whole, so two long names stay apart) and numbered when taken.
    pub(crate) fn name(&mut self, operation: &Operation) -> String {
        let raw = match &operation.operation_id {
            Some(id) => id.clone(),
            None => format!("{}_{}", operation.method.as_str().to_ascii_lowercase(), operation.path),
        };
        let mut name = String::with_capacity(raw.len());
        for c in raw.chars() {
            let c = if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' };
            if !(c == '_' && (name.is_empty() || name.ends_with('_'))) {
                name.push(c);
            }
        }
        while name.ends_with('_') {
            name.pop();
        }
        if name.is_empty() {
            name = method_name(&operation.method);
        }
        if name.len() > MAX_NAME {
            let hash = Sha256::digest(raw.as_bytes());
            let tag: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
            name.truncate(MAX_NAME - tag.len() - 1);
            name = format!("{name}_{tag}");
        }
        if self.0.contains(&name) {
            let base = name.clone();
            for n in 2.. {
                let suffix = format!("_{n}");
                let mut numbered = base.clone();
                numbered.truncate(MAX_NAME - suffix.len());
                numbered.push_str(&suffix);
                if !self.0.contains(&numbered) {
                    name = numbered;
                    break;
                }
            }
        }
        self.0.insert(name.clone());
        name
    }
}

fn method_name(method: &Method) -> String {
    method.as_str().to_ascii_lowercase()
}
