//! What each real MCP client rejects in a server's definitions, as rules
//! over the definitions exactly as a client receives them (a `Tool`, a
//! `Prompt`, …): the one place `cargo mcp inspect` and
//! `mcp_runtime::testing::check_clients` both read.
//!
//! Each rule cites the client behaviour it encodes (the issues and pull
//! requests collected in the project's client survey); a problem names the
//! client, the definition, the field path and the fix. The portable schema
//! profile (the default) avoids every problem these rules find in schemas
//! made from ordinary Rust types; what remains under the strict profile,
//! in hand-written schemas or in names is reported here.
//!
//! Two rules are judgement calls, documented where they are made:
//! integer bounds beyond 2^53 − 1 are reported for the clients written in
//! JavaScript (the TypeScript SDK and Electron apps), which read every JSON
//! number as a double; and an `outputSchema` is reported for Claude
//! Desktop, which has greyed out or failed tools that declare one.

use serde::Serialize;
use serde_json::Value;

use crate::jsonrpc::JsonObject;
use crate::schema::{MAX_SAFE_INTEGER, SCHEMA_ARRAY_KEYS, SCHEMA_KEYS, SCHEMA_MAP_KEYS};
use crate::tool::Tool;

/// A client (or the model API behind it) with rules of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KnownClient {
    /// Claude Desktop.
    ClaudeDesktop,
    /// Claude Code.
    ClaudeCode,
    /// Cursor.
    Cursor,
    /// GitHub Copilot in VS Code.
    VsCode,
    /// GitHub Copilot in Visual Studio.
    VisualStudio,
    /// Gemini CLI (and Gemini behind other clients).
    GeminiCli,
    /// OpenAI Codex and OpenAI's function calling.
    Codex,
}

impl KnownClient {
    /// Every client, in the order verdicts are shown.
    pub const ALL: [KnownClient; 7] = [
        KnownClient::ClaudeDesktop,
        KnownClient::ClaudeCode,
        KnownClient::Cursor,
        KnownClient::VsCode,
        KnownClient::VisualStudio,
        KnownClient::GeminiCli,
        KnownClient::Codex,
    ];

    /// Its short id, as command lines take it (`claude-desktop`, `codex`, …).
    pub fn id(self) -> &'static str {
        match self {
            KnownClient::ClaudeDesktop => "claude-desktop",
            KnownClient::ClaudeCode => "claude-code",
            KnownClient::Cursor => "cursor",
            KnownClient::VsCode => "vscode",
            KnownClient::VisualStudio => "visual-studio",
            KnownClient::GeminiCli => "gemini-cli",
            KnownClient::Codex => "codex",
        }
    }

    /// Its name, as people write it.
    pub fn name(self) -> &'static str {
        match self {
            KnownClient::ClaudeDesktop => "Claude Desktop",
            KnownClient::ClaudeCode => "Claude Code",
            KnownClient::Cursor => "Cursor",
            KnownClient::VsCode => "VS Code Copilot",
            KnownClient::VisualStudio => "Visual Studio Copilot",
            KnownClient::GeminiCli => "Gemini CLI",
            KnownClient::Codex => "OpenAI Codex",
        }
    }

    /// The client with this [`id`](Self::id).
    pub fn from_id(id: &str) -> Option<KnownClient> {
        KnownClient::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// How badly a client takes a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The client rejects the definition, drops the tool, or fails the
    /// request or the session: a user of that client cannot use it.
    Error,
    /// The client mishandles it but the tool still works in part (a field
    /// read as a string, a bound rounded), or it has been seen to fail in
    /// some releases and not others.
    Warning,
}

/// One thing one client rejects or mishandles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The client.
    pub client: KnownClient,
    /// Whether the client fails on it or only mishandles it.
    pub severity: Severity,
    /// What it is in: `tool add`, `prompt review`, …
    pub item: String,
    /// Where in it, as a path of keys: `inputSchema.properties.shape.oneOf`
    /// (empty for the item itself, such as its name).
    pub path: String,
    /// What the client does with it.
    pub message: String,
    /// How to fix it in the server's code.
    pub fix: String,
}

