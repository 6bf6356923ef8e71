//! The `#[tool]`, `#[resource]` and `#[prompt]` attributes. Depend on
//! `mcp-runtime`, which re-exports them; the generated code names only
//! `::mcp_runtime::__private`.
//!
//! The three share their internals (`internals`: the function and
//! parameter model, the signature checks, key parsing) and the tokens they
//! emit alike (`emit`); `tool`, `resource` and `prompt` each add their own
//! keys, checks and generator on top.

mod emit;
mod internals;
mod prompt;
mod resource;
mod tool;

use proc_macro::TokenStream;

/// Turn a function into an MCP tool.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Add two numbers.
/// #[tool(read_only)]
/// async fn add(
///     /// The left operand
///     a: f64,
///     /// The right operand
///     #[arg(default = 1.0)]
///     b: f64,
/// ) -> f64 {
///     a + b
/// }
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let tools = Server::empty("calculator", "1.0.0").tool(add::Tool).tool_definitions()?;
/// assert_eq!(tools[0].name, "add");
/// assert_eq!(tools[0].description.as_deref(), Some("Add two numbers."));
/// assert_eq!(tools[0].input_schema["required"], serde_json::json!(["a"]));
/// assert_eq!(tools[0].input_schema["properties"]["b"]["default"], 1.0);
/// # Ok(())
/// # }
/// ```
///
/// # What it accepts
///
/// | | |
/// |---|---|
/// | functions | `async fn` and `fn`, any visibility, in any module; sync tools run on the call's task |
/// | parameters | any `Deserialize + JsonSchema` type (integers, floats, `bool`, `char`, `String`, `Vec<T>`, `HashMap<String, T>`, `Option<T>`, your enums and structs, `serde_json::Value`), or a type the runtime supplies ([`FromRequest`](../mcp_runtime/trait.FromRequest.html)); none at all is fine |
/// | returns | anything [`IntoToolResult`](../mcp_runtime/trait.IntoToolResult.html) accepts: text, numbers, `bool`, `()`, `Json<T>` (structured output with an `outputSchema`), `Content`, `Vec<Content>`, `CallToolResult`, and `Result<T, E>` of those with `E: Into<ToolError>` |
///
/// What a parameter *is* comes from its type's traits, never its spelling,
/// so aliases and re-exports work. A parameter that may be absent
/// (`Option<T>`) is not required.
///
/// # `#[tool(...)]`
///
/// | key | meaning |
/// |---|---|
/// | `name = "…"` | the name clients call (default: the function's); 1–128 characters from `A-Za-z0-9_.-` |
/// | `title = "…"` | the display title (default: from the name, `text_analyzer` → "Text Analyzer") |
/// | `description = "…"` | replaces the doc comment as the description (and documents the function if it has no doc) |
/// | `read_only`, `destructive`, `idempotent`, `open_world` | behaviour hints; `key = false` states the opposite |
/// | `timeout = "30s"` | each call is stopped after this long (`ms`, `s`, `m`, `h`) with an error result |
/// | `rate_limit = "10/s"` | at most this many calls per second (`/s`), minute (`/m`), hour (`/h`) or duration (`/30s`); more get an error saying when to retry |
/// | `output_schema = false` | no `outputSchema` even when the output is `Json<T>` (the structured value is still sent) |
/// | `schema = "strict"` | this tool's schemas keep full JSON Schema 2020-12 (`$defs`, `$ref`, …) whatever the server's profile; `"portable"` the reverse |
/// | `icon = "https://…"`, `icon(src = "…", mime_type = "…", sizes = ["48x48"], theme = "dark")` | icons (repeatable; 2025-11-25 clients) |
/// | `meta("com.example/key" = <expr>, …)` | `_meta` entries; keys follow the spec's naming rules, values are any `Serialize` expression |
/// | `scopes = ["notes:write"]` | OAuth scopes a token must grant to see and call the tool over HTTP with `HttpOptions::oauth` (403 `insufficient_scope` otherwise); not applied without a token (stdio) |
/// | `task = "optional"` | calls may run as tasks for clients of the tasks extension (`"required"`: only as tasks; `"never"`, the default) |
/// | `ui = "ui://…"` | hosts that render MCP Apps show the tool's results in this view (a `View` the server serves; the server refuses to start without it) |
/// | `app_only` | callable by views alone: hosts keep it from the model, and clients that render no views neither see nor call it |
/// | `crate = "path"` | where the runtime is, for frameworks that re-export it |
///
/// # `#[arg(...)]` and docs on parameters
///
/// `///` on a parameter describes it. `#[arg(rename = "…")]` changes its
/// name on the wire, `#[arg(description = "…")]` replaces its doc, and
/// `#[arg(default = <expr>)]` (or `#[arg(default)]` for `Default`) makes it
/// optional with that default, shown in the schema. The default expression
/// has the parameter's type and runs when the tool is listed and on each
/// call that leaves the argument out (or sends `null`).
/// `#[arg(header = "Region")]` has 2026-07-28 clients mirror the argument
/// (a string, integer or boolean) in the HTTP header `Mcp-Param-Region`
/// (`x-mcp-header` in the schema), which the server checks against it.
///
/// # Descriptions
///
/// The description is the whole doc comment, trimmed: models choose tools
/// by it, and whatever you wrote for them is worth sending. Lines keep their
/// indentation, so lists and code blocks stay readable, and
/// `#[doc = include_str!("…")]` works. To send less than the rustdoc text,
/// use `#[tool(description = "…")]`. A crate that wants every tool described
/// sets `MCP_REQUIRE_DESCRIPTIONS=1` while it compiles (from its `build.rs`:
/// `println!("cargo::rustc-env=MCP_REQUIRE_DESCRIPTIONS=1")`); tools without
/// one are then compile errors. `#![deny(missing_docs)]` also covers public
/// tools.
///
/// # What it generates
///
/// The function itself is left as written (so tests can call it directly),
/// except that `clippy::needless_pass_by_value` and
/// `clippy::missing_const_for_fn` are allowed on it: tool parameters are
/// owned by design, and a tool cannot be `const`. Next to it, a module of
/// the same name holds `Tool`, a unit struct implementing the runtime's
/// [`Tool`](../mcp_runtime/trait.Tool.html) trait, and the tool is
/// registered so that `Server::new` finds it. `Server::empty(..).tool(add::Tool)`
/// registers a subset by hand. Set `MCP_MACROS_DEBUG=1` while compiling to
/// print the expansion.
///
/// # Mistakes
///
/// Every mistake is reported at the token responsible, with the fix, and
/// all of them in one compile. A parameter type that is neither a JSON
/// argument nor supplied by the runtime:
///
/// ```compile_fail,E0277
/// use mcp_runtime::prelude::*;
///
/// struct Point { x: f64, y: f64 }
///
/// /// Distance from the origin.
/// #[tool]
/// fn norm(point: Point) -> f64 {
///     point.x.hypot(point.y)
/// }
/// # fn main() {}
/// ```
///
/// A method (tools are free functions):
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// struct Calculator;
///
/// impl Calculator {
///     /// Add.
///     #[tool]
///     fn add(&self, a: f64, b: f64) -> f64 {
///         a + b
///     }
/// }
/// # fn main() {}
/// ```
///
/// A misspelled key (the error asks "did you mean `read_only`?"):
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// /// Look something up.
/// #[tool(readonly)]
/// fn lookup(key: String) -> String {
///     key
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = tool::tool(args.into(), item.into());
    // Set `MCP_MACROS_DEBUG` to see what `#[tool]` generates.
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{expanded}");
    }
    expanded.into()
}

