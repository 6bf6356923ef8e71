//! `cargo mcp install CLIENT`: build the server in release mode (or,
//! with `--from-registry`/`--server-json`, install what a `server.json`
//! names) and add it to the client's configuration file, keeping
//! everything else there.

mod goose;
mod registry;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::{Map, Value, json};

use crate::cli::{InstallArgs, InstallTarget};
use crate::failure::Failure;
use crate::output::{self, Style};
use crate::select;

/// How the client starts or reaches the server.
#[derive(Debug, Clone)]
pub enum Launch {
    /// A program the client starts, talking over stdio.
    Command { command: PathBuf, args: Vec<String>, env: Map<String, Value> },
    /// An endpoint the client connects to over Streamable HTTP.
    Url(String),
}

/// What has to happen before the entry works: a build of the project, or
/// `cargo install` of a published crate.
enum Prepare {
    Build(select::Plan),
    Built,
    Install(Vec<String>),
    Nothing,
}

pub async fn run(args: InstallArgs) -> Result<ExitCode, Failure> {
    let client = args.client;
    let path = match &args.config {
        Some(path) => std::path::absolute(path)?,
        None => default_path(client)?,
    };
    // Read before building, so that a file we could not merge into stops
    // us before a long release build.
    let existing = read(&path)?;
    let parsed = parse(existing.as_deref(), &path, client)?;

    let from_registry = args.from_registry.is_some() || args.server_json.is_some();
    let (launch, default_name, prepare, notes) = if from_registry {
        let server = match (&args.server_json, &args.from_registry) {
            (Some(file), _) => registry::read(file)?,
            (None, Some(name)) => registry::fetch(&args.registry, name).await?,
            (None, None) => unreachable!("checked above"),
        };
        let home = registry::cargo_home()
            .ok_or_else(|| Failure::new("cannot tell where cargo installs binaries").hint("set CARGO_HOME"))?;
        let mut plan = registry::plan(&server, &home)?;
        if let Launch::Command { args: launch_args, .. } = &mut plan.launch {
            launch_args.extend(args.server_args.iter().cloned());
        }
        let prepare = plan.install.map_or(Prepare::Nothing, Prepare::Install);
        (plan.launch, plan.name, prepare, plan.notes)
    } else if args.dry_run {
        // A dry run builds nothing: the executable is where cargo would put it.
        let plan = select::plan(&args.build, Some("release"))?;
        let launch = command(std::path::absolute(&plan.executable)?, &args.server_args);
        (launch, plan.name.clone(), Prepare::Build(plan), Vec::new())
    } else {
        let built = select::build(&args.build, Some("release"))?;
        let launch = command(std::path::absolute(&built.executable)?, &args.server_args);
        (launch, built.name, Prepare::Built, Vec::new())
    };
    let name = args.name.clone().unwrap_or(default_name);
    let entry = entry(client, &name, &launch)?;
    let (merged, previous) = merge(parsed, client, &name, entry.clone(), &path)?;
    let text = match client {
        InstallTarget::Goose => goose::render(&merged)?,
        _ => format!("{}\n", serde_json::to_string_pretty(&merged).unwrap_or_default()),
    };

    let label = label(client);
    let stderr = Style::stderr();
    if let Some(previous) = &previous {
        let note = if *previous == entry { "is already there, unchanged" } else { "replaces the entry there" };
        eprintln!("{} `{name}` {note} (was {})", stderr.yellow("note:"), previous);
    }
    if args.dry_run {
        let dry = stderr.bold("dry run:");
        let nothing = if from_registry { "nothing is installed or written" } else { "nothing is built or written" };
        eprintln!("{dry} {nothing}");
        match &prepare {
            Prepare::Build(plan) => eprintln!("{dry} would build with `{}`", plan.command_line()),
            Prepare::Install(install) => eprintln!("{dry} would install with `{}`", install.join(" ")),
            Prepare::Built | Prepare::Nothing => {}
        }
        eprintln!("{dry} would add `{name}` under `{}`:", servers_key(client));
        eprintln!("  {}", output::pretty(&entry, 2));
        for note in &notes {
            eprintln!("{} {note}", stderr.yellow("then:"));
        }
        eprintln!("{dry} would write {} (shown below):", path.display());
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    if let Prepare::Install(install) = &prepare {
        output::progress("Installing", &install.join(" "));
        let status = Command::new(select::cargo())
            .args(&install[1..])
            .status()
            .map_err(|e| Failure::new(format!("cannot run cargo: {e}")))?;
        if !status.success() {
            return Err(Failure::new(format!("`{}` failed", install.join(" "))));
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::new(format!("cannot create the folder {}: {e}", dir.display())))?;
    }
    let backup = existing.is_some().then(|| backup_path(&path));
    if let Some(backup) = &backup {
        std::fs::copy(&path, backup)
            .map_err(|e| Failure::new(format!("cannot write the backup {}: {e}", backup.display())))?;
    }
    std::fs::write(&path, text).map_err(|e| Failure::new(format!("cannot write {}: {e}", path.display())))?;
    output::progress("Installed", &format!("`{name}` in {label}'s configuration: {}", path.display()));
    if let Some(backup) = backup {
        eprintln!("{:>12} {}", "", stderr.dim(&format!("the previous file is kept as {}", backup.display())));
    }
    for note in &notes {
        eprintln!("{} {note}", stderr.yellow("then:"));
    }
    let what = match &launch {
        Launch::Command { command, .. } => command.display().to_string(),
        Launch::Url(url) => url.clone(),
    };
    eprintln!("{:>12} {}", "", stderr.dim(&format!("{label} loads it when it next starts ({what})")));
    Ok(ExitCode::SUCCESS)
}

fn command(executable: PathBuf, args: &[String]) -> Launch {
    Launch::Command { command: executable, args: args.to_vec(), env: Map::new() }
}

fn label(client: InstallTarget) -> &'static str {
    match client {
        InstallTarget::ClaudeDesktop => "Claude Desktop",
        InstallTarget::ClaudeCode => "Claude Code",
        InstallTarget::Cursor => "Cursor",
        InstallTarget::VsCode => "VS Code",
        InstallTarget::GeminiCli => "Gemini CLI",
        InstallTarget::Goose => "Goose",
        InstallTarget::McpJson => "the mcp.json",
    }
}

