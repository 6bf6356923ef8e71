//! `cargo mcp new NAME [--template KIND]`: a crate that builds, answers a
//! client and passes its own tests at once: tools in `src/lib.rs`,
//! `src/main.rs` serving them, a `TestClient` test and a `check_clients`
//! test, a README with its `mcp-name:` line, and the `[package.metadata.mcp]`
//! table `cargo mcp publish` reads.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::{NewArgs, Template};
use crate::failure::Failure;
use crate::output::{self, Style};

const LIB: &str = include_str!("../../templates/lib.rs");
const TESTS: &str = include_str!("../../templates/tests.rs");
const STDIO_MAIN: &str = include_str!("../../templates/stdio/main.rs");
const HTTP_MAIN: &str = include_str!("../../templates/http/main.rs");
const OAUTH_MAIN: &str = include_str!("../../templates/oauth/main.rs");
const OAUTH_LIB_EXTRA: &str = include_str!("../../templates/oauth/lib-extra.rs");
const GATEWAY_MAIN: &str = include_str!("../../templates/gateway/main.rs");
const GATEWAY_CONFIG: &str = include_str!("../../templates/gateway/gateway.example.json");
const GATEWAY_TESTS_EXTRA: &str = include_str!("../../templates/gateway/tests-extra.rs");
const OPENAPI_LIB: &str = include_str!("../../templates/openapi/lib.rs");
const OPENAPI_MAIN: &str = include_str!("../../templates/openapi/main.rs");
const OPENAPI_DOCUMENT: &str = include_str!("../../templates/openapi/openapi.yaml");
const OPENAPI_TESTS: &str = include_str!("../../templates/openapi/tests.rs");
const README: &str = include_str!("../../templates/README.md");

pub fn run(args: NewArgs) -> Result<ExitCode, Failure> {
    check_name(&args.name)?;
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(&args.name));
    if dir.exists() && std::fs::read_dir(&dir).map(|mut d| d.next().is_some()).unwrap_or(true) {
        return Err(Failure::new(format!("{} already exists and is not empty", dir.display()))
            .hint("pick another name, or another folder with --dir"));
    }
    let runtime = match &args.runtime_path {
        Some(path) => Some(runtime_crate(path)?),
        None => None,
    };
    let mcp_name = args.mcp_name.clone().unwrap_or_else(|| format!("io.github.YOUR-GITHUB-LOGIN/{}", args.name));
    let files = files(&args.name, args.template, &mcp_name, runtime.as_deref());
    for (path, text) in &files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Failure::new(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, text).map_err(|e| Failure::new(format!("cannot write {}: {e}", path.display())))?;
    }
    output::progress("Created", &format!("{} ({} template) in {}", args.name, label(args.template), dir.display()));
    let stderr = Style::stderr();
    if args.mcp_name.is_none() {
        eprintln!(
            "{:>12} {}",
            "",
            stderr.dim(&format!(
                "its registry name is `{mcp_name}`: put your GitHub login in Cargo.toml and README.md \
                 (or pass --mcp-name)"
            ))
        );
    }
    if runtime.is_none() {
        let line = format!(
            "it depends on mcp-runtime {} from the package registry; until that release is there, make it \
             with --runtime-path pointing at a clone",
            env!("CARGO_PKG_VERSION")
        );
        eprintln!("{:>12} {}", "", stderr.dim(&line));
    }
    eprintln!("{:>12} {}", "", stderr.dim(&format!("next: cd {} && cargo test", dir.display())));
    Ok(ExitCode::SUCCESS)
}

