//! The Model Context Protocol, as data.
//!
//! This crate holds the protocol model that the rest of the project builds
//! on and that has no async runtime in it: JSON-RPC 2.0 envelopes
//! ([`jsonrpc`]), the MCP types a tools server exchanges ([`lifecycle`],
//! [`tool`], [`call`], [`content`]), the protocol versions and what each
//! one knows ([`version`]), and the schema profiles that make generated
//! JSON Schemas acceptable to real clients ([`schema`]).
//!
//! Field names follow `schema/<version>/schema.ts` of the specification.
//! Each type holds every field any version defines; `for_version` methods
//! drop what an older version does not know.

#![cfg_attr(not(test), warn(missing_docs))]

pub mod apps;
pub mod ask;
pub mod call;
pub mod clients;
pub mod content;
pub mod envelope;
pub mod form;
pub mod headers;
pub mod http;
pub mod jsonrpc;
pub mod lifecycle;
pub mod methods;
pub mod notify;
pub mod prompt;
pub mod providers;
pub mod resource;
pub mod schema;
pub mod skills;
pub mod task;
pub mod tool;
pub mod version;

pub use ask::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, InputRequest,
    InputRequiredResult, ListRootsResult, ModelHint, ModelPreferences, Root, SamplingContent, SamplingMessage,
    ToolChoice, ToolResultContent, ToolUse,
};
pub use call::{CallToolParams, CallToolResult, CancelledParams, ListToolsParams, ListToolsResult};
pub use content::{Annotations, Content, EmbeddedResource, MediaContent, ResourceContents, ResourceLink, TextContent};
pub use envelope::Envelope;
pub use jsonrpc::{ErrorObject, JsonObject, Message, Notification, Outcome, Request, RequestId, Response, codes};
pub use lifecycle::{
    ClientCapabilities, Implementation, InitializeParams, InitializeResult, ServerCapabilities, ToolsCapability,
};
pub use notify::{LoggingLevel, LoggingMessageParams, ProgressParams, SetLevelParams};
pub use prompt::{
    CompleteArgument, CompleteContext, CompleteParams, CompleteRef, CompleteResult, Completion, GetPromptParams,
    GetPromptResult, Prompt, PromptArgument, PromptMessage, PromptsCapability, Role,
};
pub use resource::{ReadResourceResult, Resource, ResourceTemplate, ResourceUri, ResourcesCapability};
pub use schema::{SchemaError, SchemaProfile};
pub use tool::{Icon, Tool, ToolAnnotations};
pub use version::ProtocolVersion;
