//! `cargo mcp inspect`: everything a server offers, and each client's
//! verdict on it.

use std::process::ExitCode;

use mcp_core::clients::{self, KnownClient, Problem, Severity};
use mcp_core::providers::{self, Provider};
use mcp_core::{Prompt, Resource, ResourceTemplate, Tool, methods};
use mcp_runtime_client::Era;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::cli::InspectArgs;
use crate::connect::Connection;
use crate::failure::Failure;
use crate::output::{self, Style};

/// What the server lists, each item typed and as it was sent.
struct Definitions {
    tools: Vec<(Tool, Value)>,
    resources: Vec<(Resource, Value)>,
    templates: Vec<(ResourceTemplate, Value)>,
    prompts: Vec<(Prompt, Value)>,
}

/// How the report is printed.
enum Report {
    Text,
    Json,
    /// The tools alone, as that model API's tool definitions.
    Provider(Provider),
}

pub async fn run(args: InspectArgs) -> Result<ExitCode, Failure> {
    let deny = denied_clients(&args.deny)?;
    let report = match (&args.format, args.json) {
        (Some(id), _) => Report::Provider(Provider::from_id(id).ok_or_else(|| {
            let ids: Vec<&str> = Provider::ALL.iter().map(|p| p.id()).collect();
            Failure::usage(format!("`{id}` is not a model API cargo mcp knows"))
                .hint(format!("--format takes {}", ids.join(", ")))
        })?),
        (None, true) => Report::Json,
        (None, false) => Report::Text,
    };
    let connection = Connection::open(&args.connect).await?;
    let listed = list(&connection).await;
    let found = match listed {
        Ok(found) => found,
        Err(failure) => {
            connection.close().await;
            return Err(failure);
        }
    };
    let problems = problems(&found);
    match &report {
        Report::Json => println!("{}", output::pretty(&document(&connection, &found, &problems), 0)),
        Report::Text => print!("{}", text(&connection, &found, &problems, &Style::stdout())),
        Report::Provider(provider) => {
            let tools = providers::convert_all(*provider, found.tools.iter().map(|(tool, _)| tool));
            println!("{}", output::pretty(&Value::Array(tools), 0));
        }
    }
    connection.close().await;
    let counted = |p: &&Problem| deny.contains(&p.client) && (p.severity == Severity::Error || args.deny_warnings);
    let counted: Vec<&Problem> = problems.iter().filter(counted).collect();
    if counted.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let failing: Vec<&str> =
        deny.iter().filter(|client| counted.iter().any(|p| p.client == **client)).map(|c| c.name()).collect();
    let what = if args.deny_warnings { "--deny with --deny-warnings" } else { "--deny counts errors" };
    let failure = Failure::new(format!(
        "{} would have problems with this server: {} ({what})",
        failing.join(", "),
        clients::tally(counted.iter().copied())
    ));
    // Only the text report shows the problems "above"; JSON carries its
    // own `problems`, and scripts want no prose.
    Err(match report {
        Report::Text => failure.hint("each problem above says how to fix it"),
        Report::Json => failure,
        Report::Provider(_) => failure.hint("run without --format to see each problem and how to fix it"),
    })
}

/// `--deny` as clients: ids, or `all`.
fn denied_clients(given: &[String]) -> Result<Vec<KnownClient>, Failure> {
    let mut clients = Vec::new();
    for id in given.iter().map(|id| id.trim()).filter(|id| !id.is_empty()) {
        if id == "all" {
            return Ok(KnownClient::ALL.to_vec());
        }
        let Some(client) = KnownClient::from_id(id) else {
            let ids: Vec<&str> = KnownClient::ALL.iter().map(|c| c.id()).collect();
            return Err(Failure::usage(format!("`{id}` is not a client cargo mcp knows"))
                .hint(format!("clients are: {}, or `all`", ids.join(", "))));
        };
        clients.push(client);
    }
    Ok(clients)
}

