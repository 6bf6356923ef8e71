//! Prompts as a component kind: each built once (checked, projected for
//! every protocol version), and the [`PromptsHandle`] that changes them at
//! run time.

use std::sync::Arc;

use mcp_core::ProtocolVersion;
use serde_json::value::RawValue;

use super::{Prompt, PromptDefinition};
use crate::completion::Completions;
use crate::component::announce::ListKind;
use crate::component::{Kind, PerVersion, Snapshot};
use crate::error::Error;
use crate::request::state::StateMap;

/// One registered prompt, ready to serve.
pub(crate) struct Entry {
    pub(crate) handler: Arc<dyn Prompt>,
    pub(crate) definition: PromptDefinition,
    /// As each protocol version lists it, serialized once.
    listed: PerVersion,
}

impl Entry {}

/// The prompt kind.
pub(crate) struct Prompts;

impl Kind for Prompts {
    type Source = dyn Prompt;
    type Entry = Entry;
    type Options = ();

    const LIST: ListKind = ListKind::Prompts;

    fn source_key(source: &dyn Prompt) -> String {
        source.definition().prompt.name
    }

    fn build(handler: &Arc<dyn Prompt>, _: &(), states: &StateMap) -> Result<Entry, Error> {
        let definition = handler.definition();
        let invalid = |reason: String| Error::InvalidPrompt {
            name: definition.prompt.name.clone(),
            rust_path: definition.rust_path.clone(),
            reason,
        };
        if let Some(problem) = definition.problems.first() {
            return Err(invalid(problem.clone()));
        }
        definition.needs.check(states, "prompt", &definition.prompt.name, &definition.rust_path)?;
        crate::request::claims::check_scopes(
            &definition.scopes,
            "prompt",
            &definition.prompt.name,
            &definition.rust_path,
        )?;
        Ok(Entry { handler: handler.clone(), definition, listed: PerVersion::default() })
    }

    fn key(entry: &Entry) -> &str {
        &entry.definition.prompt.name
    }

    fn listed(entry: &Entry, version: ProtocolVersion) -> &RawValue {
        entry.listed.get(version, |v| entry.definition.prompt.for_version(v))
    }

    fn scopes(entry: &Entry) -> &[String] {
        &entry.definition.scopes
    }

    fn tags(entry: &Entry) -> Vec<String> {
        entry.definition.tags()
    }

    fn duplicate(a: &Entry, b: &Entry) -> Error {
        let (first, second) = crate::component::in_order(&a.definition.rust_path, &b.definition.rust_path);
        Error::InvalidPrompt {
            name: a.definition.prompt.name.clone(),
            rust_path: first,
            reason: format!("`{second}` has the same name; rename one with `#[prompt(name = \"…\")]`"),
        }
    }
}

impl Snapshot<Prompts> {
    /// Whether any argument completes.
    pub(crate) fn completes(&self) -> bool {
        self.entries().iter().any(|e| e.definition.completions.iter().any(|(_, c)| *c != Completions::None))
    }
}

crate::component::catalog_handle!(
    /// Changes a server's prompts while it runs: add, remove, enable, disable.
    /// Each change is checked like the prompts at start-up, and connected
    /// clients get `notifications/prompts/list_changed`. Made by
    /// [`Server::prompts_handle`](crate::Server::prompts_handle).
    PromptsHandle,
    Prompts,
    Prompt,
    "prompt"
);