/// Turn a function into an MCP resource, or a resource template when its
/// URI has `{variables}`.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// The application's configuration.
/// #[resource("config://app", mime_type = "application/json")]
/// fn app_config() -> String {
///     r#"{"theme":"dark"}"#.to_owned()
/// }
///
/// /// A user's public profile.
/// #[resource("users://{id}/profile")]
/// async fn user_profile(id: u64) -> Result<String, ResourceError> {
///     if id == 0 { Err(ResourceError::not_found("no user 0")) } else { Ok(format!("user {id}")) }
/// }
/// # fn main() {}
/// ```
///
/// The doc comment is the description. The parameters named after the
/// template's variables read them (any type serde reads from text: `String`,
/// numbers, `bool`, unit enums; an `Option<T>` for a `{?query}` variable);
/// any other parameter is injected (`Context`, `State<T>`, your
/// `FromRequest` types). The return value becomes the contents through
/// `IntoResourceContents`: `String` is text (`text/plain` unless
/// `mime_type` says otherwise), `Vec<u8>` and `Blob` are base64 blobs,
/// `Json<T>` is `application/json`, and `Result<_, ResourceError>` reports
/// failures (`ResourceError::not_found` is the protocol's not-found error).
///
/// | key | value |
/// |---|---|
/// | first argument | the URI, or an RFC 6570 template: `{var}` (one segment), `{+var}` / `{var*}` (may span `/`), `{?a,b}` (query) |
/// | `name`, `title`, `description` | strings; the name defaults to the function's, the title is derived from it |
/// | `mime_type` | the contents' type |
/// | `size` | bytes (fixed URIs only) |
/// | `annotations(audience = ["user"], priority = 0.5, last_modified = "…")` | client hints |
/// | `timeout = "5s"` | stop a read after this long |
/// | `icon = "https://…"`, `meta("com.example/key" = value)`, `scopes = ["…"]`, `crate = "path"` | as for `#[tool]` |
///
/// Mistakes are compile errors at the token responsible. A template
/// variable no parameter reads:
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// /// A user's profile.
/// #[resource("users://{id}/profile")]
/// fn profile(user: u64) -> String {
///     format!("{user}")
/// }
/// # fn main() {}
/// ```
///
/// A variable of a type that cannot be read from text:
///
/// ```compile_fail,E0277
/// use mcp_runtime::prelude::*;
///
/// struct Point { x: f64 }
///
/// /// A point.
/// #[resource("points://{p}")]
/// fn point(p: Point) -> String {
///     format!("{}", p.x)
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = resource::resource(args.into(), item.into());
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{expanded}");
    }
    expanded.into()
}

