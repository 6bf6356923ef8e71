//! Method names on the wire.

/// Client → server: start a session (handshake versions).
pub const INITIALIZE: &str = "initialize";
/// Client → server: the handshake is complete.
pub const INITIALIZED: &str = "notifications/initialized";
/// Either way: are you there?
pub const PING: &str = "ping";
/// Client → server: list tools.
pub const TOOLS_LIST: &str = "tools/list";
/// Client → server: call a tool.
pub const TOOLS_CALL: &str = "tools/call";
/// Either way: stop working on a request.
pub const CANCELLED: &str = "notifications/cancelled";
/// Either way: progress of a request.
pub const PROGRESS: &str = "notifications/progress";
/// Client → server: send log messages of this level and above.
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// Server → client: a log message.
pub const MESSAGE: &str = "notifications/message";
/// Server → client: the tool list changed.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// Client → server: describe yourself (2026-07-28).
pub const SERVER_DISCOVER: &str = "server/discover";
/// Client → server: open a stream of list-changed notifications (2026-07-28).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// Server → client: the first message of a subscription, saying what it carries.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// Server → client: ask the host's model for a completion.
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// Server → client: ask the user for input.
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// Server → client: which roots the client offers.
pub const ROOTS_LIST: &str = "roots/list";
/// Client → server: the client's roots changed.
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// Client → server: list resources.
pub const RESOURCES_LIST: &str = "resources/list";
/// Client → server: list resource templates.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// Client → server: read a resource.
pub const RESOURCES_READ: &str = "resources/read";
/// Client → server: send `notifications/resources/updated` for a URI.
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// Client → server: stop those updates.
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// Server → client: a subscribed resource changed.
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// Server → client: the resource list changed.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// Client → server: list prompts.
pub const PROMPTS_LIST: &str = "prompts/list";
/// Client → server: render a prompt.
pub const PROMPTS_GET: &str = "prompts/get";
/// Server → client: the prompt list changed.
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// Client → server: complete an argument.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// Client → server: a task's status, and its result once it has one (tasks extension).
pub const TASKS_GET: &str = "tasks/get";
/// Client → server: answers to a task's questions (tasks extension).
pub const TASKS_UPDATE: &str = "tasks/update";
/// Client → server: stop a task (tasks extension).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// Client → server: a task's result, once it ends (2025-11-25 tasks).
pub const TASKS_RESULT: &str = "tasks/result";
/// Client → server: the client's tasks, paged (2025-11-25 tasks).
pub const TASKS_LIST: &str = "tasks/list";
/// Server → client: a task's status changed (2025-11-25 tasks).
pub const TASKS_STATUS: &str = "notifications/tasks/status";
/// Client → server: the skills the server serves (skills extension).
pub const SKILLS_LIST: &str = "skills/list";
/// Client → server: one skill's entry, by the URI of its `SKILL.md` (skills extension).
pub const SKILLS_GET: &str = "skills/get";
/// Client → server: a directory resource's direct children (skills extension, `directoryRead`).
pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";