async fn list(connection: &Connection) -> Result<Definitions, Failure> {
    let capabilities = &connection.negotiated.capabilities;
    let mut found =
        Definitions { tools: Vec::new(), resources: Vec::new(), templates: Vec::new(), prompts: Vec::new() };
    if capabilities.tools.is_some() {
        found.tools = pages(connection, methods::TOOLS_LIST, "tools").await?;
    }
    if capabilities.resources.is_some() {
        found.resources = pages(connection, methods::RESOURCES_LIST, "resources").await?;
        found.templates = pages(connection, methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates").await?;
    }
    if capabilities.prompts.is_some() {
        found.prompts = pages(connection, methods::PROMPTS_LIST, "prompts").await?;
    }
    Ok(found)
}

/// Every item of a paged list (`tools/list`, …), each typed and as it was
/// sent (the client's typed lists leave out what they cannot use, and the
/// report shows everything); `key` is the array's field in each page.
/// The client reads the pages, bounded as all its lists are (pages,
/// items, no cursor twice, the whole list within `--timeout`).
async fn pages<T: DeserializeOwned>(
    connection: &Connection,
    method: &str,
    key: &str,
) -> Result<Vec<(T, Value)>, Failure> {
    let listed = connection.list(method, key).await?;
    let mut items = Vec::with_capacity(listed.len());
    for raw in listed {
        let item = T::deserialize(&raw).map_err(|e| {
            Failure::new(format!("`{method}` sent an entry cargo mcp cannot read: {e}")).detail(output::pretty(&raw, 0))
        })?;
        items.push((item, raw));
    }
    Ok(items)
}

/// Every client's problems with these definitions. Rules for prompts and
/// resources join here as `mcp_core::clients` grows them.
fn problems(found: &Definitions) -> Vec<Problem> {
    found.tools.iter().flat_map(|(tool, _)| clients::check_tool(tool)).collect()
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Handshake => "handshake",
        Era::Stateless => "modern",
    }
}

fn document(connection: &Connection, found: &Definitions, problems: &[Problem]) -> Value {
    let raw = |items: Vec<&Value>| Value::Array(items.into_iter().cloned().collect());
    let clients: Vec<Value> = KnownClient::ALL
        .iter()
        .map(|c| {
            let theirs = problems.iter().filter(|p| p.client == *c);
            let errors = theirs.clone().filter(|p| p.severity == Severity::Error).count();
            let warnings = theirs.count() - errors;
            json!({"id": c.id(), "name": c.name(), "allClear": errors + warnings == 0, "errors": errors, "warnings": warnings})
        })
        .collect();
    json!({
        "server": connection.negotiated.server_info,
        "protocolVersion": connection.negotiated.version,
        "era": era_name(connection.negotiated.era),
        "instructions": connection.negotiated.instructions,
        "capabilities": connection.negotiated.capabilities,
        "tools": raw(found.tools.iter().map(|(_, raw)| raw).collect()),
        "resources": raw(found.resources.iter().map(|(_, raw)| raw).collect()),
        "resourceTemplates": raw(found.templates.iter().map(|(_, raw)| raw).collect()),
        "prompts": raw(found.prompts.iter().map(|(_, raw)| raw).collect()),
        "clients": clients,
        "problems": problems,
    })
}

