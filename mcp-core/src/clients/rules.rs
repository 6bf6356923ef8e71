//! The rules themselves, one function each, every one citing the client
//! behaviour it encodes: the name and output-schema rules run once per
//! tool, [`SCHEMA_RULES`] on every subschema.

use serde_json::Value;

use super::{At, Found, KnownClient, Place};
use crate::jsonrpc::JsonObject;
use crate::schema::MAX_SAFE_INTEGER;
use crate::tool::Tool;

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

/// The rules each subschema is checked with.
pub(super) const SCHEMA_RULES: &[fn(&At<'_>, &mut Found)] = &[
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

fn type_of(schema: &JsonObject) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

/// Visual Studio drops a tool whose name has characters outside
/// `^[a-zA-Z0-9_-]{1,128}$`, dots included, though the spec allows them
/// (microsoft/vscode#325618; sdl-mcp#34).
pub(super) fn tool_name(tool: &Tool, found: &mut Found) {
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
pub(super) fn output_schema_declared(found: &mut Found) {
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
