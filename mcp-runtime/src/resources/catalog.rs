//! Resources as component kinds: resources with a fixed URI and templates,
//! each built once (checked, projected for every protocol version), and
//! the [`ResourcesHandle`] that changes them at run time and announces
//! updates.

use std::sync::Arc;

use mcp_core::ProtocolVersion;
use serde_json::value::RawValue;

use super::template::UriTemplate;
use super::{Resource, ResourceDefinition};
use crate::component::announce::{Announcer, ListKind};
use crate::component::{Catalog, Kind, PerVersion};
use crate::error::Error;
use crate::request::state::StateMap;

/// One registered resource or template, ready to serve.
pub(crate) struct Entry {
    pub(crate) handler: Arc<dyn Resource>,
    pub(crate) definition: ResourceDefinition,
    /// The parsed template (templates only).
    pub(crate) template: Option<UriTemplate>,
    /// As each protocol version lists it, serialized once.
    listed: PerVersion,
}

impl Entry {}

/// Check one definition and build its entry.
fn build(handler: &Arc<dyn Resource>, states: &StateMap) -> Result<Entry, Error> {
    let definition = handler.definition();
    let invalid = |reason: String| Error::InvalidResource {
        uri: definition.resource.uri.clone(),
        rust_path: definition.rust_path.clone(),
        reason,
    };
    if let Some(problem) = definition.problems.first() {
        return Err(invalid(problem.clone()));
    }
    definition.needs.check(states, "resource", &definition.resource.uri, &definition.rust_path)?;
    crate::request::claims::check_scopes(
        &definition.scopes,
        "resource",
        &definition.resource.uri,
        &definition.rust_path,
    )?;
    let template = if definition.is_template() {
        let template = UriTemplate::parse(&definition.resource.uri)
            .map_err(|e| invalid(format!("its URI template is malformed: {e}")))?;
        let variables = template.variables();
        if let Some(missing) = variables.iter().find(|v| !definition.variables.iter().any(|d| d.name == **v)) {
            return Err(invalid(format!("the template variable `{missing}` is read by no parameter")));
        }
        if let Some(extra) = definition.variables.iter().find(|d| !variables.contains(&d.name.as_str())) {
            return Err(invalid(format!("the parameter `{}` is no variable of the template", extra.name)));
        }
        let query = template.query_variables();
        if let Some(required) = definition.variables.iter().find(|d| !d.optional && query.contains(&d.name.as_str())) {
            return Err(invalid(format!(
                "the query variable `{}` may be left out of a URI, so its parameter must be an `Option<T>`",
                required.name
            )));
        }
        Some(template)
    } else {
        if let Some(extra) = definition.variables.first() {
            return Err(invalid(format!("the parameter `{}` is no variable: the URI is not a template", extra.name)));
        }
        None
    };
    Ok(Entry { handler: handler.clone(), definition, template, listed: PerVersion::default() })
}

/// Resources with a fixed URI (`TEMPLATES = false`) or resource templates
/// (`true`): one kind each, so each lists and pages on its own.
pub(crate) struct ResourceKind<const TEMPLATES: bool>;

/// Resources with a fixed URI.
pub(crate) type Statics = ResourceKind<false>;

/// Resource templates.
pub(crate) type Templates = ResourceKind<true>;

impl<const TEMPLATES: bool> Kind for ResourceKind<TEMPLATES> {
    type Source = dyn Resource;
    type Entry = Entry;
    type Options = ();

    const LIST: ListKind = ListKind::Resources;

    fn source_key(source: &dyn Resource) -> String {
        source.definition().resource.uri
    }

    fn build(handler: &Arc<dyn Resource>, _: &(), states: &StateMap) -> Result<Entry, Error> {
        build(handler, states)
    }

    fn key(entry: &Entry) -> &str {
        &entry.definition.resource.uri
    }

    fn listed(entry: &Entry, version: ProtocolVersion) -> &RawValue {
        // A template is listed as one (`resources/templates/list`).
        let definition = &entry.definition;
        match entry.template {
            Some(_) => entry.listed.get(version, |v| definition.template().for_version(v)),
            None => entry.listed.get(version, |v| definition.resource.for_version(v)),
        }
    }

    fn scopes(entry: &Entry) -> &[String] {
        &entry.definition.scopes
    }

    fn tags(entry: &Entry) -> Vec<String> {
        entry.definition.tags()
    }

    fn duplicate(a: &Entry, b: &Entry) -> Error {
        let (first, second) = crate::component::in_order(&a.definition.rust_path, &b.definition.rust_path);
        Error::DuplicateResource { uri: a.definition.resource.uri.clone(), first, second }
    }

