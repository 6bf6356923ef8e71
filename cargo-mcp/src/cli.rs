//! The command line: `cargo mcp <command>`, each command's flags and the
//! examples its `--help` shows.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Make, inspect, call, install, run, serve and publish MCP servers built
/// with Cargo.
#[derive(Debug, Parser)]
#[command(name = "cargo mcp", bin_name = "cargo mcp", version, after_help = TOP_EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

const TOP_EXAMPLES: &str = "\
Examples:
  cargo mcp inspect --example calculator
  cargo mcp call calculator operation=add a=2 b=3 --example calculator
  cargo mcp install claude-desktop --example calculator
  cargo mcp run --example everything --http 127.0.0.1:3001";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List a server's tools, resources, templates and prompts with their
    /// schemas, and what each MCP client makes of them
    #[command(after_help = INSPECT_EXAMPLES)]
    Inspect(InspectArgs),
    /// Call one tool and print its result
    #[command(after_help = CALL_EXAMPLES)]
    Call(CallArgs),
    /// Read one resource and print its contents
    #[command(after_help = READ_EXAMPLES)]
    Read(ReadArgs),
    /// Get one prompt, filled in with arguments, and print its messages
    #[command(after_help = PROMPT_EXAMPLES)]
    Prompt(PromptArgs),
    /// Build the server in release mode and add it to an MCP client's
    /// configuration
    #[command(after_help = INSTALL_EXAMPLES)]
    Install(InstallArgs),
    /// Build and run the server over stdio, or over Streamable HTTP
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// Serve every server of an `mcpServers` configuration as one (a
    /// gateway, each server's tools prefixed with its name), or an HTTP
    /// API from its OpenAPI document
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(ServeArgs),
    /// Make a new server crate that builds, answers a client and passes
    /// its tests at once
    #[command(after_help = NEW_EXAMPLES)]
    New(NewArgs),
    /// Write the crate's server.json for the MCP Registry, checked against
    /// the registry's schema and the crate (a dry run unless --upload)
    #[command(after_help = PUBLISH_EXAMPLES)]
    Publish(PublishArgs),
}

const NEW_EXAMPLES: &str = "\
Examples:
  cargo mcp new weather                       tools in src/lib.rs, served over stdio
  cargo mcp new weather --template http       Streamable HTTP, with a server card
  cargo mcp new weather --template oauth      HTTP taking OAuth access tokens
  cargo mcp new hub --template gateway        other servers mounted as one
  cargo mcp new petstore --template openapi   an HTTP API's operations as tools
  cargo mcp new weather --runtime-path ../mcp-runtime   depend on a local checkout

Then: cd weather && cargo test && cargo mcp publish";

const PUBLISH_EXAMPLES: &str = "\
Examples:
  cargo mcp publish                        check and write server.json; send nothing
  cargo mcp publish --out /tmp/server.json
  MCP_REGISTRY_TOKEN=... cargo mcp publish --upload