/// How many errors and warnings: `1 error`, `2 errors, 1 warning`,
/// `1 warning` (empty for none).
pub fn tally<'p>(problems: impl IntoIterator<Item = &'p Problem>) -> String {
    let (mut errors, mut warnings) = (0, 0);
    for problem in problems {
        match problem.severity {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
        }
    }
    let counted = |n: usize, noun: &str| match n {
        0 => None,
        1 => Some(format!("1 {noun}")),
        n => Some(format!("{n} {noun}s")),
    };
    [counted(errors, "error"), counted(warnings, "warning")].into_iter().flatten().collect::<Vec<_>>().join(", ")
}

/// The problems every client has with one tool, as `tools/list` sends it.
pub fn check_tool(tool: &Tool) -> Vec<Problem> {
    let mut found = Found { item: format!("tool {}", tool.name), problems: Vec::new() };
    tool_name(tool, &mut found);
    walk(&tool.input_schema, "inputSchema".into(), Place::Input, true, &mut found);
    if let Some(output) = &tool.output_schema {
        output_schema_declared(&mut found);
        walk(output, "outputSchema".into(), Place::Output, true, &mut found);
    }
    found.problems
}

/// The problems every client has with these tools, one tool after another.
pub fn check_tools<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Vec<Problem> {
    tools.into_iter().flat_map(check_tool).collect()
}

/// The clients whose schema handling runs on JavaScript numbers (doubles):
/// the TypeScript SDK's validators and the Electron and Node apps.
const JAVASCRIPT: &[KnownClient] = &[
    KnownClient::ClaudeDesktop,
    KnownClient::ClaudeCode,
    KnownClient::Cursor,
    KnownClient::VsCode,
    KnownClient::GeminiCli,
];

/// The fix for anything the portable profile shapes away.
const PORTABLE: &str = "use the portable schema profile (the default): drop `#[tool(schema = \"strict\")]`, \
                        `Server::schema_profile(SchemaProfile::Strict)` or `ToolBuilder::schema_profile`";

/// Which of a tool's schemas a subschema is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Input,
    Output,
}

/// One subschema, where a client meets it.
struct At<'a> {
    schema: &'a JsonObject,
    path: &'a str,
    place: Place,
    /// The schema's root (`inputSchema` itself).
    root: bool,
}

impl At<'_> {
    fn key(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }
}

/// The problems found so far in one item.
struct Found {
    item: String,
    problems: Vec<Problem>,
}

impl Found {
    /// An error of each of `clients`.
    fn add(&mut self, clients: &[KnownClient], path: &str, message: &str, fix: &str) {
        self.push(Severity::Error, clients, path, message, fix);
    }

    /// A warning of each of `clients`.
    fn warn(&mut self, clients: &[KnownClient], path: &str, message: &str, fix: &str) {
        self.push(Severity::Warning, clients, path, message, fix);
    }

    fn push(&mut self, severity: Severity, clients: &[KnownClient], path: &str, message: &str, fix: &str) {
        for &client in clients {
            self.problems.push(Problem {
                client,
                severity,
                item: self.item.clone(),
                path: path.to_owned(),
                message: message.to_owned(),
                fix: fix.to_owned(),
            });
        }
    }
}