/// Turn a function into an MCP prompt: a message template a client fills in
/// and shows to its model.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Review a piece of code for bugs and style.
/// #[prompt]
/// fn code_review(
///     /// The code to review
///     code: String,
///     /// The language it is written in
///     language: Option<String>,
///     /// How strict to be, from 1 to 5
///     strictness: Option<u8>,
/// ) -> Vec<PromptMessage> {
///     let language = language.unwrap_or_else(|| "code".to_owned());
///     let strictness = strictness.unwrap_or(3);
///     vec![PromptMessage::user(format!("Review this {language} at strictness {strictness}:\n{code}"))]
/// }
/// # fn main() {}
/// ```
///
/// The doc comment is the description and each parameter's `///` its
/// argument's. Arguments arrive as strings and are read into the
/// parameter's type (`String`, numbers, `bool`, unit enums by their serde
/// names); `Option<T>` makes one optional; a missing or unreadable one is
/// the protocol's invalid-params error naming it. Other parameters are
/// injected (`Context`, `State<T>`). An enum's values and a `bool`'s are
/// offered as completions by themselves; `#[arg(complete = f)]` names an
/// `async fn(Completing) -> Vec<String>` for any other argument. The return
/// value becomes messages through `IntoPromptResult`: `String` is one user
/// message; `PromptMessage::user(…)`/`assistant(…)` take text, images,
/// audio, embedded resources and resource links; `Vec<PromptMessage>`,
/// `GetPromptResult` (with a description) and `Result<_, PromptError>` work
/// too.
///
/// | key | value |
/// |---|---|
/// | `name`, `title`, `description` | strings; the name defaults to the function's |
/// | `timeout = "5s"` | stop a rendering after this long, with an error |
/// | `icon = "https://…"`, `meta("com.example/key" = value)`, `scopes = ["…"]`, `crate = "path"` | as for `#[tool]` |
/// | `#[arg(rename = "…", description = "…", complete = path)]` | on a parameter |
///
/// A parameter that cannot come from a string is a compile error at it:
///
/// ```compile_fail,E0277
/// use mcp_runtime::prelude::*;
///
/// struct Snippet { code: String }
///
/// /// Review.
/// #[prompt]
/// fn review(snippet: Snippet) -> String {
///     snippet.code
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = prompt::prompt(args.into(), item.into());
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{expanded}");
    }
    expanded.into()
}
