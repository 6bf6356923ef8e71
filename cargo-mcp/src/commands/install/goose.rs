//! Goose keeps its servers (its "extensions") in YAML, in
//! `~/.config/goose/config.yaml`: read into JSON and written back here, so
//! the merge is the JSON files' own.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::failure::Failure;

/// The file as JSON: an empty object when it is absent or empty. A file
/// with comments is refused: writing it back would drop them.
pub fn parse(text: &str, path: &Path) -> Result<Value, Failure> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    if text.lines().any(|line| line.trim_start().starts_with('#')) {
        return Err(Failure::new(format!("{} has comments, which cargo mcp would drop", path.display()))
            .hint("remove them, or add the extension with `goose configure`"));
    }
    serde_norway::from_str(text).map_err(|e| {
        Failure::new(format!("{} is not YAML that cargo mcp can merge into ({e})", path.display()))
            .hint("check the file, or name another with --config PATH")
    })
}

/// `value` as the YAML Goose reads.
pub fn render(value: &Value) -> Result<String, Failure> {
    serde_norway::to_string(value).map_err(|e| Failure::new(format!("cannot write YAML: {e}")))
}

/// Goose's configuration file: under `XDG_CONFIG_HOME` when set, else
/// `~/.config` (on macOS too), and `%APPDATA%\Block\goose\config` on
/// Windows.
pub fn default_path(home: &Path) -> PathBuf {
    let appdata = std::env::var_os("APPDATA").filter(|a| cfg!(windows) && !a.is_empty());
    if let Some(appdata) = appdata {
        return PathBuf::from(appdata).join("Block").join("goose").join("config").join("config.yaml");
    }
    let config = std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    config.unwrap_or_else(|| home.join(".config")).join("goose").join("config.yaml")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_round_trips_and_comments_are_refused() {
        let path = Path::new("config.yaml");
        let parsed = parse("GOOSE_MODEL: gpt\nextensions:\n  dev:\n    enabled: true\n", path).unwrap();
        assert_eq!(parsed, json!({"GOOSE_MODEL": "gpt", "extensions": {"dev": {"enabled": true}}}));
        assert_eq!(parse(&render(&parsed).unwrap(), path).unwrap(), parsed);
        assert!(parse("# mine\nx: 1\n", path).unwrap_err().message().contains("comments"));
        assert_eq!(parse("\n", path).unwrap(), json!({}));
    }
}