/// The rules each subschema is checked with.
const SCHEMA_RULES: &[fn(&At<'_>, &mut Found)] = &[
    gemini_combinators,
    type_arrays,
    references,
    dialect,
    gemini_additional_properties,
    cursor_closed_empty_arguments,
    openai_root,
    openai_object_without_properties,
    openai_nested_any_of,
    copilot_array_items,
    claude_code_nullable,
    javascript_integer_bounds,
    output_nonstandard_format,
];

/// Check `schema` and every subschema in it (never data such as `enum` or
/// `default` values).
fn walk(schema: &JsonObject, path: String, place: Place, root: bool, found: &mut Found) {
    let at = At { schema, path: &path, place, root };
    for rule in SCHEMA_RULES {
        rule(&at, found);
    }
    for (key, child) in schema {
        let key = key.as_str();
        if SCHEMA_MAP_KEYS.contains(&key) {
            for (name, child) in child.as_object().into_iter().flatten() {
                if let Value::Object(child) = child {
                    walk(child, format!("{path}.{key}.{name}"), place, false, found);
                }
            }
        } else if SCHEMA_ARRAY_KEYS.contains(&key) && child.is_array() {
            for (i, child) in child.as_array().into_iter().flatten().enumerate() {
                if let Value::Object(child) = child {
                    walk(child, format!("{path}.{key}[{i}]"), place, false, found);
                }
            }
        } else if SCHEMA_KEYS.contains(&key)
            && let Value::Object(child) = child
        {
            walk(child, format!("{path}.{key}"), place, false, found);
        }
    }
}

fn type_of(schema: &JsonObject) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

/// Visual Studio drops a tool whose name has characters outside
/// `^[a-zA-Z0-9_-]{1,128}$`, dots included, though the spec allows them
/// (microsoft/vscode#325618; sdl-mcp#34).
fn tool_name(tool: &Tool, found: &mut Found) {
    let simple = !tool.name.is_empty()
        && tool.name.len() <= 128
        && tool.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !simple {
        found.add(
            &[KnownClient::VisualStudio],
            "name",
            "tool names outside ^[a-zA-Z0-9_-]{1,128}$ are rejected (dots included), and the tool is dropped",
            "rename the tool with letters, digits, `_` and `-` only: #[tool(name = \"…\")]",
        );
    }
}

/// Claude Desktop greys out a tool that declares an `outputSchema`, or
/// fails its calls before they reach the server (PrefectHQ/fastmcp#2654;
/// anthropics/claude-code#80105, Claude Desktop 1.24012). Reported because
/// it has recurred across releases; a server that serves Claude Desktop
/// users turns output schemas off. A warning, not an error: it comes and
/// goes with releases, and structured output is otherwise the advice.
fn output_schema_declared(found: &mut Found) {
    found.warn(
        &[KnownClient::ClaudeDesktop],
        "outputSchema",
        "tools that declare an `outputSchema` have been greyed out, or their calls failed without reaching the server",
        "if Claude Desktop users matter, leave the output schema out: `#[tool(output_schema = false)]` on this tool \
         or `Server::output_schemas(false)` for all (structured results are still sent)",
    );
}

/// Gemini's function declarations have no `oneOf`, `anyOf` or `allOf`: the
/// request fails (Gemini behind Copilot CLI, github/copilot-cli#4623), and
/// an `anyOf` with no `type` beside it fails even where the others pass
/// (google/adk-python#3281; google-gemini/gemini-cli#13326).
fn gemini_combinators(at: &At<'_>, found: &mut Found) {
    for key in ["oneOf", "anyOf", "allOf"] {
        if !at.schema.contains_key(key) {
            continue;
        }
        let message = if key == "anyOf" && !at.schema.contains_key("type") {
            "an `anyOf` without a `type` beside it fails the whole request".to_owned()
        } else {
            format!("`{key}` is not part of Gemini's schema subset: the request fails")
        };
        let fix = format!(
            "{PORTABLE}, which makes a data enum one object and `Option<T>` a plain `T`; an untagged enum of \
             different types has no portable shape: tag it (`#[serde(tag = \"kind\")]`) or take one type"
        );
        found.add(&[KnownClient::GeminiCli], &at.key(key), &message, &fix);
    }
}

/// `"type": ["integer", "null"]` (schemars' `Option<T>`) is refused by
/// Cursor and Windsurf (modelcontextprotocol/rust-sdk#135) and by Gemini,
/// where one such schema in `items` fails every request of the session
/// (github/copilot-cli#4623).
fn type_arrays(at: &At<'_>, found: &mut Found) {
    if at.schema.get("type").is_some_and(Value::is_array) {
        found.add(
            &[KnownClient::Cursor, KnownClient::GeminiCli],
            &at.key("type"),
            "a list of types (`[\"T\", \"null\"]`) is rejected",
            &format!("{PORTABLE}: `Option<T>` becomes the plain `T`, left out of `required`"),
        );
    }
}

/// `$ref` and `$defs` (schemars' shape for every named type). Gemini cannot
/// resolve them (google-gemini/gemini-cli#13326, #13142); Cursor chokes on
/// `$defs` (davideast/stitch-mcp#184); Claude Desktop sends `null` for an
/// enum reached through `$ref` (PrefectHQ/fastmcp#1193) and its local
/// connector drops `$defs` (anthropics/claude-ai-mcp#591); VS Code has
/// trouble with `$ref` (microsoft/vscode#286415); Claude Code fails the
/// whole `tools/list` for `$defs`/`$ref` in an `outputSchema`
/// (anthropics/claude-code#76040, #76881).
fn references(at: &At<'_>, found: &mut Found) {
    let fix = format!(
        "{PORTABLE}, which inlines every `$ref`; a recursive type cannot be inlined: break the recursion with \
         `serde_json::Value` (or `Box<serde_json::Value>`)"
    );
    let output = at.place == Place::Output;
    if at.schema.contains_key("$ref") {
        let mut clients = vec![KnownClient::ClaudeDesktop, KnownClient::VsCode, KnownClient::GeminiCli];
        if output {
            clients.push(KnownClient::ClaudeCode);
        }
        let message = if output {
            "`$ref` is not resolved (or resolved wrongly: Claude Desktop sends `null` for an enum behind one), \
             and in an output schema Claude Code fails the whole tool list"
        } else {
            "`$ref` is not resolved, or resolved wrongly (Claude Desktop sends `null` for an enum behind one)"
        };
        found.add(&clients, &at.key("$ref"), message, &fix);
    }
    for key in ["$defs", "definitions"] {
        if at.schema.contains_key(key) {
            let mut clients = vec![KnownClient::ClaudeDesktop, KnownClient::Cursor, KnownClient::GeminiCli];
            if output {
                clients.push(KnownClient::ClaudeCode);
            }
            let message = format!("`{key}` is dropped or cannot be resolved, so the references into it break");
            found.add(&clients, &at.key(key), &message, &fix);
        }
    }
}

/// `$schema` breaks clients whichever dialect it names: Gemini fails on
/// 2020-12 ("no schema with key or ref", google-gemini/gemini-cli#14970);
/// VS Code omits tools whose `$schema` it cannot fetch
/// (modelcontextprotocol/rust-sdk#179); Claude Code validates output
/// schemas as 2020-12 only and fails a draft-07 one
/// (anthropics/claude-code#88882; modelcontextprotocol/typescript-sdk#2721).
fn dialect(at: &At<'_>, found: &mut Found) {
    let Some(dialect) = at.schema.get("$schema") else { return };
    let dialect = dialect.as_str().unwrap_or_default();
    let path = at.key("$schema");
    let fix = format!("{PORTABLE}, which omits `$schema` (without one, a schema is 2020-12)");
    found.add(
        &[KnownClient::GeminiCli],
        &path,
        "a `$schema` keyword is rejected (\"no schema with key or ref\")",
        &fix,
    );
    let known = ["http://json-schema.org/", "https://json-schema.org/"].iter().any(|p| dialect.starts_with(p));
    if !known {
        found.add(
            &[KnownClient::VsCode],
            &path,
            "a `$schema` it cannot fetch makes it omit the tool (\"tools with invalid parameters\")",
            &fix,
        );
    }
    if at.place == Place::Output && !dialect.contains("2020-12") {
        found.add(
            &[KnownClient::ClaudeCode],
            &path,
            "an output schema of a dialect other than 2020-12 fails the call",
            &fix,
        );
    }
}

/// Gemini takes no `additionalProperties` but `true`: `false` is rejected
/// (anomalyco/opencode PR #14234), and so is a schema, such as a map's
/// values (Intugle/data-tools PR #157; github/copilot-cli#4623).
fn gemini_additional_properties(at: &At<'_>, found: &mut Found) {
    let (message, fix) = match at.schema.get("additionalProperties") {
        None | Some(Value::Bool(true)) => return,
        Some(Value::Bool(false)) => (
            "`additionalProperties: false` is rejected",
            format!(
                "{PORTABLE}, which leaves it out (unknown fields are still refused at call time); or drop \
                 `#[serde(deny_unknown_fields)]`"
            ),
        ),
        Some(_) => (
            "`additionalProperties` with a schema (a map's values) is rejected",
            format!("{PORTABLE}, which describes a map's values in words instead"),
        ),
    };
    found.add(&[KnownClient::GeminiCli], &at.key("additionalProperties"), message, &fix);
}

/// Cursor gives a tool without arguments a placeholder argument, which
/// `additionalProperties: false` then refuses (formbricks PR #8859).
fn cursor_closed_empty_arguments(at: &At<'_>, found: &mut Found) {
    let empty = at.schema.get("properties").and_then(Value::as_object).is_none_or(|p| p.is_empty());
    if at.root
        && at.place == Place::Input
        && empty
        && at.schema.get("additionalProperties") == Some(&Value::Bool(false))
    {
        found.add(
            &[KnownClient::Cursor],
            &at.key("additionalProperties"),
            "the placeholder argument it sends to a tool without arguments is refused by `additionalProperties: false`",
            &format!("{PORTABLE}, which leaves `additionalProperties: false` out"),
        );
    }
}

/// OpenAI's function calling (Codex included) refuses `anyOf`, `oneOf`,
/// `allOf`, `enum` and `not` at the root of the parameters
/// (flywheel_connectors#49).
fn openai_root(at: &At<'_>, found: &mut Found) {
    if !at.root || at.place != Place::Input {
        return;
    }
    for key in ["anyOf", "oneOf", "allOf", "enum", "not"] {
        if at.schema.contains_key(key) {
            found.add(
                &[KnownClient::Codex],
                &at.key(key),
                &format!("`{key}` at the root of the input schema is rejected"),
                "give the input schema a plain object root (`{\"type\":\"object\",\"properties\":{…}}`) and move the \
                 alternatives into a property: take the enum as one parameter of the tool",
            );
        }
    }
}

/// OpenAI (Codex included) refuses an object schema without `properties`:
/// a tool without `properties: {}` (iwdp-mcp#3), and in strict function
/// calling any object, such as a map that has only `additionalProperties`.
fn openai_object_without_properties(at: &At<'_>, found: &mut Found) {
    if type_of(at.schema) != Some("object") || at.schema.contains_key("properties") {
        return;
    }
    let fix = if at.root {
        "give the input schema `\"properties\": {}`, as the portable and strict profiles both do for `#[tool]`"
            .to_owned()
    } else {
        format!("{PORTABLE}, which gives every object (a map too) `properties`")
    };
    found.add(&[KnownClient::Codex], at.path, "an object schema without `properties` is rejected", &fix);
}

/// Codex turns an `anyOf` field into a plain string (openai/codex#13768): a
/// warning, as the tool stays usable with string values.
fn openai_nested_any_of(at: &At<'_>, found: &mut Found) {
    if !at.root && at.place == Place::Input && at.schema.contains_key("anyOf") {
        found.warn(
            &[KnownClient::Codex],
            &at.key("anyOf"),
            "an `anyOf` field is turned into a plain string",
            &format!("{PORTABLE}, which makes `Option<T>` a plain `T` and a data enum one object"),
        );
    }
}

/// Copilot (VS Code and Visual Studio) refuses an array without `items`,
/// and one such tool breaks the whole session (microsoft/vscode#325618).
fn copilot_array_items(at: &At<'_>, found: &mut Found) {
    if type_of(at.schema) == Some("array") && !at.schema.get("items").is_some_and(Value::is_object) {
        found.add(
            &[KnownClient::VsCode, KnownClient::VisualStudio],
            at.path,
            "an array without an `items` schema is rejected, and one such tool breaks every request of the session",
            &format!("{PORTABLE}, which gives every array (a tuple too) `items`"),
        );
    }
}

/// `"nullable": true` (OpenAPI 3.0, not JSON Schema) makes Claude Code's
/// sub-agents crash silently while loading tools (MikkoParkkola/nab#61).
fn claude_code_nullable(at: &At<'_>, found: &mut Found) {
    if at.schema.contains_key("nullable") {
        found.add(
            &[KnownClient::ClaudeCode],
            &at.key("nullable"),
            "`nullable` makes sub-agents crash silently while loading tools",
            "remove `nullable` from the schema: an optional field is `Option<T>`, left out of `required`",
        );
    }
}

/// An integer bound beyond ±(2^53 − 1), such as a `u64`'s maximum, is read
/// by JavaScript as a rounded double (the client survey's `u64` case;
/// apollographql/apollo-mcp-server#245 for the `int64` formats of Ajv-based
/// clients): the client validates a different range than the server, and
/// near the bound cannot send the value it means. Reported for the clients
/// that run on JavaScript; Codex (Rust) and Visual Studio (.NET) read the
/// bound exactly. A warning: only values near the bound are affected.
fn javascript_integer_bounds(at: &At<'_>, found: &mut Found) {
    if type_of(at.schema) != Some("integer") {
        return;
    }
    let limit = MAX_SAFE_INTEGER as f64;
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        let Some(bound) = at.schema.get(key).filter(|b| b.as_f64().is_some_and(|b| b.abs() > limit)) else {
            continue;
        };
        found.warn(
            JAVASCRIPT,
            &at.key(key),
            &format!("`{key}` {bound} is beyond ±(2^53 − 1), which a JavaScript number holds exactly"),
            &format!(
                "{PORTABLE}, which clamps integer bounds to ±9007199254740991; or bound the value yourself, \
                 e.g. `#[schemars(range(max = 9007199254740991))]`"
            ),
        );
    }
}