The name comes from [package.metadata.mcp] name, or io.github.OWNER/CRATE for a crate on GitHub;
the README must show `mcp-name: NAME` as visible text. Environment variables, arguments and
remotes go under [package.metadata.mcp] in the registry's shape:
  [package.metadata.mcp]
  name = \"io.github.you/weather\"
  environment-variables = [{ name = \"API_KEY\", isRequired = true, isSecret = true }]
  remotes = [{ type = \"streamable-http\", url = \"https://weather.example.com/mcp\" }]";

const SERVE_EXAMPLES: &str = "\
Examples:
  cargo mcp serve --config gateway.json                      over stdio
  cargo mcp serve --config gateway.json --http 127.0.0.1:3000

The file is the JSON MCP clients keep their servers in:
  {\"mcpServers\": {\"calc\": {\"command\": \"calculator\"}, \"web\": {\"url\": \"http://127.0.0.1:8001/mcp\"}}}
A tool `add` of `calc` is served as `calc_add`.

From an OpenAPI document:
  cargo mcp serve --openapi petstore.yaml --base-url http://127.0.0.1:8080/v1
  cargo mcp serve --openapi petstore.yaml --route exclude:DELETE --route resource:GET --list
  cargo mcp serve --openapi petstore.yaml --route 'exclude::^/admin' --bearer-env PETSTORE_TOKEN --http 127.0.0.1:3000
  cargo mcp inspect -- cargo-mcp serve --openapi petstore.yaml";

const INSPECT_EXAMPLES: &str = "\
Examples:
  cargo mcp inspect                              the package's only binary
  cargo mcp inspect --example calculator         an example, built first
  cargo mcp inspect --json --example calculator  one JSON document, for scripts
  cargo mcp inspect --deny all                   exit status 1 if any client has an error
  cargo mcp inspect --deny all --deny-warnings   … or a warning
  cargo mcp inspect --format openai              the tools as OpenAI function definitions
  cargo mcp inspect --deny visual-studio,cursor  … if one of these has
  cargo mcp inspect --url http://127.0.0.1:3001/mcp
  cargo mcp inspect -- ./target/debug/my-server --some-flag

Clients: claude-desktop, claude-code, cursor, vscode, visual-studio, gemini-cli, codex.";

const CALL_EXAMPLES: &str = "\
Examples:
  cargo mcp call add a=2 b=3 --example adder
  cargo mcp call calculator --args '{\"operation\": \"divide\", \"a\": 1, \"b\": 0}' --example calculator
  cargo mcp call search query=rust 'tags=[\"a\",\"b\"]' --url http://127.0.0.1:3001/mcp
  cargo mcp call add a=2 b=3 --era handshake -- ./target/debug/my-server

A value that parses as JSON is JSON (`n=3`, `ok=true`, `tags=[\"a\"]`); anything else is a string
(`name=Ada`); quote a string that looks like JSON as JSON (`id='\"42\"'`).
Exit status 1 when the tool reports an error (`isError`) or the request fails.";

const READ_EXAMPLES: &str = "\
Examples:
  cargo mcp read notes://index --example notes
  cargo mcp read 'users://42/profile' --json --url http://127.0.0.1:3001/mcp";

const PROMPT_EXAMPLES: &str = "\
Examples:
  cargo mcp prompt summarize_note title=welcome --example notes
  cargo mcp prompt code_review code='fn main() {}' focus=style -- ./target/debug/my-server";

const INSTALL_EXAMPLES: &str = "\
Examples:
  cargo mcp install claude-desktop --example calculator
  cargo mcp install cursor --bin my-server --name tools
  cargo mcp install vscode --dry-run                  show the build, the entry and the file; do nothing
  cargo mcp install gemini-cli --config ./settings.json
  cargo mcp install claude-code -- --verbose          arguments for the server
  cargo mcp install goose --from-registry io.github.owner/weather   a server the MCP Registry lists
  cargo mcp install mcp-json --server-json server.json --dry-run

Files (before any change, the old one is kept as <file>.bak):
  claude-desktop  ~/.config/Claude/claude_desktop_config.json
                  (macOS: ~/Library/Application Support/Claude/…, Windows: %APPDATA%\\Claude\\…)
  claude-code     ~/.claude.json (the user's servers, for every project)
  cursor          ~/.cursor/mcp.json
  vscode          .vscode/mcp.json in the workspace
  gemini-cli      ~/.gemini/settings.json
  goose           ~/.config/goose/config.yaml (Windows: %APPDATA%\\Block\\goose\\config\\…)
  mcp-json        ./mcp.json";

const RUN_EXAMPLES: &str = "\
Examples:
  cargo mcp run --example calculator                   stdio, for a client that spawns it
  cargo mcp run --example everything --http 127.0.0.1:3001
  cargo mcp run --bin my-server --release -- --flag    arguments after -- go to the server

Over HTTP the server gets `MCP_TRANSPORT=http` and `MCP_HTTP_ADDR`, which `Server::run`
reads; a server whose `main` calls `serve_stdio` itself always serves stdio.";

/// Which target of the Cargo project to build.
#[derive(Debug, Default, Args)]
pub struct BuildArgs {
    /// Build and use this example
    #[arg(long, value_name = "NAME", conflicts_with = "bin")]
    pub example: Option<String>,
    /// Build and use this binary (by default the package's only one)
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// The package the target is in, when several have one of that name
    #[arg(short, long, value_name = "SPEC")]
    pub package: Option<String>,
    /// Build with the release profile
    #[arg(long, conflicts_with = "profile")]
    pub release: bool,
    /// Build with this profile
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
}

/// How to reach the server, and how to speak to it.
#[derive(Debug, Args)]
pub struct ConnectArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// Connect to a server already serving Streamable HTTP at this URL
    #[arg(long, value_name = "URL", conflicts_with_all = ["example", "bin", "package"])]
    pub url: Option<String>,
    /// An HTTP header for every request to --url, such as `Authorization: Bearer TOKEN`
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// Which protocol era to speak
    #[arg(long, value_enum, default_value_t = EraChoice::Auto)]
    pub era: EraChoice,
    /// How long to wait for each answer, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub timeout: u64,
    /// Show the server's stderr (its logs) as it runs
    #[arg(short, long)]
    pub verbose: bool,
    /// Start this command as the server (stdio) instead of building one
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The protocol era to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EraChoice {
    /// `initialize` with 2025-11-25, then `notifications/initialized`
    Handshake,
    /// 2026-07-28: no handshake, each request carries its version and capabilities
    Modern,
    /// modern if the server answers `server/discover`, else handshake
    Auto,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Print one JSON document (definitions and problems) instead of text
    #[arg(long)]
    pub json: bool,
    /// Exit with status 1 when one of these clients has an error: it would reject a tool or fail (ids separated by commas, or `all`)
    #[arg(long, value_name = "CLIENT,…", value_delimiter = ',')]
    pub deny: Vec<String>,
    /// With --deny, count those clients' warnings too (a tool they mishandle, or that fails in some of their releases)
    #[arg(long, requires = "deny")]
    pub deny_warnings: bool,
    /// Print only the tools, as a model API's tool definitions: openai, anthropic or gemini
    #[arg(long, value_name = "API", conflicts_with = "json")]
    pub format: Option<String>,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool to call
    pub tool: String,
    /// Arguments as KEY=VALUE; a VALUE that parses as JSON is JSON, else a string
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,
    /// All arguments as one JSON object (KEY=VALUE pairs are set on top of it)
    #[arg(long = "args", value_name = "JSON")]
    pub arguments: Option<String>,
    /// Print the result as JSON, as the server sent it
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The resource's URI
    pub uri: String,
    /// Print the result as JSON, as the server sent it
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The prompt's name
    pub name: String,
    /// Arguments as KEY=VALUE (prompt arguments are always strings)
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,
    /// Print the result as JSON, as the server sent it
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// The clients `install` can configure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InstallTarget {
    /// Claude Desktop
    ClaudeDesktop,
    /// Claude Code (user scope)
    ClaudeCode,
    /// Cursor (global)
    Cursor,
    /// VS Code (the workspace's .vscode/mcp.json)
    #[value(name = "vscode")]
    VsCode,
    /// Gemini CLI (user settings)
    GeminiCli,
    /// Goose (its config.yaml's extensions)
    Goose,
    /// A generic `mcp.json` (`mcpServers`), ./mcp.json unless --config names one
    #[value(name = "mcp-json")]
    McpJson,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The client to configure
    #[arg(value_enum)]
    pub client: InstallTarget,
    #[command(flatten)]
    pub build: BuildArgs,
    /// The server's name in the client (by default the binary's or example's)
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Build nothing and write nothing: show the build command, the entry
    /// and the resulting file
    #[arg(long)]
    pub dry_run: bool,
    /// Change this file instead of the client's own
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Install the server the MCP Registry lists under this name (its cargo
    /// package, or its remote) instead of building this project's
    #[arg(long, value_name = "NAMESPACE/NAME", conflicts_with_all = ["example", "bin", "package", "release", "profile"])]
    pub from_registry: Option<String>,
    /// Install the server this server.json describes
    #[arg(long, value_name = "FILE", conflicts_with_all = ["from_registry", "example", "bin", "package", "release", "profile"])]
    pub server_json: Option<PathBuf>,
    /// The registry --from-registry asks
    #[arg(long, value_name = "URL", default_value = "https://registry.modelcontextprotocol.io")]
    pub registry: String,
    /// Arguments the client passes to the server
    #[arg(last = true, value_name = "ARGS")]
    pub server_args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// Serve Streamable HTTP at this address instead of stdio
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Arguments for the server
    #[arg(last = true, value_name = "ARGS")]
    pub server_args: Vec<String>,
}

/// The kinds of crate `new` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Template {
    /// Tools in the library, served over stdio (or HTTP with MCP_TRANSPORT=http)
    Stdio,
    /// Streamable HTTP with a server card
    Http,
    /// Streamable HTTP taking OAuth 2.1 access tokens, a tool needing a scope
    Oauth,
    /// Servers of an `mcpServers` file mounted as one, beside tools of its own
    Gateway,
    /// An HTTP API's operations as tools, from its OpenAPI document
    Openapi,
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The crate's name (and its folder's)
    pub name: String,
    /// What kind of server
    #[arg(long, value_enum, default_value_t = Template::Stdio)]
    pub template: Template,
    /// Depend on the runtime in this folder (a checkout) instead of the registry's release
    #[arg(long, value_name = "DIR")]
    pub runtime_path: Option<PathBuf>,
    /// Make it in this folder instead of ./NAME
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The name in the MCP Registry (by default io.github.YOUR-LOGIN/NAME, to edit)
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub mcp_name: Option<String>,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The crate's Cargo.toml (by default the current directory's)
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// The package, in a workspace of several
    #[arg(short, long, value_name = "NAME")]
    pub package: Option<String>,
    /// Write server.json here instead of beside Cargo.toml
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Send it to the registry, with the token in MCP_REGISTRY_TOKEN (without it, nothing is sent)
    #[arg(long)]
    pub upload: bool,
    /// The registry to send it to
    #[arg(long, value_name = "URL", default_value = "https://registry.modelcontextprotocol.io")]
    pub registry: String,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The `mcpServers` JSON file naming the servers to serve
    #[arg(long, value_name = "FILE", required_unless_present = "openapi", conflicts_with = "openapi")]
    pub config: Option<PathBuf>,
    /// Serve the operations of this OpenAPI document (a JSON or YAML file, or an http(s) URL; the
    /// files beside it, or its origin's URLs, that its `$ref`s name are read too)
    #[arg(long, value_name = "SPEC")]
    pub openapi: Option<String>,
    /// Where the API is (by default the document's first `servers` URL)
    #[arg(long, value_name = "URL", requires = "openapi")]
    pub base_url: Option<String>,
    /// A route map rule, tried in the order given: KIND:METHODS:PATH:TAGS (the parts after KIND
    /// optional), KIND one of tool, resource, exclude; METHODS and TAGS comma-separated, PATH a
    /// regular expression
    #[arg(long = "route", value_name = "RULE", requires = "openapi")]
    pub routes: Vec<String>,
    /// Send the API the bearer token held in this environment variable
    #[arg(long, value_name = "VAR", requires = "openapi")]
    pub bearer_env: Option<String>,
    /// Print what each operation becomes and why, and exit
    #[arg(long, requires = "openapi")]
    pub list: bool,
    /// Serve Streamable HTTP at this address instead of stdio
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn pairs_and_a_command_after_the_double_dash_parse_apart() {
        let cli = Cli::try_parse_from(["cargo mcp", "call", "add", "a=1", "b=2", "--", "./server", "--flag"]).unwrap();
        let Command::Call(call) = cli.command else { panic!("not a call") };
        assert_eq!(call.pairs, ["a=1", "b=2"]);
        assert_eq!(call.connect.command, ["./server", "--flag"]);
    }
}
