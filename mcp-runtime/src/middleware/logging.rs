//! The ready layer that logs every request: what it reached, how long it
//! took, and how it ended.

use std::task::{Context, Poll};
use std::time::Instant;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tower::{Layer, Service};

use super::{ErrorObject, Invocation, Pipeline, Reply};

/// Logs each request at INFO with `tracing` when its answer is ready:
/// `method`, `name` (the tool, prompt or URI), `elapsed_ms`, and the
/// `outcome` (`ok`, `tool error`, `input required`, or the protocol
/// error's code and message). Arguments are not logged: they may hold
/// what a log must not.
#[derive(Clone, Copy, Debug, Default)]
pub struct Logging {
    _private: (),
}

impl Layer<Pipeline> for Logging {
    type Service = LoggingService;

    fn layer(&self, inner: Pipeline) -> LoggingService {
        LoggingService { inner }
    }
}

/// The service of the [`Logging`] layer.
#[derive(Clone)]
pub struct LoggingService {
    inner: Pipeline,
}

impl Service<Invocation> for LoggingService {
    type Response = Reply;
    type Error = ErrorObject;
    type Future = BoxFuture<'static, Result<Reply, ErrorObject>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ErrorObject>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, invocation: Invocation) -> Self::Future {
        let (method, name) = (invocation.kind().method(), invocation.name().to_owned());
        let started = Instant::now();
        self.inner
            .call(invocation)
            .map(move |answer| {
                let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
                let outcome = match &answer {
                    Ok(Reply::Tool(result)) if result.is_error() => "tool error".to_owned(),
                    Ok(Reply::InputRequired(_)) => "input required".to_owned(),
                    Ok(_) => "ok".to_owned(),
                    Err(error) => format!("error {}: {}", error.code, error.message),
                };
                tracing::info!(method, name, elapsed_ms, outcome, "request handled");
                answer
            })
            .boxed()
    }
}