    /// Two templates that can match one URI would make a read ambiguous.
    fn check_set(entries: &[Arc<Entry>]) -> Result<(), Error> {
        for (i, a) in entries.iter().enumerate() {
            for b in &entries[i + 1..] {
                let (Some(ta), Some(tb)) = (&a.template, &b.template) else { continue };
                if ta.overlaps(tb) {
                    return Err(Error::InvalidResource {
                        uri: a.definition.resource.uri.clone(),
                        rust_path: a.definition.rust_path.clone(),
                        reason: format!(
                            "it and `{}` (`{}`) can match the same URI; make their literal parts differ",
                            b.definition.resource.uri, b.definition.rust_path
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Both catalogs of a server's resources.
#[derive(Clone)]
pub(crate) struct ResourceCatalogs {
    pub(crate) statics: Arc<Catalog<Statics>>,
    pub(crate) templates: Arc<Catalog<Templates>>,
}

impl ResourceCatalogs {
    pub(crate) fn new(announcer: &Arc<Announcer>) -> Self {
        ResourceCatalogs {
            statics: Arc::new(Catalog::new((), announcer.clone())),
            templates: Arc::new(Catalog::new((), announcer.clone())),
        }
    }

    /// Register `resource` in the catalog its URI calls for (before start).
    pub(crate) fn push(&self, resource: Arc<dyn Resource>) {
        if resource.definition().is_template() {
            self.templates.sources().push(resource);
        } else {
            self.statics.sources().push(resource);
        }
    }

    pub(crate) fn offered(&self) -> bool {
        self.statics.offered() || self.templates.offered()
    }
}

/// Changes a server's resources while it runs, and tells subscribers when
/// one changes. Each change is checked like the resources at start-up (a
/// duplicate URI or overlapping templates are refused, and nothing
/// changes), and connected clients get
/// `notifications/resources/list_changed`. Made by
/// [`Server::resources_handle`](crate::Server::resources_handle); clones
/// share one server.
#[derive(Clone)]
pub struct ResourcesHandle {
    pub(crate) catalogs: ResourceCatalogs,
    pub(crate) announcer: Arc<Announcer>,
}

impl ResourcesHandle {
    /// Add a resource or template.
    pub fn add(&self, resource: impl Resource) -> Result<(), Error> {
        let resource: Arc<dyn Resource> = Arc::new(resource);
        if resource.definition().is_template() {
            self.catalogs.templates.add(resource)
        } else {
            self.catalogs.statics.add(resource)
        }
    }

    /// Remove the resource (or template) with this URI; `false` if none.
    pub fn remove(&self, uri: &str) -> bool {
        self.catalogs.statics.remove(uri) || self.catalogs.templates.remove(uri)
    }

    /// Stop offering it (kept, to enable again); `false` if already disabled.
    pub fn disable(&self, uri: &str) -> bool {
        self.catalogs.statics.disable(uri) || self.catalogs.templates.disable(uri)
    }

    /// Offer it again; `false` if it was not disabled.
    pub fn enable(&self, uri: &str) -> bool {
        self.catalogs.statics.enable(uri) || self.catalogs.templates.enable(uri)
    }

    /// Stop offering every resource and template tagged `tag`
    /// (`#[resource(tags = [..])]`, or a mounted one's `_meta.tags`), now
    /// and as they are added, until [`enable_tagged`](Self::enable_tagged);
    /// `false` if the tag was already disabled.
    pub fn disable_tagged(&self, tag: &str) -> bool {
        // Both, whatever the first says.
        let statics = self.catalogs.statics.disable_tagged(tag);
        self.catalogs.templates.disable_tagged(tag) | statics
    }

    /// Offer the resources and templates tagged `tag` again (those not
    /// disabled otherwise); `false` if the tag was not disabled.
    pub fn enable_tagged(&self, tag: &str) -> bool {
        let statics = self.catalogs.statics.enable_tagged(tag);
        self.catalogs.templates.enable_tagged(tag) | statics
    }

    /// Every registered URI and URI template, enabled or not, sorted.
    pub fn uris(&self) -> Vec<String> {
        let mut uris = self.catalogs.statics.keys();
        uris.extend(self.catalogs.templates.keys());
        uris.sort();
        uris
    }

    /// Tell the clients subscribed to `uri` that the resource there
    /// changed (`notifications/resources/updated`); any task may call it.
    pub fn updated(&self, uri: &str) {
        self.announcer.updated(uri);
    }
}

impl std::fmt::Debug for ResourcesHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ResourcesHandle").field(&self.uris()).finish()
    }
}
