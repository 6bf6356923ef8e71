//! The shapes the attributes accept. Each module is one case, compiled as
//! part of an ordinary library so every lint a user's crate can deny applies
//! to the expansion; `tests/cases.rs` runs each case's checks.

// A crate-level lint: `hygiene_lints` denies the others in its own module.
#![deny(non_ascii_idents)]

pub mod app_views;
pub mod arg_attributes;
pub mod description_documents;
pub mod docs;
pub mod hygiene_lints;
pub mod hygiene_no_implicit_prelude;
pub mod in_module_and_renamed_crate;
pub mod injected_params;
pub mod param_types;
pub mod returns;
pub mod scopes;
mod support;
pub mod tags;
pub mod task_support;
pub mod tool_attributes;
