//! `cargo mcp serve`: a gateway (`--config FILE`, every server of an
//! `mcpServers` configuration mounted under its name and served as one),
//! or an HTTP API from its OpenAPI document (`--openapi SPEC`, with route
//! map rules and `--list`); over stdio or Streamable HTTP.

use std::process::ExitCode;

use mcp_runtime::Server;
use mcp_runtime::middleware::Logging;
use mcp_runtime::openapi::{Auth, MapTo, OpenApi, RouteMap, Sources};
use mcp_runtime::proxy::Config;

use crate::cli::ServeArgs;
use crate::failure::Failure;

pub async fn run(args: ServeArgs) -> Result<ExitCode, Failure> {
    let server = match (&args.openapi, &args.config) {
        (Some(_), _) => match openapi(&args).await? {
            Some(server) => server,
            None => return Ok(ExitCode::SUCCESS),
        },
        (None, Some(config)) => {
            let config = Config::from_file(config).map_err(|e| Failure::usage(e.to_string()))?;
            let names: Vec<&str> = config.names().collect();
            Server::empty("gateway", env!("CARGO_PKG_VERSION"))
                .instructions(format!(
                    "The tools, resources and prompts of {}, each prefixed with its name.",
                    names.join(", ")
                ))
                .layer(Logging::default())
                .mount_config(&config)
        }
        (None, None) => return Err(Failure::usage("give --config FILE or --openapi SPEC")),
    };
    let served = match &args.http {
        None => server.serve_stdio().await,
        Some(addr) => server.serve_http(addr.as_str()).await,
    };
    served.map(|()| ExitCode::SUCCESS).map_err(|e| Failure::new(e.to_string()))
}

/// The server of `--openapi`, or `None` when `--list` printed the mapping.
async fn openapi(args: &ServeArgs) -> Result<Option<Server>, Failure> {
    let spec = args.openapi.as_deref().expect("--openapi is given");
    // A file or a URL, with the files beside it (or its origin's URLs) that
    // its `$ref`s name; other origins are not followed from the command line.
    let mut api = OpenApi::load(spec, &Sources::new()).await.map_err(|e| Failure::usage(e.to_string()))?;
    if let Some(url) = &args.base_url {
        api = api.base_url(url);
    }
    for rule in &args.routes {
        api = api.route(route(rule)?);
    }
    if let Some(var) = &args.bearer_env {
        let token =
            std::env::var(var).map_err(|_| Failure::usage(format!("the environment variable {var} is not set")))?;
        api = api.auth(Auth::bearer(token));
    }
    if args.list {
        let mapping = api.mapping().map_err(|e| Failure::usage(e.to_string()))?;
        for mapped in mapping {
            let became = match (mapped.to, &mapped.name, &mapped.uri) {
                (MapTo::Tool, Some(name), _) => format!("tool {name}"),
                (MapTo::Resource, _, Some(uri)) => format!("resource {uri}"),
                (MapTo::ResourceTemplate, _, Some(uri)) => format!("template {uri}"),
                _ if mapped.left_out => "left out".to_owned(),
                _ => "excluded".to_owned(),
            };
            println!("{:<7} {:<32} {became:<40} {}", mapped.method, mapped.path, mapped.reason);
        }
        return Ok(None);
    }
    let server = Server::from_openapi(&api).map_err(|e| Failure::usage(e.to_string()))?;
    Ok(Some(server.layer(Logging::default())))
}

/// A `--route` rule: `KIND[:METHODS[:PATH[:TAGS]]]`.
fn route(rule: &str) -> Result<RouteMap, Failure> {
    let mut parts = rule.splitn(4, ':');
    let mut map = match parts.next().unwrap_or("") {
        "tool" => RouteMap::tool(),
        "resource" => RouteMap::resource(),
        "exclude" => RouteMap::exclude(),
        other => {
            return Err(Failure::usage(format!(
                "--route {rule}: `{other}` is no kind of rule (tool, resource or exclude)"
            )));
        }
    };
    fn list(text: &str) -> Vec<&str> {
        text.split(',').map(str::trim).filter(|t| !t.is_empty() && *t != "*").collect()
    }
    if let Some(methods) = parts.next().map(list).filter(|m| !m.is_empty()) {
        map = map.methods(methods);
    }
    if let Some(path) = parts.next().filter(|p| !p.is_empty()) {
        map = map.path(path);
    }
    if let Some(tags) = parts.next().map(list).filter(|t| !t.is_empty()) {
        map = map.tags(tags.into_iter().map(str::to_owned));
    }
    Ok(map)
}
