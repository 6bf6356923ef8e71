//! The `server.json` of a crate, as the MCP Registry's 2025-12-11 schema
//! has it: the crate as a `cargo` package (installed with `cargo install`
//! and run as its binary), plus any remote deployments.

use serde_json::{Map, Value, json};

use super::manifest::{Crate, McpMetadata};
use crate::failure::Failure;

/// The schema every generated `server.json` names (and is checked
/// against: `schemas/server.schema.2025-12-11.json`).
pub const SCHEMA_URL: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The server's registry name: `[package.metadata.mcp] name`, or, for a
/// crate whose repository is on GitHub, `io.github.OWNER/CRATE` with the
/// owner spelled exactly as in the URL (the registry compares names with
/// case, and grants `io.github.` names by the GitHub login as GitHub
/// spells it).
pub fn registry_name(krate: &Crate, mcp: &McpMetadata) -> Result<String, Failure> {
    if let Some(name) = &mcp.name {
        return Ok(name.clone());
    }
    match krate.repository.as_deref().and_then(github_owner) {
        Some(owner) => Ok(format!("io.github.{owner}/{}", krate.name)),
        None => Err(Failure::new("the server has no name for the registry").hint(
            "set `name = \"io.github.YOU/NAME\"` (or your domain reversed: `com.example/NAME`) under \
             [package.metadata.mcp] in Cargo.toml, and the same `mcp-name:` line in its README",
        )),
    }
}

/// The owner in a GitHub repository URL, as it is written there.
pub fn github_owner(url: &str) -> Option<&str> {
    let rest = url.split_once("://github.com/")?.1;
    let owner = rest.split('/').next()?;
    (!owner.is_empty()).then_some(owner)
}

/// The `server.json` describing `krate` under `name`.
pub fn build(krate: &Crate, mcp: &McpMetadata, name: &str) -> Value {
    let mut out = Map::new();
    out.insert("$schema".into(), SCHEMA_URL.into());
    out.insert("name".into(), name.into());
    if let Some(title) = &mcp.title {
        out.insert("title".into(), title.clone().into());
    }
    let description = krate.description.as_deref().map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "));
    out.insert("description".into(), description.unwrap_or_default().into());
    out.insert("version".into(), krate.version.clone().into());
    if let Some(url) = &krate.repository {
        out.insert("repository".into(), repository(url));
    }
    if let Some(home) = &krate.homepage {
        out.insert("websiteUrl".into(), home.clone().into());
    }
    let mut package = json!({
        "registryType": "cargo",
        "identifier": krate.name,
        "version": krate.version,
        "transport": mcp.transport.clone().unwrap_or_else(|| json!({"type": "stdio"})),
    });
    if !mcp.environment_variables.is_empty() {
        package["environmentVariables"] = mcp.environment_variables.clone().into();
    }
    if !mcp.package_arguments.is_empty() {
        package["packageArguments"] = mcp.package_arguments.clone().into();
    }
    out.insert("packages".into(), json!([package]));
    if !mcp.remotes.is_empty() {
        out.insert("remotes".into(), mcp.remotes.clone().into());
    }
    Value::Object(out)
}

/// The repository object: the URL without `.git`, and its host's name.
fn repository(url: &str) -> Value {
    let url = url.trim_end_matches('/').trim_end_matches(".git");
    let source = if url.contains("://github.com/") {
        "github"
    } else if url.contains("://gitlab.com/") {
        "gitlab"
    } else {
        url.split_once("://").and_then(|(_, rest)| rest.split('/').next()).unwrap_or("git")
    };
    json!({"url": url, "source": source})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(repository: Option<&str>) -> Crate {
        serde_json::from_value(json!({
            "name": "weather-mcp", "version": "0.3.0", "description": "Forecasts\n  for any city",
            "repository": repository, "manifest_path": "/w/Cargo.toml",
        }))
        .unwrap()
    }

    #[test]
    fn the_name_keeps_the_github_owners_case_and_an_explicit_name_wins() {
        let mcp = McpMetadata::default();
        let name = registry_name(&krate(Some("https://github.com/AkaOwner/weather.git")), &mcp).unwrap();
        assert_eq!(name, "io.github.AkaOwner/weather-mcp");
        let named = McpMetadata { name: Some("com.example/weather".into()), ..McpMetadata::default() };
        assert_eq!(registry_name(&krate(None), &named).unwrap(), "com.example/weather");
        let failure = registry_name(&krate(Some("https://example.org/x")), &mcp).unwrap_err();
        assert!(failure.message().contains("no name for the registry"), "{}", failure.message());
    }

    #[test]
    fn the_crate_is_a_cargo_package_with_what_the_metadata_adds() {
        let mcp = McpMetadata {
            environment_variables: vec![json!({"name": "API_KEY", "isRequired": true, "isSecret": true})],
            remotes: vec![json!({"type": "streamable-http", "url": "https://weather.example.com/mcp"})],
            ..McpMetadata::default()
        };
        let doc = build(&krate(Some("https://github.com/o/weather.git")), &mcp, "io.github.o/weather-mcp");
        assert_eq!(
            doc,
            json!({
                "$schema": SCHEMA_URL,
                "name": "io.github.o/weather-mcp",
                "description": "Forecasts for any city",
                "version": "0.3.0",
                "repository": {"url": "https://github.com/o/weather", "source": "github"},
                "packages": [{
                    "registryType": "cargo", "identifier": "weather-mcp", "version": "0.3.0",
                    "transport": {"type": "stdio"},
                    "environmentVariables": [{"name": "API_KEY", "isRequired": true, "isSecret": true}],
                }],
                "remotes": [{"type": "streamable-http", "url": "https://weather.example.com/mcp"}],
            })
        );
    }
}
