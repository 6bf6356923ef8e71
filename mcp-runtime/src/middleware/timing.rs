//! The ready layer that measures how long each handler takes, as an
//! OpenTelemetry histogram per component (feature `otel`).

use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};

use super::{Around, ErrorObject, Invocation, Next, Reply};
use crate::tools::BoxFuture;

/// The histogram's name, as OpenTelemetry's MCP conventions name it.
pub const DURATION: &str = "mcp.server.operation.duration";

/// Records each request's time in its handler (and the layers after this
/// one), in seconds, in the histogram [`DURATION`], with the method
/// (`mcp.method.name`), the component (`gen_ai.tool.name`,
/// `gen_ai.prompt.name` or `mcp.completion.ref`; a resource's URI is left
/// out, as a template may have endless URIs and each would be a series of
/// its own) and, for a failure, `error.type` (`tool_error`, or the
/// protocol error's code; a caller's mistake, such as invalid params, is no
/// failure of the server's, as in the request's span). Exported by
/// the program's own meter provider (an OTLP exporter, say).
///
/// ```
/// use mcp_runtime::middleware::Timing;
/// use mcp_runtime::Server;
///
/// let server = Server::new("app", "1").layer(Timing::new(&opentelemetry::global::meter("app")));
/// # drop(server);
/// ```
#[derive(Clone)]
pub struct Timing {
    histogram: Histogram<f64>,
}

impl std::fmt::Debug for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timing").finish_non_exhaustive()
    }
}

impl Timing {
    /// Record into a histogram of `meter`.
    pub fn new(meter: &Meter) -> Self {
        let histogram = meter
            .f64_histogram(DURATION)
            .with_unit("s")
            .with_description("How long MCP requests take in their handlers")
            .build();
        Timing { histogram }
    }
}

impl Around for Timing {
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        let kind = invocation.kind();
        let component = match kind {
            super::Kind::Tool => Some("gen_ai.tool.name"),
            super::Kind::Prompt => Some("gen_ai.prompt.name"),
            super::Kind::Resource => None,
            super::Kind::Completion => Some("mcp.completion.ref"),
        };
        let mut attributes = vec![KeyValue::new("mcp.method.name", kind.method())];
        if let Some(component) = component {
            attributes.push(KeyValue::new(component, invocation.name().to_owned()));
        }
        let histogram = self.histogram.clone();
        let started = Instant::now();
        let answer = next.run(invocation);
        Box::pin(async move {
            let answer = answer.await;
            match &answer {
                Ok(Reply::Tool(result)) if result.is_error == Some(true) => {
                    attributes.push(KeyValue::new("error.type", "tool_error"));
                }
                Err(error) if crate::dispatch::span::is_failure(error) => {
                    attributes.push(KeyValue::new("error.type", error.code.to_string()));
                }
                Err(_) => {}
                Ok(_) => {}
            }
            histogram.record(started.elapsed().as_secs_f64(), &attributes);
            answer
        })
    }
}