/// The key under which the client keeps its servers.
fn servers_key(client: InstallTarget) -> &'static str {
    match client {
        InstallTarget::VsCode => "servers",
        InstallTarget::Goose => "extensions",
        _ => "mcpServers",
    }
}

/// The server's entry, in the client's shape.
fn entry(client: InstallTarget, name: &str, launch: &Launch) -> Result<Value, Failure> {
    let (command, args, env) = match launch {
        Launch::Command { command, args, env } => (command.to_string_lossy().into_owned(), args, env),
        Launch::Url(url) => return remote_entry(client, name, url),
    };
    let mut entry = match client {
        InstallTarget::Goose => json!({
            "name": name, "type": "stdio", "cmd": command, "args": args, "envs": env, "enabled": true, "timeout": 300,
        }),
        InstallTarget::ClaudeCode | InstallTarget::VsCode | InstallTarget::McpJson => {
            json!({"type": "stdio", "command": command, "args": args})
        }
        InstallTarget::ClaudeDesktop | InstallTarget::Cursor | InstallTarget::GeminiCli => {
            json!({"command": command, "args": args})
        }
    };
    if !env.is_empty() && client != InstallTarget::Goose {
        entry["env"] = Value::Object(env.clone());
    }
    Ok(entry)
}

/// The entry of a server reached over Streamable HTTP.
fn remote_entry(client: InstallTarget, name: &str, url: &str) -> Result<Value, Failure> {
    Ok(match client {
        InstallTarget::Goose => {
            json!({"name": name, "type": "streamable_http", "uri": url, "enabled": true, "timeout": 300})
        }
        InstallTarget::ClaudeCode | InstallTarget::VsCode | InstallTarget::McpJson => {
            json!({"type": "http", "url": url})
        }
        InstallTarget::Cursor => json!({"url": url}),
        InstallTarget::GeminiCli => json!({"httpUrl": url}),
        InstallTarget::ClaudeDesktop => {
            return Err(Failure::new("Claude Desktop's configuration file takes no remote servers")
                .hint("add it in Claude Desktop's settings (Connectors), or install it in another client"));
        }
    })
}

/// The file each client reads its servers from.
fn default_path(client: InstallTarget) -> Result<PathBuf, Failure> {
    Ok(match client {
        InstallTarget::ClaudeDesktop => claude_desktop_dir()?.join("claude_desktop_config.json"),
        InstallTarget::ClaudeCode => home()?.join(".claude.json"),
        InstallTarget::Cursor => home()?.join(".cursor").join("mcp.json"),
        InstallTarget::GeminiCli => home()?.join(".gemini").join("settings.json"),
        InstallTarget::Goose => goose::default_path(&home()?),
        InstallTarget::McpJson => std::env::current_dir()?.join("mcp.json"),
        InstallTarget::VsCode => {
            let root = select::workspace_root().map_or_else(std::env::current_dir, Ok)?;
            root.join(".vscode").join("mcp.json")
        }
    })
}

#[cfg(target_os = "macos")]
fn claude_desktop_dir() -> Result<PathBuf, Failure> {
    Ok(home()?.join("Library").join("Application Support").join("Claude"))
}

#[cfg(windows)]
fn claude_desktop_dir() -> Result<PathBuf, Failure> {
    match std::env::var_os("APPDATA") {
        Some(appdata) if !appdata.is_empty() => Ok(PathBuf::from(appdata).join("Claude")),
        _ => Ok(home()?.join("AppData").join("Roaming").join("Claude")),
    }
}

#[cfg(not(any(target_os = "macos", windows)))]
fn claude_desktop_dir() -> Result<PathBuf, Failure> {
    let config = std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    Ok(match config {
        Some(config) => config.join("Claude"),
        None => home()?.join(".config").join("Claude"),
    })
}

