//! The ready layer that runs a failed call of a repeatable tool again
//! (one marked read-only or idempotent, a mounted server's included),
//! after a growing pause, a bounded number of times, and not once the
//! client has cancelled.

use std::time::Duration;

use super::{Around, ErrorObject, Invocation, Kind, Next, Reply};
use crate::tools::BoxFuture;

/// Runs a failed tool call again, for tools whose calls may be repeated
/// (marked `read_only` or `idempotent`; other tools, and other kinds of
/// request, go straight on). A call failed when it answered an error
/// result (`isError`) or a protocol error; [`only_if`](Self::only_if)
/// narrows that. Between attempts it waits `first_pause`, then twice as
/// long each time (at most `max_pause`), each pause shortened by a random
/// part of up to half so that clients do not retry in step. The last
/// attempt's answer is the call's. A call the client cancelled is not run
/// again, and a pause ends when the call is cancelled.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::Retry;
/// use mcp_runtime::Server;
///
/// // Up to 3 attempts of each read-only or idempotent tool call.
/// let server = Server::new("gateway", "1").layer(Retry::new(3, Duration::from_millis(100)));
/// # drop(server);
/// ```
#[derive(Clone)]
pub struct Retry {
    attempts: u32,
    first_pause: Duration,
    max_pause: Duration,
    only_if: Option<Failed>,
}

/// Which answers count as failures, for [`Retry::only_if`].
type Failed = fn(&Result<Reply, ErrorObject>) -> bool;

impl Retry {
    /// At most `attempts` runs of each call (the first included; at least
    /// one), `first_pause` before the second.
    pub fn new(attempts: u32, first_pause: Duration) -> Self {
        Retry { attempts: attempts.max(1), first_pause, max_pause: Duration::from_secs(10), only_if: None }
    }

    /// Never pause longer than `max_pause` (10 seconds by default).
    pub fn max_pause(mut self, max_pause: Duration) -> Self {
        self.max_pause = max_pause;
        self
    }

    /// Run again only the failures `failed` picks (e.g. only protocol
    /// errors, or only error results whose text says the upstream was
    /// unavailable).
    pub fn only_if(mut self, failed: Failed) -> Self {
        self.only_if = Some(failed);
        self
    }

    fn failed(&self, answer: &Result<Reply, ErrorObject>) -> bool {
        match self.only_if {
            Some(failed) => failed(answer),
            None => match answer {
                Err(_) => true,
                Ok(Reply::Tool(result)) => result.is_error == Some(true),
                Ok(_) => false,
            },
        }
    }

    /// The pause before attempt `attempt + 1`.
    fn pause(&self, attempt: u32) -> Duration {
        let full = self.first_pause.saturating_mul(2u32.saturating_pow(attempt - 1)).min(self.max_pause);
        let mut random = [0u8; 1];
        let _ = getrandom::fill(&mut random);
        full.saturating_sub(full.mul_f64(f64::from(random[0]) / 510.0))
    }
}

impl Around for Retry {
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        if invocation.kind() != Kind::Tool || !invocation.repeatable() || self.attempts == 1 {
            return next.run(invocation);
        }
        let retry = self.clone();
        Box::pin(async move {
            let cancellation = invocation.parts().cancellation.clone();
            let mut spare = invocation.again();
            let mut answer = next.clone().run(invocation).await;
            for attempt in 1..retry.attempts {
                let Some(again) = spare.take().filter(|_| retry.failed(&answer)) else { break };
                if cancellation.is_cancelled() {
                    break;
                }
                tokio::select! {
                    () = tokio::time::sleep(retry.pause(attempt)) => {}
                    () = cancellation.cancelled() => break,
                }
                tracing::debug!(tool = again.name(), attempt = attempt + 1, "running a failed call again");
                spare = again.again();
                answer = next.clone().run(again).await;
            }
            answer
        })
    }
}
