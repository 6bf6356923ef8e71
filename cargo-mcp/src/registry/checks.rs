//! What the registry checks of a `server.json` against the crate, checked
//! first here: the name's case and owner, the version the sources serve,
//! and the `mcp-name:` line that proves the crate is the publisher's,
//! visible in the README the published crate ships (the registry reads the
//! README as the crate's page renders it, without HTML comments). The
//! name's form and the description's length are the pinned schema's rules,
//! checked there ([`super::schema`]), so each problem is reported once.

use std::process::{Command, Stdio};

use serde_json::Value;

use super::manifest::Crate;
use super::server_json::github_owner;
use crate::select;

/// What stops a publication, and what only deserves a look.
#[derive(Debug, Default)]
pub struct Findings {
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// Everything `document` says that the crate contradicts.
pub fn check(krate: &Crate, document: &Value) -> Findings {
    let mut found = Findings::default();
    let name = document["name"].as_str().unwrap_or_default();
    name_rules(name, krate.repository.as_deref(), &mut found);
    if krate.publish.as_ref().is_some_and(Vec::is_empty) {
        found.warnings.push(
            "the crate has `publish = false`: the registry checks the published crate, so publish it first".into(),
        );
    }
    for (file, said) in declared_versions(&krate.dir().join("src")) {
        if said != krate.version {
            found.errors.push(format!(
                "{} serves version {said}, the crate is {}: clients would see another version than the registry's \
                 (write env!(\"CARGO_PKG_VERSION\"))",
                file.display(),
                krate.version
            ));
        }
    }
    readme(krate, name, &mut found);
    found
}

/// The versions written as literals in `Server::new("name", "1.0.0")` or
/// `Server::empty(…)` in the sources under `dir`, with their files.
fn declared_versions(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.is_dir() {
            found.extend(declared_versions(&path));
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        for call in ["Server::new(", "Server::empty("] {
            for (at, _) in text.match_indices(call) {
                let arguments = &text[at + call.len()..];
                let arguments = &arguments[..arguments.find(')').unwrap_or(arguments.len())];
                if let Some(version) = literal_version(arguments) {
                    found.push((path.clone(), version));
                }
            }
        }
    }
    found
}

/// The second argument of a call, when it is a string literal.
fn literal_version(arguments: &str) -> Option<String> {
    let (_, second) = arguments.split_once(',')?;
    let second = second.trim().trim_end_matches(',').trim();
    let inner = second.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('"')).then(|| inner.to_owned())
}

/// The registry's case and owner rules for a name; its form is the
/// schema's to check (a name without one `/` has no namespace to check).
fn name_rules(name: &str, repository: Option<&str>, found: &mut Findings) {
    let Some((namespace, _)) = name.split_once('/') else { return };
    if let Some(login) = namespace.strip_prefix("io.github.") {
        let owner = repository.and_then(github_owner);
        match owner {
            Some(owner) if owner == login => {}
            Some(owner) if owner.eq_ignore_ascii_case(login) => found.errors.push(format!(
                "`{name}` spells the GitHub owner `{login}`, the repository `{owner}`: the registry compares \
                 names with case and grants `io.github.{owner}/*`"
            )),
            Some(owner) => found.warnings.push(format!(
                "`{name}` is under `io.github.{login}`, but the repository is `{owner}`'s: only {login} can publish it"
            )),
            None => {}
        }
    } else if namespace.chars().any(|c| c.is_ascii_uppercase()) {
        found.warnings.push(format!(
            "`{namespace}` has capitals: a domain's namespace is proven by DNS, whose names the registry grants \
             in lower case"
        ));
    }
}

