//! Internal failures (errors that are not `ToolError::new`, and panics):
//! the client gets "internal error" and an id to quote, the log gets the
//! whole story under the same id, and a development server may show the
//! details to the client too (`Server::show_internal_errors`).

use std::fmt::{Debug, Display};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_core::CallToolResult;

tokio::task_local! {
    /// Set for each call by the server that runs it.
    static SHOW_DETAILS: bool;
}

/// Run a tool call under this server's disclosure setting.
pub(crate) fn scope<F: Future>(show_details: bool, call: F) -> impl Future<Output = F::Output> {
    SHOW_DETAILS.scope(show_details, call)
}

/// Whether the server running this call shows internal details.
pub(crate) fn showing_details() -> bool {
    SHOW_DETAILS.try_with(|show| *show).unwrap_or(false)
}

/// Log an internal failure and return the result the client sees.
pub(crate) fn report(kind: &str, summary: &dyn Display, details: &dyn Debug, show_details: bool) -> CallToolResult {
    CallToolResult::error_text(masked(kind, summary, details, show_details))
}

/// Log an internal failure under a new incident id and return the text the
/// client sees (the id, and the summary only when `show_details`).
pub(crate) fn masked(kind: &str, summary: &dyn Display, details: &dyn Debug, show_details: bool) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = format!("{:x}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let shown = if show_details {
        "the client is shown the details too (`show_internal_errors`)"
    } else {
        "the client sees only \"internal error\" and the incident id"
    };
    tracing::error!(incident = %id, error = %summary, details = ?details, "{kind} ({shown})");
    if show_details {
        format!("internal error (incident {id}): {summary}")
    } else {
        format!("internal error (incident {id})")
    }
}

/// A panic's message, as far as its payload says.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string panic payload")
}
