//! `cargo mcp publish`: the crate's `server.json` for the MCP Registry,
//! made from its manifest, checked against the registry's schema and
//! against the crate, written beside `Cargo.toml` and shown. Only
//! `--upload` with a registry token in `MCP_REGISTRY_TOKEN` sends it.

use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use crate::cli::PublishArgs;
use crate::failure::Failure;
use crate::output::{self, Style};
use crate::registry::manifest::Crate;
use crate::registry::{checks, http, schema, server_json};

/// Where the registry token comes from: the environment only, so that it
/// is in no command line, shell history or CI log.
pub const TOKEN_VARIABLE: &str = "MCP_REGISTRY_TOKEN";

pub async fn run(args: PublishArgs) -> Result<ExitCode, Failure> {
    let krate = Crate::load(args.manifest_path.as_deref(), args.package.as_deref())?;
    let mcp = krate.mcp()?;
    let name = server_json::registry_name(&krate, &mcp)?;
    let document = server_json::build(&krate, &mcp, &name);
    let mut findings = checks::check(&krate, &document);
    findings.errors.extend(schema::violations(&document).into_iter().map(|v| format!("schema: {v}")));

    let stderr = Style::stderr();
    for warning in &findings.warnings {
        eprintln!("{} {warning}", stderr.yellow("warning:"));
    }
    let text = format!("{}\n", serde_json::to_string_pretty(&document).unwrap_or_default());
    if !findings.errors.is_empty() {
        print!("{text}");
        let count = findings.errors.len();
        let mut failure = Failure::new(format!(
            "the registry would refuse this server.json ({count} problem{})",
            if count == 1 { "" } else { "s" }
        ));
        for error in &findings.errors {
            failure = failure.detail(format!("- {error}"));
        }
        return Err(failure.hint("fix them in Cargo.toml or the README, then run cargo mcp publish again"));
    }

    let out = args.out.clone().unwrap_or_else(|| krate.dir().join("server.json"));
    std::fs::write(&out, &text).map_err(|e| Failure::new(format!("cannot write {}: {e}", out.display())))?;
    print!("{text}");
    output::progress("Checked", &format!("`{name}` {} against the 2025-12-11 schema and the crate", krate.version));
    output::progress("Wrote", &out.display().to_string());
    if !args.upload {
        let dry = stderr.bold("dry run:");
        eprintln!("{dry} nothing was sent; this is what `--upload` would send to {}", args.registry);
        return Ok(ExitCode::SUCCESS);
    }
    upload(&args.registry, &document, &out).await?;
    output::progress("Published", &format!("`{name}` {} to {}", krate.version, args.registry));
    Ok(ExitCode::SUCCESS)
}

/// Send `document` to the registry's publish endpoint with the token.
async fn upload(registry: &str, document: &Value, written: &Path) -> Result<(), Failure> {
    let token = std::env::var(TOKEN_VARIABLE).ok().filter(|t| !t.trim().is_empty()).ok_or_else(|| {
        Failure::new(format!("--upload needs a registry token in {TOKEN_VARIABLE}")).hint(format!(
            "get a token from the registry (its own `mcp-publisher login` gets one), export it as \
             {TOKEN_VARIABLE}, and run again; {} is ready meanwhile",
            written.display()
        ))
    })?;
    let url = format!("{}/v0/publish", registry.trim_end_matches('/'));
    let response = http::client()?
        .post(&url)
        .bearer_auth(token.trim())
        .json(document)
        .send()
        .await
        .map_err(|e| Failure::new(format!("cannot reach the registry at {url}: {e}")))?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    // The registry's answer says what it refused; it never holds the token.
    let body = http::body(response).await.unwrap_or_default();
    let body: String = String::from_utf8_lossy(&body).chars().take(4000).collect();
    Err(Failure::new(format!("the registry refused the server.json ({status})")).detail(body))
}
