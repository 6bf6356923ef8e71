//! `install --from-registry NAME` and `install --server-json FILE`: how to
//! start a server that a `server.json` describes (from the MCP Registry,
//! or a file): its `cargo` package, installed with `cargo install` and
//! started as its binary, or else its remote endpoint.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Launch;
use crate::failure::Failure;
use crate::registry::http;

/// What `server.json` says to do.
#[derive(Debug)]
pub struct Plan {
    /// The entry's name unless `--name` says otherwise: the part of the
    /// registry name after its `/`.
    pub name: String,
    pub launch: Launch,
    /// The `cargo install` command line that puts the binary in place.
    pub install: Option<Vec<String>>,
    /// What the user still has to fill in.
    pub notes: Vec<String>,
}

/// The `server.json` of `name` from the registry at `registry` (its
/// latest version).
pub async fn fetch(registry: &str, name: &str) -> Result<Value, Failure> {
    let url = format!("{}/v0/servers/{}/versions/latest", registry.trim_end_matches('/'), http::segment(name));
    let response = http::client()?
        .get(&url)
        .send()
        .await
        .map_err(|e| Failure::new(format!("cannot reach the registry at {url}: {e}")))?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        return Err(Failure::new(format!("the registry has no server named `{name}`"))
            .hint("names are NAMESPACE/NAME, with case, as the registry's listing spells them"));
    }
    if !status.is_success() {
        return Err(Failure::new(format!("the registry answered {status} for `{name}`")));
    }
    let body: Value = serde_json::from_slice(&http::body(response).await?)
        .map_err(|e| Failure::new(format!("the registry's answer is not JSON: {e}")))?;
    // The registry wraps the server.json with its own metadata.
    Ok(match body.get("server") {
        Some(server) => server.clone(),
        None => body,
    })
}

/// A `server.json` file.
pub fn read(path: &Path) -> Result<Value, Failure> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| Failure::new(format!("{} is not JSON: {e}", path.display())))
}