fn home() -> Result<PathBuf, Failure> {
    std::env::home_dir()
        .filter(|home| !home.as_os_str().is_empty())
        .ok_or_else(|| Failure::new("cannot tell the home directory").hint("name the file with --config PATH"))
}

fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

fn read(path: &Path) -> Result<Option<String>, Failure> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Failure::new(format!("cannot read {}: {e}", path.display()))),
    }
}

/// The file as JSON: an empty object when it is absent or empty.
fn parse(text: Option<&str>, path: &Path, client: InstallTarget) -> Result<Value, Failure> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else { return Ok(json!({})) };
    if client == InstallTarget::Goose {
        return goose::parse(text, path);
    }
    serde_json::from_str(text).map_err(|e| {
        Failure::new(format!("{} is not plain JSON ({e}), so cargo mcp cannot merge into it", path.display())).hint(
            format!(
                "comments are not supported: remove them, or add the server under `{}` by hand",
                servers_key(client)
            ),
        )
    })
}

/// `root` with `entry` set as server `name`: other servers and other keys
/// are kept (in their order). Returns the entry it replaced, if any.
fn merge(
    mut root: Value,
    client: InstallTarget,
    name: &str,
    entry: Value,
    path: &Path,
) -> Result<(Value, Option<Value>), Failure> {
    let key = servers_key(client);
    let Some(object) = root.as_object_mut() else {
        return Err(Failure::new(format!("{} holds no JSON object at its top level", path.display()))
            .hint("check the file, or name another with --config PATH"));
    };
    let servers = object.entry(key).or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return Err(Failure::new(format!("`{key}` in {} is not an object", path.display()))
            .hint(format!("fix `{key}` by hand: it maps server names to their settings")));
    };
    let previous = servers.insert(name.to_owned(), entry);
    Ok((root, previous))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_other_servers_and_keys_in_their_order() {
        let root = json!({"theme": "dark", "mcpServers": {"other": {"command": "x"}}, "z": 1});
        let entry = entry(InstallTarget::ClaudeCode, "mine", &launch("/bin/server", &[])).unwrap();
        let (merged, previous) = merge(root, InstallTarget::ClaudeCode, "mine", entry, Path::new("f")).unwrap();
        assert_eq!(previous, None);
        assert_eq!(
            serde_json::to_string(&merged).unwrap(),
            r#"{"theme":"dark","mcpServers":{"other":{"command":"x"},"mine":{"type":"stdio","command":"/bin/server","args":[]}},"z":1}"#
        );
    }

    #[test]
    fn each_client_gets_its_shape() {
        let path = Path::new("/s");
        let vscode_entry = entry(InstallTarget::VsCode, "s", &launch("/s", &[])).unwrap();
        let vscode = merge(json!({}), InstallTarget::VsCode, "s", vscode_entry, path);
        assert_eq!(vscode.unwrap().0, json!({"servers": {"s": {"type": "stdio", "command": "/s", "args": []}}}));
        let args = ["--flag".to_owned()];
        let cursor_entry = entry(InstallTarget::Cursor, "s", &launch("/s", &args)).unwrap();
        let cursor = merge(json!({}), InstallTarget::Cursor, "s", cursor_entry, path);
        assert_eq!(cursor.unwrap().0, json!({"mcpServers": {"s": {"command": "/s", "args": ["--flag"]}}}));
    }

    fn launch(command: &str, args: &[String]) -> Launch {
        Launch::Command { command: command.into(), args: args.to_vec(), env: Map::new() }
    }

    #[test]
    fn goose_and_remote_servers_get_their_shapes() {
        let goose = entry(InstallTarget::Goose, "s", &launch("/s", &[])).unwrap();
        assert_eq!(
            goose,
            json!({"name": "s", "type": "stdio", "cmd": "/s", "args": [], "envs": {}, "enabled": true, "timeout": 300})
        );
        let url = Launch::Url("https://w.example.com/mcp".into());
        assert_eq!(
            entry(InstallTarget::McpJson, "s", &url).unwrap(),
            json!({"type": "http", "url": "https://w.example.com/mcp"})
        );
        assert_eq!(
            entry(InstallTarget::GeminiCli, "s", &url).unwrap(),
            json!({"httpUrl": "https://w.example.com/mcp"})
        );
        assert!(entry(InstallTarget::ClaudeDesktop, "s", &url).is_err());
    }

    #[test]
    fn files_that_cannot_be_merged_are_refused_not_overwritten() {
        let path = Path::new("f.json");
        assert!(
            parse(Some("// comment\n{}"), path, InstallTarget::VsCode)
                .unwrap_err()
                .message()
                .contains("not plain JSON")
        );
        assert_eq!(parse(Some("  \n"), path, InstallTarget::VsCode).unwrap(), json!({}));
        let entry = json!({});
        assert!(merge(json!([1]), InstallTarget::Cursor, "s", entry.clone(), path).is_err());
        assert!(merge(json!({"mcpServers": []}), InstallTarget::Cursor, "s", entry, path).is_err());
    }
}