/// Every file of the crate, by its path in the crate.
pub fn files(name: &str, template: Template, mcp_name: &str, runtime: Option<&Path>) -> Vec<(String, String)> {
    let fill = |text: &str| {
        text.replace("{{name}}", name).replace("{{crate}}", &name.replace('-', "_")).replace("{{mcp_name}}", mcp_name)
    };
    let (lib, main, tests) = match template {
        Template::Stdio => (LIB.to_owned(), STDIO_MAIN, TESTS.to_owned()),
        Template::Http => (LIB.to_owned(), HTTP_MAIN, TESTS.to_owned()),
        Template::Oauth => (format!("{LIB}{OAUTH_LIB_EXTRA}"), OAUTH_MAIN, TESTS.to_owned()),
        Template::Gateway => (LIB.to_owned(), GATEWAY_MAIN, format!("{TESTS}{GATEWAY_TESTS_EXTRA}")),
        Template::Openapi => (OPENAPI_LIB.to_owned(), OPENAPI_MAIN, OPENAPI_TESTS.to_owned()),
    };
    let mut files = vec![
        ("Cargo.toml".to_owned(), manifest(name, template, mcp_name, runtime)),
        ("src/lib.rs".to_owned(), fill(&lib)),
        ("src/main.rs".to_owned(), fill(main)),
        ("tests/tools.rs".to_owned(), fill(&tests)),
        ("README.md".to_owned(), fill(&readme(template))),
        (".gitignore".to_owned(), "/target\n".to_owned()),
    ];
    match template {
        Template::Gateway => files.push(("gateway.example.json".to_owned(), GATEWAY_CONFIG.to_owned())),
        Template::Openapi => files.push(("openapi.yaml".to_owned(), fill(OPENAPI_DOCUMENT))),
        _ => {}
    }
    files
}

fn label(template: Template) -> &'static str {
    match template {
        Template::Stdio => "stdio",
        Template::Http => "http",
        Template::Oauth => "oauth",
        Template::Gateway => "gateway",
        Template::Openapi => "openapi",
    }
}

/// `Cargo.toml`: the dependency lines the template needs, and what the
/// registry's `server.json` needs that a manifest does not say.
fn manifest(name: &str, template: Template, mcp_name: &str, runtime: Option<&Path>) -> String {
    let (features, description, metadata) = match template {
        Template::Stdio => (&[][..], "An MCP server: tools over stdio", String::new()),
        Template::Http => (&[][..], "An MCP server: tools over Streamable HTTP", http_metadata(&[])),
        Template::Oauth => (
            &["oauth"][..],
            "An MCP server: tools over Streamable HTTP, for OAuth access tokens",
            http_metadata(&[r#"{ name = "MCP_OAUTH_ISSUER", description = "The authorization server's issuer URL", isRequired = true }"#]),
        ),
        Template::Gateway => (
            &["proxy"][..],
            "An MCP gateway: other servers' tools served as one",
            r#"environment-variables = [
    { name = "MCP_GATEWAY_CONFIG", description = "The mcpServers file of the servers to mount", default = "gateway.json", format = "filepath" },
]
"#
            .to_owned(),
        ),
        Template::Openapi => (
            &["openapi"][..],
            "An MCP server: an HTTP API's operations as tools",
            r#"environment-variables = [
    { name = "API_BASE_URL", description = "The API's base URL (the document's own when unset)" },
    { name = "API_TOKEN", description = "A bearer token for the API", isSecret = true },
]
"#
            .to_owned(),
        ),
    };
    let mut spec = match runtime {
        Some(path) => format!("path = {}", toml_string(&path.to_string_lossy())),
        None => format!("version = \"{}\"", env!("CARGO_PKG_VERSION")),
    };
    if !features.is_empty() {
        let listed: Vec<String> = features.iter().map(|f| format!("\"{f}\"")).collect();
        spec.push_str(&format!(", features = [{}]", listed.join(", ")));
    }
    let runtime_tokio = match template {
        Template::Http | Template::Oauth => "tokio = { version = \"1\", features = [\"rt-multi-thread\"] }\n",
        _ => "",
    };
    let test_tokio = match template {
        Template::Openapi => r#"tokio = { version = "1", features = ["macros", "rt", "net", "io-util"] }"#,
        _ => r#"tokio = { version = "1", features = ["macros", "rt"] }"#,
    };
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
description = "{description}"
license = "MIT OR Apache-2.0"
readme = "README.md"
# repository = "https://github.com/YOUR-GITHUB-LOGIN/{name}"

# What `cargo mcp publish` puts in the MCP Registry's server.json beyond
# this manifest; the README's `mcp-name:` line repeats `name`.
[package.metadata.mcp]
name = "{mcp_name}"
{metadata}
[dependencies]
mcp-runtime = {{ {spec} }}
{runtime_tokio}
[dev-dependencies]
{test_tokio}
serde_json = "1"
"#
    )
}