/// How to start the server `server` describes.
pub fn plan(server: &Value, cargo_home: &Path) -> Result<Plan, Failure> {
    let full = server["name"].as_str().unwrap_or_default();
    let name = full.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or("server").to_owned();
    let packages = server["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let stdio_cargo = packages
        .iter()
        .find(|p| p["registryType"] == "cargo" && p["transport"]["type"].as_str().is_none_or(|t| t == "stdio"));
    if let Some(package) = stdio_cargo {
        return Ok(cargo_package(package, cargo_home, name));
    }
    let remote = server["remotes"].as_array().into_iter().flatten().find(|r| r["type"] == "streamable-http");
    if let Some(remote) = remote {
        let url = remote["url"].as_str().unwrap_or_default().to_owned();
        let mut notes = Vec::new();
        if url.contains('{') {
            notes.push(format!("fill in the {{variables}} of {url}"));
        }
        for header in remote["headers"].as_array().into_iter().flatten() {
            if header["isRequired"] == true {
                notes.push(format!("the endpoint needs the header {}: add it to the entry", header["name"]));
            }
        }
        return Ok(Plan { name, launch: Launch::Url(url), install: None, notes });
    }
    let kinds: Vec<String> = packages.iter().filter_map(|p| p["registryType"].as_str().map(str::to_owned)).collect();
    Err(Failure::new(format!("`{full}` has no cargo package served over stdio and no Streamable HTTP remote")).hint(
        if kinds.is_empty() {
            "its server.json lists no packages".to_owned()
        } else {
            format!("it has {} packages: install it with their tools", kinds.join(", "))
        },
    ))
}

fn cargo_package(package: &Value, cargo_home: &Path, name: String) -> Plan {
    let identifier = package["identifier"].as_str().unwrap_or_default().to_owned();
    let mut install = vec!["cargo".to_owned(), "install".to_owned(), "--locked".to_owned(), identifier.clone()];
    if let Some(version) = package["version"].as_str() {
        install.extend(["--version".to_owned(), version.to_owned()]);
    }
    let mut notes = Vec::new();
    let mut args = Vec::new();
    for argument in package["packageArguments"].as_array().into_iter().flatten() {
        let value = argument["value"].as_str().or(argument["default"].as_str());
        if argument["type"] == "named" {
            args.push(argument["name"].as_str().unwrap_or_default().to_owned());
        }
        // A named argument with neither value nor hint is a flag; with a
        // hint it takes a value, which must be there, or the next argument
        // would be read as it.
        let hint = argument["valueHint"].as_str();
        match value {
            Some(value) => args.push(value.to_owned()),
            None if argument["type"] == "positional" || hint.is_some() => {
                let hint = hint.unwrap_or("value");
                args.push(format!("<{hint}>"));
                notes.push(format!("replace <{hint}> in the arguments"));
            }
            None => {}
        }
    }
    let mut env = Map::new();
    for variable in package["environmentVariables"].as_array().into_iter().flatten() {
        let Some(key) = variable["name"].as_str() else { continue };
        match variable["value"].as_str().or(variable["default"].as_str()) {
            Some(value) => {
                env.insert(key.to_owned(), value.into());
            }
            None if variable["isRequired"] == true => notes.push(format!("set {key} in the entry's environment")),
            None => {}
        }
    }
    let command = cargo_home.join("bin").join(format!("{identifier}{}", std::env::consts::EXE_SUFFIX));
    Plan { name, launch: Launch::Command { command, args, env }, install: Some(install), notes }
}

/// Where `cargo install` puts binaries' folder's parent.
pub fn cargo_home() -> Option<PathBuf> {
    match std::env::var_os("CARGO_HOME") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => std::env::home_dir().map(|home| home.join(".cargo")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cargo_package_is_installed_and_started_with_its_arguments_and_environment() {
        let server = json!({"name": "io.github.o/weather", "packages": [
            {"registryType": "npm", "identifier": "w", "transport": {"type": "stdio"}},
            {"registryType": "cargo", "identifier": "weather-mcp", "version": "0.3.0", "transport": {"type": "stdio"},
             "packageArguments": [{"type": "positional", "value": "serve"}, {"type": "named", "name": "--city", "valueHint": "city"},
                                  {"type": "named", "name": "--verbose"}, {"type": "positional", "valueHint": "dir"}],
             "environmentVariables": [{"name": "UNITS", "default": "metric"}, {"name": "API_KEY", "isRequired": true, "isSecret": true}]}
        ]});
        let plan = plan(&server, Path::new("/home/u/.cargo")).unwrap();
        assert_eq!(plan.name, "weather");
        assert_eq!(plan.install.unwrap().join(" "), "cargo install --locked weather-mcp --version 0.3.0");
        let Launch::Command { command, args, env } = plan.launch else { panic!("not a command") };
        assert_eq!(
            command,
            Path::new("/home/u/.cargo/bin").join(format!("weather-mcp{}", std::env::consts::EXE_SUFFIX))
        );
        // `--city` takes a value, `--verbose` is a flag.
        assert_eq!(args, ["serve", "--city", "<city>", "--verbose", "<dir>"]);
        assert_eq!(Value::Object(env), json!({"UNITS": "metric"}));
        assert_eq!(
            plan.notes,
            [
                "replace <city> in the arguments",
                "replace <dir> in the arguments",
                "set API_KEY in the entry's environment"
            ]
        );
    }

    #[test]
    fn without_a_cargo_package_the_remote_is_used_and_otherwise_nothing() {
        let remote = json!({"name": "com.example/w", "remotes": [{"type": "streamable-http", "url": "https://w.example.com/mcp"}]});
        let plan = plan(&remote, Path::new("/c")).unwrap();
        assert!(matches!(plan.launch, Launch::Url(ref url) if url == "https://w.example.com/mcp"));
        let npm = json!({"name": "com.example/w", "packages": [{"registryType": "npm", "identifier": "w"}]});
        let failure = super::plan(&npm, Path::new("/c")).unwrap_err();
        assert!(failure.message().contains("no cargo package"), "{}", failure.message());
    }
}
