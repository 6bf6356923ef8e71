//! Every end-to-end test file as a module of one test binary: one link and
//! one copy of the runtime's generic code instead of one per file, which
//! is most of what a test build costs. Run one file's tests with
//! `cargo test -p mcp-tests --test suite http::`. Two stay binaries of
//! their own: `lints` (crate-level lint attributes) and `fuzz` (its own
//! long run); the trybuild cases are the `ui-tests` crate's.

mod common;

mod apps;
mod arguments;
mod as_tools;
mod ask;
mod broken_leaves;
mod catalog;
mod client;
mod client_cache;
mod client_interop;
mod client_limits;
mod client_oauth;
mod client_oauth_bad_input;
mod client_oauth_grants;
mod client_progress;
mod client_tasks;
mod conformance;
mod context;
mod dispatch;
mod dynamic;
mod eras;
mod gateway;
mod gateway_handshake;
mod gateway_tasks;
mod hardening;
mod host;
mod http;
mod http_calls;
mod http_routes;
mod http_sessionless;
mod interop;
mod keepalive;
mod limits;
mod middleware;
mod middleware_ready;
mod mount_in_process;
mod oauth;
mod oauth_dpop;
mod oauth_introspection;
mod oauth_proxy;
mod openapi;
mod openapi_axum;
mod openapi_compose;
mod openapi_documents;
mod openapi_requests;
mod openapi_resources;
mod openapi_sources;
mod optional_arguments;
mod ordinary;
mod ordinary_types;
mod otel;
mod prompts;
mod providers;
mod proxy;
mod replicas;
mod resources;
mod results;
mod schemas;
mod server_card;
mod server_logs;
mod skills;
mod spans;
mod startup;
mod state;
mod stdio;
mod task_isolation;
mod task_replicas;
mod tasks;
mod test_client;
mod user_state;
mod versions;
mod views;
mod workload;