/// The metadata of a server that serves HTTP where `MCP_HTTP_ADDR` says.
fn http_metadata(more: &[&str]) -> String {
    let mut variables = vec![
        r#"{ name = "MCP_HTTP_ADDR", description = "The address to listen on", default = "127.0.0.1:8000" }"#,
        r#"{ name = "MCP_PUBLIC_URL", description = "The endpoint's URL as clients reach it, for the server card" }"#,
    ];
    variables.extend(more);
    let listed: String = variables.iter().map(|v| format!("    {v},\n")).collect();
    format!(
        "transport = {{ type = \"streamable-http\", url = \"http://{{MCP_HTTP_ADDR}}/mcp\" }}\nenvironment-variables = [\n{listed}]\n"
    )
}

fn readme(template: Template) -> String {
    let run = match template {
        Template::Stdio => {
            "A client starts it over stdio (`cargo mcp install claude-desktop`, or any client's config);\n\
             `MCP_TRANSPORT=http cargo run` serves Streamable HTTP at `127.0.0.1:8000/mcp` instead.\n\n\
             ```sh\ncargo mcp inspect\ncargo mcp call add a=2 b=3\n```"
        }
        Template::Http => {
            "```sh\ncargo run    # Streamable HTTP at http://127.0.0.1:8000/mcp (MCP_HTTP_ADDR to change)\n\
             cargo mcp call add a=2 b=3 --url http://127.0.0.1:8000/mcp\n\
             curl http://127.0.0.1:8000/mcp/server-card\n```\n\n\
             The server card (experimental, after the SEP-2127 draft) tells clients the server's name, version\n\
             and transport before they connect. Set `MCP_PUBLIC_URL` once deployed, `MCP_TOKEN` to require a token."
        }
        Template::Oauth => {
            "```sh\nMCP_OAUTH_ISSUER=https://auth.example.com cargo run\n```\n\n\
             Every request needs an access token from that authorization server, issued for this server\n\
             (`MCP_PUBLIC_URL`, `http://127.0.0.1:8000/mcp` by default); `whoami` needs the `profile` scope."
        }
        Template::Gateway => {
            "List the servers to mount in `gateway.json` (the `mcpServers` JSON clients keep; `gateway.example.json`\n\
             shows one with a command and a URL), then `cargo run`. Their tools are served beside this crate's own,\n\
             each prefixed with its server's name (`calc_add`); without the file only the crate's own are served."
        }
        Template::Openapi => {
            "`openapi.yaml` describes the API; each operation is a tool named by its `operationId`.\n\n\
             ```sh\nAPI_BASE_URL=https://api.example.com cargo run    # API_TOKEN for a bearer token\n```"
        }
    };
    README.replace("{{run}}", run)
}

/// The folder of the `mcp-runtime` crate in `path`: the crate itself, or
/// a checkout of the repository that holds it.
fn runtime_crate(path: &Path) -> Result<PathBuf, Failure> {
    let path = std::path::absolute(path)?;
    for candidate in [path.join("mcp-runtime"), path.clone()] {
        let manifest = candidate.join("Cargo.toml");
        let is_runtime = std::fs::read_to_string(&manifest).is_ok_and(|t| t.contains("name = \"mcp-runtime\""));
        if is_runtime {
            return Ok(candidate.canonicalize().unwrap_or(candidate));
        }
    }
    Err(Failure::usage(format!("{} holds no mcp-runtime crate", path.display()))
        .hint("name the checkout's root or its mcp-runtime folder"))
}

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A crate name cargo takes.
fn check_name(name: &str) -> Result<(), Failure> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if valid {
        return Ok(());
    }
    Err(Failure::usage(format!("`{name}` is not a crate name"))
        .hint("use letters, digits, `-` and `_`, starting with a letter"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_depends_by_path_or_by_version_with_the_templates_features() {
        let by_version = manifest("w", Template::Openapi, "io.github.o/w", None);
        assert!(
            by_version.contains(&format!(
                "mcp-runtime = {{ version = \"{}\", features = [\"openapi\"] }}",
                env!("CARGO_PKG_VERSION")
            )),
            "{by_version}"
        );
        let by_path = manifest("w", Template::Stdio, "io.github.o/w", Some(Path::new("/src/mcp-runtime")));
        assert!(by_path.contains("mcp-runtime = { path = \"/src/mcp-runtime\" }"), "{by_path}");
    }

    #[test]
    fn names_cargo_refuses_are_refused() {
        for bad in ["1st", "a b", "", "a.b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name("weather-mcp_2").is_ok());
    }
}
