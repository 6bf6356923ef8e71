//! Connecting to an upstream, within its connect timeout, and saying early
//! when it stays silent.

use std::time::Duration;

use mcp_runtime_client::{Client, Error as ClientError};

use super::link::Link;

/// How long an upstream may take to answer its handshake before the log
/// says so (the connection goes on waiting, up to its connect timeout).
const SILENT_AFTER: Duration = Duration::from_secs(3);

/// `connecting`, within the link's connect timeout; an upstream still
/// silent after [`SILENT_AFTER`] is reported in the log at once, with what
/// to check, rather than only when the timeout ends: a command that starts
/// but does not speak MCP (a typo'd script waiting on stdin) looks alive.
pub(crate) async fn telling(
    link: &Link,
    connecting: impl Future<Output = Result<Client, ClientError>>,
) -> Result<Client, ClientError> {
    let limit = link.connect_timeout;
    let connecting = tokio::time::timeout(limit, connecting);
    tokio::pin!(connecting);
    if limit > SILENT_AFTER {
        tokio::select! {
            connected = &mut connecting => return connected.unwrap_or(Err(ClientError::Timeout(limit))),
            () = tokio::time::sleep(SILENT_AFTER) => {
                let check = link.hint.as_deref().unwrap_or("check how it is reached: does it speak MCP?");
                tracing::warn!(
                    upstream = %link.label,
                    "`{}` has not answered the handshake in {} s; {check} (waiting up to {} s)",
                    link.label,
                    SILENT_AFTER.as_secs(),
                    limit.as_secs_f64(),
                );
            }
        }
    }
    connecting.await.unwrap_or(Err(ClientError::Timeout(limit)))
}
