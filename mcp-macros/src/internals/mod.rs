//! What `#[tool]`, `#[resource]` and `#[prompt]` share, in the shape of
//! serde_derive's `internals`: the attribute at work ([`Kind`]), the one
//! model of the user's function ([`function`]) and of its parameters
//! ([`param`]), the one set of signature checks ([`signature`]), and key
//! parsing, docs, errors and suggestions. Each attribute's generator builds
//! on these, so a rule added here holds for all three.

pub(crate) mod attr;
pub(crate) mod doc;
pub(crate) mod errors;
pub(crate) mod function;
pub(crate) mod item;
pub(crate) mod param;
pub(crate) mod signature;
pub(crate) mod suggest;

/// The attribute at work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// `#[tool]`, as messages write it.
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Kind::Tool => "`#[tool]`",
            Kind::Resource => "`#[resource]`",
            Kind::Prompt => "`#[prompt]`",
        }
    }

    /// `tool`, as messages say it; also the attribute's own name.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    /// `Tool`: the companion's type and the runtime's trait and builder
    /// stem (`ToolBuilder`, `ToolDefinition`).
    pub(crate) fn type_name(self) -> &'static str {
        match self {
            Kind::Tool => "Tool",
            Kind::Resource => "Resource",
            Kind::Prompt => "Prompt",
        }
    }

    /// The keys `#[arg(...)]` takes on this attribute's parameters.
    pub(crate) fn arg_keys(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => &["rename", "description", "default", "header"],
            Kind::Resource | Kind::Prompt => &["rename", "description", "complete"],
        }
    }

    /// Why its parameters need concrete types.
    fn needs_concrete_types(self) -> &'static str {
        match self {
            Kind::Tool => "the input schema needs concrete parameter types",
            Kind::Resource => "each template variable is read into a concrete type",
            Kind::Prompt => "each argument is read into a concrete type",
        }
    }

    /// What its parameters' names are for.
    fn parameter_names(self) -> &'static str {
        match self {
            Kind::Tool => "they name the JSON arguments",
            Kind::Resource => "a variable's name, or any name for an injected value",
            Kind::Prompt => "they name the prompt's arguments",
        }
    }
}