fn text(connection: &Connection, found: &Definitions, problems: &[Problem], style: &Style) -> String {
    let mut out = String::new();
    let server = match &connection.negotiated.server_info {
        Some(info) => format!("{} {}", info.name, info.version),
        None => "the server".to_owned(),
    };
    out.push_str(&format!(
        "{} {}\n",
        style.bold(&server),
        style.dim(&format!("(protocol {}, {})", connection.negotiated.version, connection.endpoint))
    ));
    if let Some(instructions) = &connection.negotiated.instructions {
        out.push_str(&format!("{}\n{}\n", style.bold("Instructions"), indent(instructions, 2)));
    }

    section(&mut out, style, "Tools", found.tools.len());
    for (tool, _) in &found.tools {
        out.push_str(&format!("  {}{}\n", style.cyan(&style.bold(&tool.name)), title(&tool.title, style)));
        describe(&mut out, &tool.description);
        if let Some(annotations) = tool.annotations.as_ref().filter(|a| !a.is_empty()) {
            let annotations = serde_json::to_value(annotations).unwrap_or_default();
            out.push_str(&format!("    {} {}\n", style.dim("annotations:"), compact(&annotations)));
        }
        out.push_str(&format!(
            "    {}\n      {}\n",
            style.dim("input schema:"),
            output::pretty(&json!(tool.input_schema), 6)
        ));
        if let Some(schema) = &tool.output_schema {
            out.push_str(&format!(
                "    {}\n      {}\n",
                style.dim("output schema:"),
                output::pretty(&json!(schema), 6)
            ));
        }
    }

    section(&mut out, style, "Resources", found.resources.len());
    for (resource, _) in &found.resources {
        let mime = resource.mime_type.as_deref().map(|m| format!(" [{m}]")).unwrap_or_default();
        out.push_str(&format!(
            "  {} {}{}{}\n",
            style.cyan(&style.bold(&resource.uri)),
            resource.name,
            title(&resource.title, style),
            style.dim(&mime)
        ));
        describe(&mut out, &resource.description);
    }

    section(&mut out, style, "Resource templates", found.templates.len());
    for (template, _) in &found.templates {
        let mime = template.mime_type.as_deref().map(|m| format!(" [{m}]")).unwrap_or_default();
        out.push_str(&format!(
            "  {} {}{}{}\n",
            style.cyan(&style.bold(&template.uri_template)),
            template.name,
            title(&template.title, style),
            style.dim(&mime)
        ));
        describe(&mut out, &template.description);
    }

    section(&mut out, style, "Prompts", found.prompts.len());
    for (prompt, _) in &found.prompts {
        out.push_str(&format!("  {}{}\n", style.cyan(&style.bold(&prompt.name)), title(&prompt.title, style)));
        describe(&mut out, &prompt.description);
        for argument in prompt.arguments.iter().flatten() {
            let required = if argument.required == Some(true) { " (required)" } else { "" };
            let description = argument.description.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
            out.push_str(&format!(
                "    {} {}{}{}\n",
                style.dim("argument"),
                argument.name,
                style.dim(required),
                description
            ));
        }
    }

    out.push_str(&format!("\n{}\n", style.bold("Clients")));
    let width = KnownClient::ALL.iter().map(|c| c.name().len()).max().unwrap_or(0);
    for client in KnownClient::ALL {
        let theirs: Vec<&Problem> = problems.iter().filter(|p| p.client == client).collect();
        let name = format!("{:width$}", client.name());
        if theirs.is_empty() {
            out.push_str(&format!("  {} {name}  {}\n", style.green("✓"), style.green("all clear")));
            continue;
        }
        let count = clients::tally(theirs.iter().copied());
        if theirs.iter().any(|p| p.severity == Severity::Error) {
            out.push_str(&format!("  {} {name}  {}\n", style.red("✗"), style.red(&count)));
        } else {
            out.push_str(&format!("  {} {name}  {}\n", style.yellow("!"), style.yellow(&count)));
        }
        for problem in theirs {
            let place = if problem.path.is_empty() {
                problem.item.clone()
            } else {
                format!("{}, {}", problem.item, problem.path)
            };
            let severity = match problem.severity {
                Severity::Error => style.red("error"),
                Severity::Warning => style.yellow("warning"),
            };
            out.push_str(&format!("      {severity} {}: {}\n", style.bold(&place), problem.message));
            out.push_str(&format!("        {} {}\n", style.yellow("fix:"), problem.fix));
        }
    }
    out
}

fn section(out: &mut String, style: &Style, name: &str, count: usize) {
    out.push_str(&format!("\n{} {}\n", style.bold(name), style.dim(&format!("({count})"))));
    if count == 0 {
        out.push_str(&format!("  {}\n", style.dim("none")));
    }
}

fn title(title: &Option<String>, style: &Style) -> String {
    title.as_deref().map(|t| format!(" {}", style.dim(&format!("“{t}”")))).unwrap_or_default()
}

fn describe(out: &mut String, description: &Option<String>) {
    if let Some(description) = description.as_deref().filter(|d| !d.trim().is_empty()) {
        out.push_str(&indent(description.trim_end(), 4));
        out.push('\n');
    }
}

fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    text.lines()
        .map(|line| if line.is_empty() { String::new() } else { format!("{pad}{line}") })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `{"readOnlyHint": true}` as `readOnlyHint: true`.
fn compact(value: &Value) -> String {
    match value.as_object() {
        Some(object) => object.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", "),
        None => value.to_string(),
    }
}
