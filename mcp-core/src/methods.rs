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
