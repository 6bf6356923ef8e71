//! `cargo mcp install CLIENT`: build the server in release mode and add it
//! to the client's configuration file, keeping everything else there.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::cli::{InstallArgs, InstallTarget};
use crate::failure::Failure;
use crate::output::{self, Style};
use crate::select;

pub fn run(args: InstallArgs) -> Result<ExitCode, Failure> {
    let client = args.client;
    let path = match &args.config {
        Some(path) => std::path::absolute(path)?,
        None => default_path(client)?,
    };
    // Read before building, so that a file we could not merge into stops
    // us before a long release build.
    let existing = read(&path)?;
    let parsed = parse(existing.as_deref(), &path, client)?;

    // A dry run builds nothing: the executable is where cargo would put it.
    let (executable, target_name, plan) = if args.dry_run {
        let plan = select::plan(&args.build, Some("release"))?;
        (plan.executable.clone(), plan.name.clone(), Some(plan))
    } else {
        let built = select::build(&args.build, Some("release"))?;
        (built.executable, built.name, None)
    };
    let executable = std::path::absolute(&executable)?;
    let name = args.name.clone().unwrap_or(target_name);
    let entry = entry(client, &executable, &args.server_args);
    let (merged, previous) = merge(parsed, client, &name, entry.clone(), &path)?;
    let text = format!("{}\n", serde_json::to_string_pretty(&merged).unwrap_or_default());

    let label = label(client);
    let stderr = Style::stderr();
    if let Some(previous) = &previous {
        let note = if *previous == entry { "is already there, unchanged" } else { "replaces the entry there" };
        eprintln!("{} `{name}` {note} (was {})", stderr.yellow("note:"), previous);
    }
    if let Some(plan) = plan {
        let dry = stderr.bold("dry run:");
        eprintln!("{dry} nothing is built or written");
        eprintln!("{dry} would build with `{}`", plan.command_line());
        eprintln!("{dry} would add `{name}` under `{}`:", servers_key(client));
        eprintln!("  {}", output::pretty(&entry, 2));
        eprintln!("{dry} would write {} (shown below):", path.display());
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
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
    eprintln!("{:>12} {}", "", stderr.dim(&format!("{label} loads it when it next starts ({})", executable.display())));
    Ok(ExitCode::SUCCESS)
}

fn label(client: InstallTarget) -> &'static str {
    match client {
        InstallTarget::ClaudeDesktop => "Claude Desktop",
        InstallTarget::ClaudeCode => "Claude Code",
        InstallTarget::Cursor => "Cursor",
        InstallTarget::VsCode => "VS Code",
        InstallTarget::GeminiCli => "Gemini CLI",
    }
}

/// The key under which the client keeps its servers.
fn servers_key(client: InstallTarget) -> &'static str {
    match client {
        InstallTarget::VsCode => "servers",
        _ => "mcpServers",
    }
}

/// The server's entry, in the client's shape.
fn entry(client: InstallTarget, executable: &Path, args: &[String]) -> Value {
    let command = executable.to_string_lossy();
    match client {
        InstallTarget::ClaudeCode | InstallTarget::VsCode => json!({"type": "stdio", "command": command, "args": args}),
        InstallTarget::ClaudeDesktop | InstallTarget::Cursor | InstallTarget::GeminiCli => {
            json!({"command": command, "args": args})
        }
    }
}

/// The file each client reads its servers from.
fn default_path(client: InstallTarget) -> Result<PathBuf, Failure> {
    Ok(match client {
        InstallTarget::ClaudeDesktop => claude_desktop_dir()?.join("claude_desktop_config.json"),
        InstallTarget::ClaudeCode => home()?.join(".claude.json"),
        InstallTarget::Cursor => home()?.join(".cursor").join("mcp.json"),
        InstallTarget::GeminiCli => home()?.join(".gemini").join("settings.json"),
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
        let entry = entry(InstallTarget::ClaudeCode, Path::new("/bin/server"), &[]);
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
        let vscode = merge(json!({}), InstallTarget::VsCode, "s", entry(InstallTarget::VsCode, path, &[]), path);
        assert_eq!(vscode.unwrap().0, json!({"servers": {"s": {"type": "stdio", "command": "/s", "args": []}}}));
        let args = ["--flag".to_owned()];
        let cursor = merge(json!({}), InstallTarget::Cursor, "s", entry(InstallTarget::Cursor, path, &args), path);
        assert_eq!(cursor.unwrap().0, json!({"mcpServers": {"s": {"command": "/s", "args": ["--flag"]}}}));
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
