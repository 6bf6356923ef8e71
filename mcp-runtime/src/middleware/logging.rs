//! The ready layer that logs every request: what it reached, how long it
//! took, and how it ended.

use std::time::Instant;

use futures_util::FutureExt;

use super::{Around, ErrorObject, Invocation, Next, Reply};
use crate::tools::BoxFuture;

/// Logs each request at INFO with `tracing` when its answer is ready:
/// `method`, `name` (the tool, prompt or URI), `elapsed_ms` (to the
/// microsecond: `elapsed_ms=0.042`), and the
/// `outcome` (`ok`, `tool error`, `input required`, or the protocol
/// error's code and message). Arguments are not logged: they may hold
/// what a log must not.
#[derive(Clone, Copy, Debug, Default)]
pub struct Logging {
    _private: (),
}

impl Around for Logging {
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        let (method, name) = (invocation.kind().method(), invocation.name().to_owned());
        let started = Instant::now();
        Box::pin(next.run(invocation).map(move |answer| {
            // Whole microseconds over a thousand: milliseconds with three
            // decimals that print as such (`0.007`), where the float of
            // the seconds times a thousand prints its rounding noise
            // (`0.0069500000000000004`).
            let elapsed_ms = started.elapsed().as_micros() as f64 / 1000.0;
            let outcome = match &answer {
                Ok(Reply::Tool(result)) if result.is_error() => "tool error".to_owned(),
                Ok(Reply::InputRequired(_)) => "input required".to_owned(),
                Ok(_) => "ok".to_owned(),
                Err(error) => format!("error {}: {}", error.code, error.message),
            };
            tracing::info!(method, name, elapsed_ms, outcome, "request handled");
            answer
        }))
    }
}
