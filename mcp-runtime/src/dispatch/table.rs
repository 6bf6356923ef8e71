//! The one method table: every request method the server answers, in
//! every era. Adding a protocol method is one entry here; the era
//! differences (which era has it, whether its result is cacheable) are
//! columns, applied by the dispatcher and the projection.

use mcp_core::{ErrorObject, JsonObject, methods};

use super::{Action, Incoming, lifecycle, listen};
use crate::completion;
use crate::prompts::methods as prompts;
use crate::resources::methods as resources;
use crate::skills::methods as skills;
use crate::tasks::methods as tasks;
use crate::tools::call as tools;

/// What a server must offer for a method to exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Capability {
    /// Always there: the lifecycle and subscriptions.
    Core,
    /// `tools`: offered when tools are registered (or may be, at run time).
    Tools,
    /// `logging`: always offered (every handler may log).
    Logging,
    /// `resources`: offered when resources or templates are registered (or
    /// may be, at run time).
    Resources,
    /// `prompts`: offered when prompts are registered (or may be).
    Prompts,
    /// `completions`: offered when some prompt argument or template
    /// variable completes.
    Completions,
    /// The tasks extension: offered when some tool supports tasks.
    Tasks,
    /// The skills extension: offered when the server has skills.
    Skills,
}

/// The eras a method exists in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Eras {
    /// 2024-11-05 to 2025-11-25 only (after `initialize`).
    Handshake,
    /// 2026-07-28 only.
    Stateless,
    /// Both.
    Both,
}

/// Answers one request: the work to do, or a protocol error.
pub(crate) type Handler = fn(&Incoming<'_>, Option<JsonObject>) -> Result<Action, ErrorObject>;

/// One row of the table.
pub(crate) struct Method {
    pub(crate) name: &'static str,
    pub(crate) capability: Capability,
    pub(crate) eras: Eras,
    /// Answered before `initialize` in the handshake era.
    pub(crate) before_initialize: bool,
    /// Its 2026-07-28 result carries cache hints (`ttlMs`, `cacheScope`).
    pub(crate) cacheable: bool,
    pub(crate) handler: Handler,
}

const fn method(name: &'static str, capability: Capability, eras: Eras, handler: Handler) -> Method {
    Method { name, capability, eras, before_initialize: false, cacheable: false, handler }
}

impl Method {
    const fn before_initialize(mut self) -> Method {
        self.before_initialize = true;
        self
    }

    const fn cacheable(mut self) -> Method {
        self.cacheable = true;
        self
    }
}

use Capability::{Completions, Core, Logging, Prompts, Resources, Skills, Tasks, Tools};
use Eras::{Both, Handshake, Stateless};

/// Every method, in one place.
static METHODS: &[Method] = &[
    method(methods::INITIALIZE, Core, Handshake, lifecycle::initialize).before_initialize(),
    method(methods::PING, Core, Handshake, lifecycle::ping).before_initialize(),
    method(methods::SERVER_DISCOVER, Core, Stateless, lifecycle::discover).cacheable(),
    method(methods::SUBSCRIPTIONS_LISTEN, Core, Stateless, listen::listen),
    method(methods::LOGGING_SET_LEVEL, Logging, Handshake, lifecycle::set_level),
    method(methods::TOOLS_LIST, Tools, Both, tools::list).cacheable(),
    method(methods::TOOLS_CALL, Tools, Both, tools::call),
    method(methods::RESOURCES_LIST, Resources, Both, resources::list).cacheable(),
    method(methods::RESOURCES_TEMPLATES_LIST, Resources, Both, resources::templates).cacheable(),
    method(methods::RESOURCES_READ, Resources, Both, resources::read).cacheable(),
    method(methods::RESOURCES_SUBSCRIBE, Resources, Handshake, resources::subscribe),
    method(methods::RESOURCES_UNSUBSCRIBE, Resources, Handshake, resources::unsubscribe),
    method(methods::PROMPTS_LIST, Prompts, Both, prompts::list).cacheable(),
    method(methods::PROMPTS_GET, Prompts, Both, prompts::get),
    method(methods::COMPLETION_COMPLETE, Completions, Both, completion::complete),
    method(methods::TASKS_GET, Tasks, Both, tasks::get),
    method(methods::TASKS_UPDATE, Tasks, Both, tasks::update),
    method(methods::TASKS_CANCEL, Tasks, Both, tasks::cancel),
    method(methods::TASKS_RESULT, Tasks, Handshake, tasks::result),
    method(methods::TASKS_LIST, Tasks, Handshake, tasks::list),
    method(methods::SKILLS_LIST, Skills, Both, skills::list).cacheable(),
    method(methods::SKILLS_GET, Skills, Both, skills::get).cacheable(),
    method(methods::RESOURCES_DIRECTORY_READ, Skills, Both, skills::read_directory),
];

/// The method named `name`, if the server has it.
pub(crate) fn find(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_is_listed_once() {
        let mut names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), METHODS.len());
    }
}
