//! Each accepted shape, run end to end: the case module's `run` builds its
//! server, calls what it declared and panics on any difference. (Link-time
//! collection is `collect.rs`, a binary of its own.)

#[test]
fn app_views() {
    mcp_ui_pass::app_views::run();
}

#[test]
fn arg_attributes() {
    mcp_ui_pass::arg_attributes::run();
}

#[test]
fn description_documents() {
    mcp_ui_pass::description_documents::run();
}

#[test]
fn docs() {
    mcp_ui_pass::docs::run();
}

#[test]
fn hygiene_lints() {
    mcp_ui_pass::hygiene_lints::run();
}

#[test]
fn hygiene_no_implicit_prelude() {
    mcp_ui_pass::hygiene_no_implicit_prelude::run();
}

#[test]
fn in_module_and_renamed_crate() {
    mcp_ui_pass::in_module_and_renamed_crate::run();
}

#[test]
fn injected_params() {
    mcp_ui_pass::injected_params::run();
}

#[test]
fn param_types() {
    mcp_ui_pass::param_types::run();
}

#[test]
fn returns() {
    mcp_ui_pass::returns::run();
}

#[test]
fn scopes() {
    mcp_ui_pass::scopes::run();
}

#[test]
fn tags() {
    mcp_ui_pass::tags::run();
}

#[test]
fn task_support() {
    mcp_ui_pass::task_support::run();
}

#[test]
fn tool_attributes() {
    mcp_ui_pass::tool_attributes::run();
}
