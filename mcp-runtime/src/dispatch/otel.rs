//! The `otel` feature: a client's trace continues into the server. A
//! request whose `params._meta` carries W3C trace context (`traceparent`,
//! `tracestate`, `baggage`, unprefixed, as the 2026-07-28 protocol and
//! OpenTelemetry's MCP conventions put it) gets that remote span as the
//! OpenTelemetry parent of its span.

use mcp_core::JsonObject;
use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde_json::Value;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// `_meta` read as a propagation carrier.
struct Meta<'a>(&'a JsonObject);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Make the trace context in `meta` the parent of `span`, which must not
/// have been entered yet (the parent is fixed once the span starts). The
/// span's local parent, such as the span of the HTTP request that carried
/// it, becomes a link: the conventions' "link current ambient context".
/// A `traceparent` that does not parse leaves the span as it was.
pub(crate) fn continue_trace(span: &Span, meta: Option<&JsonObject>) {
    let Some(meta) = meta.filter(|meta| meta.contains_key("traceparent")) else { return };
    let carrier = Meta(meta);
    let remote = TraceContextPropagator::new().extract_with_context(&Context::new(), &carrier);
    if !remote.span().span_context().is_valid() {
        return;
    }
    let remote = if meta.contains_key("baggage") {
        BaggagePropagator::new().extract_with_context(&remote, &carrier)
    } else {
        remote
    };
    let ambient = Span::current();
    let ambient = (!ambient.is_none()).then(|| ambient.context().span().span_context().clone());
    // Without the OpenTelemetry layer there is nothing to parent, and no
    // error worth reporting.
    if span.set_parent(remote).is_ok()
        && let Some(ambient) = ambient.filter(|context| context.is_valid())
    {
        span.add_link(ambient);
    }
}