/// The README the crate ships, and its `mcp-name:` line.
fn readme(krate: &Crate, name: &str, found: &mut Findings) {
    let Some(readme) = &krate.readme else {
        found.errors.push(format!(
            "the crate has no README: the registry looks for `mcp-name: {name}` in it (add README.md, or `readme` \
             in Cargo.toml)"
        ));
        return;
    };
    let path = krate.dir().join(readme);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => return found.errors.push(format!("cannot read the README {}: {e}", path.display())),
    };
    if let Some(problem) = mcp_name_problem(&text, name) {
        found.errors.push(format!("{}: {problem}", path.display()));
    }
    match packaged_files(krate) {
        Ok(files) => {
            let shipped = files.iter().any(|f| std::path::Path::new(f) == readme.as_path());
            if !shipped {
                found.errors.push(format!(
                    "`cargo package` does not ship {}: the crate's page would have no `mcp-name` line",
                    readme.display()
                ));
            }
        }
        Err(e) => found.warnings.push(format!("cannot tell what `cargo package` ships: {e}")),
    }
}

/// Why `readme` does not prove `name`, if it does not: the line must be
/// there, exactly, and outside HTML comments.
pub fn mcp_name_problem(readme: &str, name: &str) -> Option<String> {
    let visible = without_comments(readme);
    let line = format!("mcp-name: {name}");
    if visible.contains(&line) {
        return None;
    }
    if readme.contains(&line) {
        return Some(format!(
            "`{line}` is inside an HTML comment, which the crate's rendered page drops: write it as visible text"
        ));
    }
    let other = visible.lines().find_map(|l| l.split_once("mcp-name:").map(|(_, rest)| rest.trim().to_owned()));
    Some(match other {
        Some(other) => format!("its `mcp-name:` line names `{other}`, not `{name}` (the registry compares with case)"),
        None => format!("no `{line}` line: add it as visible text"),
    })
}

fn without_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        rest = match rest[start..].find("-->") {
            Some(end) => &rest[start + end + 3..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// The files `cargo package` would put in the crate.
fn packaged_files(krate: &Crate) -> Result<Vec<String>, String> {
    let output = Command::new(select::cargo())
        .args(["package", "--list", "--allow-dirty", "--quiet", "--manifest-path"])
        .arg(&krate.manifest_path)
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    Ok(String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_must_be_visible_exact_and_not_in_a_comment() {
        let name = "io.github.Owner/weather";
        assert_eq!(mcp_name_problem("# Weather\n\nmcp-name: io.github.Owner/weather\n", name), None);
        let hidden = mcp_name_problem("# W\n<!-- mcp-name: io.github.Owner/weather -->\n", name).unwrap();
        assert!(hidden.contains("HTML comment"), "{hidden}");
        let cased = mcp_name_problem("mcp-name: io.github.owner/weather\n", name).unwrap();
        assert!(cased.contains("names `io.github.owner/weather`"), "{cased}");
        assert!(mcp_name_problem("# W\n", name).unwrap().contains("no `mcp-name: "));
        // A comment that never closes hides the rest.
        assert!(mcp_name_problem("<!-- x\nmcp-name: io.github.Owner/weather\n", name).is_some());
    }

    #[test]
    fn a_literal_version_in_the_servers_constructor_is_read() {
        assert_eq!(literal_version(r#""calc", "1.2.0""#).as_deref(), Some("1.2.0"));
        assert_eq!(literal_version(r#""calc", env!("CARGO_PKG_VERSION""#), None);
        assert_eq!(literal_version(r#""calc""#), None);
    }

    #[test]
    fn names_follow_the_registrys_case_and_owner_rules() {
        let run = |name: &str, repo: Option<&str>| {
            let mut found = Findings::default();
            name_rules(name, repo, &mut found);
            found
        };
        assert!(run("io.github.Owner/w", Some("https://github.com/Owner/w")).errors.is_empty());
        let cased = run("io.github.owner/w", Some("https://github.com/Owner/w"));
        assert!(cased.errors[0].contains("grants `io.github.Owner/*`"), "{cased:?}");
        // The name's form is the schema's to check: not reported twice.
        assert!(run("weather", None).errors.is_empty());
        assert_eq!(run("Com.Example/w", None).warnings.len(), 1);
    }
}