/// Clients on the TypeScript SDK validate `structuredContent` against the
/// `outputSchema` with Ajv, which errors or floods warnings on schemars'
/// own formats (`uint32`, `int64`, `double`;
/// apollographql/apollo-mcp-server#245).
fn output_nonstandard_format(at: &At<'_>, found: &mut Found) {
    if at.place != Place::Output {
        return;
    }
    let Some(format) = at.schema.get("format").and_then(Value::as_str) else { return };
    if crate::schema::STANDARD_FORMATS.contains(&format) {
        return;
    }
    found.add(
        &[KnownClient::ClaudeDesktop, KnownClient::ClaudeCode, KnownClient::GeminiCli],
        &at.key("format"),
        &format!("the format `{format}` is unknown to Ajv, which validates the tool's results"),
        &format!("{PORTABLE}, which drops formats JSON Schema does not define and keeps integer widths as bounds"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(input: Value) -> Tool {
        Tool::new("t", input.as_object().unwrap().clone())
    }

    fn with_output(output: Value) -> Tool {
        let mut tool = tool(json!({"type": "object", "properties": {}}));
        tool.output_schema = Some(output.as_object().unwrap().clone());
        tool
    }

    /// (client id, path) of every problem.
    fn found(tool: &Tool) -> Vec<(&'static str, String)> {
        check_tool(tool).into_iter().map(|p| (p.client.id(), p.path)).collect()
    }

    fn clients_at(tool: &Tool, path: &str) -> Vec<&'static str> {
        found(tool).into_iter().filter(|(_, p)| p == path).map(|(c, _)| c).collect()
    }

    #[test]
    fn ids_round_trip_and_a_plain_tool_is_clear() {
        for client in KnownClient::ALL {
            assert_eq!(KnownClient::from_id(client.id()), Some(client));
        }
        assert_eq!(KnownClient::from_id("netscape"), None);
        let plain = tool(json!({"type": "object", "properties": {
            "a": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"type": "string", "enum": ["fast", "slow"]}
        }, "required": ["a"]}));
        assert_eq!(found(&plain), []);
    }

    #[test]
    fn names_outside_visual_studios_pattern() {
        let mut t = tool(json!({"type": "object", "properties": {}}));
        t.name = "notes.search".into();
        assert_eq!(found(&t), [("visual-studio", String::new() + "name")]);
        t.name = "notes_search-2".into();
        assert_eq!(found(&t), []);
    }

    #[test]
    fn combinators_for_gemini_and_codex() {
        let t = tool(json!({"type": "object", "properties": {
            "shape": {"type": "object", "oneOf": [{"type": "object", "properties": {}}]},
            "id": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        }}));
        assert_eq!(clients_at(&t, "inputSchema.properties.shape.oneOf"), ["gemini-cli"]);
        assert_eq!(clients_at(&t, "inputSchema.properties.id.anyOf"), ["gemini-cli", "codex"]);
        let gemini = check_tool(&t).into_iter().find(|p| p.path.ends_with("id.anyOf")).unwrap();
        assert!(gemini.message.contains("without a `type`"), "{}", gemini.message);
        let root = tool(json!({"type": "object", "properties": {}, "oneOf": [{"required": ["a"]}], "enum": [{}]}));
        assert_eq!(clients_at(&root, "inputSchema.oneOf"), ["gemini-cli", "codex"]);
        assert_eq!(clients_at(&root, "inputSchema.enum"), ["codex"]);
    }

    #[test]
    fn type_lists_for_cursor_and_gemini() {
        let t = tool(json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}));
        assert_eq!(clients_at(&t, "inputSchema.properties.n.type"), ["cursor", "gemini-cli"]);
    }

    #[test]
    fn references_per_client_and_place() {
        let input = tool(json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}},
            "$defs": {"P": {"type": "object", "properties": {}}}}));
        assert_eq!(clients_at(&input, "inputSchema.properties.p.$ref"), ["claude-desktop", "vscode", "gemini-cli"]);
        assert_eq!(clients_at(&input, "inputSchema.$defs"), ["claude-desktop", "cursor", "gemini-cli"]);
        let output = with_output(json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}},
            "$defs": {"P": {"type": "string"}}}));
        assert!(clients_at(&output, "outputSchema.properties.p.$ref").contains(&"claude-code"));
        assert!(clients_at(&output, "outputSchema.$defs").contains(&"claude-code"));
    }

    #[test]
    fn dialects() {
        let t = tool(json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "properties": {}}));
        assert_eq!(clients_at(&t, "inputSchema.$schema"), ["gemini-cli"]);
        let t = tool(json!({"$schema": "https://spec.openapis.org/oas/3.0/schema", "type": "object",
            "properties": {}}));
        assert_eq!(clients_at(&t, "inputSchema.$schema"), ["gemini-cli", "vscode"]);
        let t = with_output(json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {}}));
        assert_eq!(clients_at(&t, "outputSchema.$schema"), ["gemini-cli", "claude-code"]);
    }

    #[test]
    fn additional_properties() {
        let map = tool(json!({"type": "object", "properties": {
            "m": {"type": "object", "additionalProperties": {"type": "number"}},
            "open": {"type": "object", "properties": {}, "additionalProperties": true},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}
        }}));
        assert_eq!(
            found(&map),
            [
                ("gemini-cli", "inputSchema.properties.m.additionalProperties".to_owned()),
                ("codex", "inputSchema.properties.m".to_owned()),
                ("gemini-cli", "inputSchema.properties.closed.additionalProperties".to_owned()),
            ]
        );
        let closed_empty = tool(json!({"type": "object", "properties": {}, "additionalProperties": false}));
        assert_eq!(clients_at(&closed_empty, "inputSchema.additionalProperties"), ["gemini-cli", "cursor"]);
    }

    #[test]
    fn objects_without_properties_for_codex() {
        let t = tool(json!({"type": "object"}));
        assert_eq!(found(&t), [("codex", "inputSchema".to_owned())]);
    }

    #[test]
    fn arrays_without_items_for_copilot() {
        let t = tool(json!({"type": "object", "properties": {
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}]},
            "any": {"type": "array", "items": true},
            "fine": {"type": "array", "items": {}}
        }}));
        assert_eq!(
            found(&t),
            [
                ("vscode", "inputSchema.properties.tuple".to_owned()),
                ("visual-studio", "inputSchema.properties.tuple".to_owned()),
                ("vscode", "inputSchema.properties.any".to_owned()),
                ("visual-studio", "inputSchema.properties.any".to_owned()),
            ]
        );
    }

    #[test]
    fn nullable_for_claude_code() {
        let t = tool(json!({"type": "object", "properties": {"s": {"type": "string", "nullable": true}}}));
        assert_eq!(found(&t), [("claude-code", "inputSchema.properties.s.nullable".to_owned())]);
    }

    #[test]
    fn integer_bounds_beyond_javascript() {
        let t = tool(json!({"type": "object", "properties": {
            "big": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64},
            "safe": {"type": "integer", "minimum": -9007199254740991i64, "maximum": 9007199254740991i64},
            "float": {"type": "number", "maximum": 1e300}
        }}));
        assert_eq!(
            clients_at(&t, "inputSchema.properties.big.maximum"),
            ["claude-desktop", "claude-code", "cursor", "vscode", "gemini-cli"]
        );
        assert_eq!(found(&t).len(), 5);
    }

    #[test]
    fn output_schemas_for_claude_desktop_and_their_formats() {
        let t = with_output(json!({"type": "object", "properties": {
            "n": {"type": "integer", "format": "uint32"}, "at": {"type": "string", "format": "date-time"}
        }}));
        assert_eq!(
            found(&t),
            [
                ("claude-desktop", "outputSchema".to_owned()),
                ("claude-desktop", "outputSchema.properties.n.format".to_owned()),
                ("claude-code", "outputSchema.properties.n.format".to_owned()),
                ("gemini-cli", "outputSchema.properties.n.format".to_owned()),
            ]
        );
        let input_format =
            tool(json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint32"}}}));
        assert_eq!(found(&input_format), []);
    }

    #[test]
    fn every_problem_says_how_to_fix_it() {
        let t = tool(json!({"$schema": "x", "type": "object", "properties": {
            "a": {"type": ["string", "null"], "nullable": true}, "b": {"$ref": "#/$defs/B"},
            "m": {"type": "object", "additionalProperties": {"type": "string"}}, "l": {"type": "array"}
        }, "$defs": {"B": {"anyOf": [{"type": "string"}]}}, "oneOf": [{}]}));
        let problems = check_tool(&t);
        assert!(problems.len() > 15);
        for p in problems {
            assert!(!p.fix.is_empty() && !p.message.is_empty(), "{p:?}");
            assert_eq!(p.item, "tool t");
        }
    }
}
