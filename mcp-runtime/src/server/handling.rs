//! The builder's settings for how requests are handled: how schemas are
//! shaped and whether output schemas are declared, `tools/list` pages,
//! how leniently arguments are read, whether internal errors are shown,
//! and the user's middleware ([`Server::layer`]).

use mcp_core::SchemaProfile;

use super::Server;

impl Server {
    /// How input schemas are shaped: [`SchemaProfile::Portable`] (the
    /// default) or [`SchemaProfile::Strict`].
    pub fn schema_profile(self, profile: SchemaProfile) -> Self {
        self.tools.sources().options_mut().profile = profile;
        self
    }

    /// Declare `outputSchema`s (`true` by default). Some clients treat
    /// tools that declare one differently; with `false`, structured results
    /// are still sent, without a schema. `#[tool(output_schema = false)]`
    /// does this for one tool.
    pub fn output_schemas(self, declare: bool) -> Self {
        self.tools.sources().options_mut().output_schemas = declare;
        self
    }

    /// Send `tools/list` in pages of `size` tools (at least 1); by default
    /// every tool comes in one page.
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }

    /// Take arguments exactly as sent (`false` by default). Models often
    /// send an object or array argument as a string of JSON, or the whole
    /// `arguments` object as one; by default such a string is decoded once
    /// where the schema expects an object or array (never for a `String`
    /// parameter). Strict servers report it as an argument error instead.
    pub fn strict_arguments(mut self, strict: bool) -> Self {
        self.lenient_arguments = !strict;
        self
    }

    /// Show clients the details of internal errors and panics. In
    /// production (unset, or `false`) the client sees only the masked text,
    /// `internal error (incident …)`, and the details go to stderr (the
    /// log) with the incident id that finds them. `true` is for
    /// development: details can leak paths, queries and secrets.
    ///
    /// Unset, a server driven by a [`TestClient`](crate::testing::TestClient) shows
    /// the details, so a failing test says why a tool failed; a test of the
    /// masking itself sets `false`.
    pub fn show_internal_errors(mut self, show: bool) -> Self {
        self.show_internal_errors = Some(show);
        self
    }

    /// Show internal errors as `show` unless
    /// [`show_internal_errors`](Self::show_internal_errors) was called.
    pub(crate) fn show_internal_errors_by_default(mut self, show: bool) -> Self {
        self.show_internal_errors.get_or_insert(show);
        self
    }

    /// Add middleware: a [tower](https://docs.rs/tower) layer around every
    /// request that runs a handler (tool calls, prompt gets, resource
    /// reads, completions), which sees the typed request and reply (see
    /// [`middleware`](crate::middleware)). The first layer added is the
    /// outermost: it runs first and sees the reply last.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: crate::middleware::Layer<crate::middleware::Pipeline> + Send + Sync + 'static,
        L::Service: tower::Service<
                crate::middleware::Invocation,
                Response = crate::middleware::Reply,
                Error = mcp_core::ErrorObject,
            > + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<crate::middleware::Invocation>>::Future: Send + 'static,
    {
        self.layers.push(crate::middleware::wrap(layer));
        self
    }
}
