//! Which server: a binary or example of the Cargo project (built with
//! cargo, found through its JSON messages), a command, or a URL.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

use crate::cli::{BuildArgs, ConnectArgs};
use crate::failure::Failure;
use crate::output;

/// The server to talk to.
#[derive(Clone, Debug)]
pub enum Target {
    /// A program to start, speaking stdio.
    Command { program: PathBuf, args: Vec<String> },
    /// A Streamable HTTP endpoint.
    Url(String),
}

impl Target {
    /// How the target is shown to the user.
    pub fn describe(&self) -> String {
        match self {
            Target::Command { program, args } if args.is_empty() => format!("stdio: {}", program.display()),
            Target::Command { program, args } => format!("stdio: {} {}", program.display(), args.join(" ")),
            Target::Url(url) => format!("Streamable HTTP: {url}"),
        }
    }
}

/// What `ConnectArgs` name, built if it is part of the project.
pub fn target(args: &ConnectArgs) -> Result<Target, Failure> {
    if let Some(url) = &args.url {
        if !args.command.is_empty() {
            return Err(Failure::new("give either --url or a command after `--`, not both"));
        }
        return Ok(Target::Url(url.clone()));
    }
    if let Some((program, rest)) = args.command.split_first() {
        if args.build.example.is_some() || args.build.bin.is_some() {
            return Err(Failure::new("give either --example/--bin or a command after `--`, not both"));
        }
        return Ok(Target::Command { program: PathBuf::from(program), args: rest.to_vec() });
    }
    let built = build(&args.build, None)?;
    Ok(Target::Command { program: built.executable, args: Vec::new() })
}

/// A target of the project, built.
#[derive(Debug)]
pub struct Built {
    /// The executable, as an absolute path.
    pub executable: PathBuf,
    /// The target's name (the binary's or example's).
    pub name: String,
}

/// How a target of the project would be built, and where its executable
/// would be: what `install --dry-run` shows without building.
#[derive(Debug)]
pub struct Plan {
    /// `cargo build`'s arguments (after `build`).
    args: Vec<String>,
    /// What is built, for messages: "example `calculator` (release)".
    what: String,
    kind: Kind,
    /// The target's name (the binary's or example's).
    pub name: String,
    /// Where cargo puts the executable (as an absolute path).
    pub executable: PathBuf,
}

impl Plan {
    /// The command, as a person would type it.
    pub fn command_line(&self) -> String {
        format!("cargo build {}", self.args.join(" "))
    }
}

/// What `args` name (built with `profile` when `args` name none) and how
/// it would be built, from cargo's metadata alone: nothing is built.
pub fn plan(args: &BuildArgs, default_profile: Option<&str>) -> Result<Plan, Failure> {
    let metadata = metadata()?;
    let (package, kind, name) = choose(&metadata, args)?;
    let profile = match (&args.profile, args.release) {
        (Some(profile), _) => Some(profile.as_str()),
        (None, true) => Some("release"),
        (None, false) => default_profile,
    };
    let mut build_args = selection(&metadata, package, kind, &name);
    build_args.extend([kind.flag().to_owned(), name.clone()]);
    if let Some(profile) = profile {
        build_args.extend(["--profile".to_owned(), profile.to_owned()]);
    }
    // Cargo's own layout: `dev` builds into `debug`, every other profile
    // into its name; examples into `examples`.
    let mut executable = metadata.target_directory.clone();
    if let Some(triple) = std::env::var("CARGO_BUILD_TARGET").ok().filter(|t| !t.is_empty()) {
        executable.push(triple);
    }
    executable.push(match profile {
        None | Some("dev" | "test") => "debug",
        Some("bench") => "release",
        Some(other) => other,
    });
    if kind == Kind::Example {
        executable.push("examples");
    }
    executable.push(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let what = format!("{} `{name}`{}", kind.noun(), profile.map(|p| format!(" ({p})")).unwrap_or_default());
    Ok(Plan { args: build_args, what, kind, name, executable })
}

/// How cargo is told which package to build: `--workspace` when `name`
/// is the only target of its kind in the workspace (cargo then builds
/// that target alone), else the package by its spec.
///
/// With `--workspace`, cargo resolves features as `cargo build` and
/// `cargo test` at the workspace's root do, so the server is built from
/// the artifacts they made, and the executable (the same file either way)
/// is the one a later `cargo build --workspace` leaves there. `--package`
/// resolves them for that package alone: after every change to a shared
/// dependency, cargo would compile it twice, once for each set.
fn selection(metadata: &Metadata, package: &Package, kind: Kind, name: &str) -> Vec<String> {
    match metadata.members().filter(|p| p.targets_of(kind).any(|t| t == name)).count() {
        1 => vec!["--workspace".to_owned()],
        _ => vec!["--package".to_owned(), package.spec()],
    }
}

/// Build what `args` name with cargo (`profile` when `args` name none)
/// and find the executable among cargo's artifacts.
pub fn build(args: &BuildArgs, default_profile: Option<&str>) -> Result<Built, Failure> {
    let Plan { args, what, kind, name, .. } = plan(args, default_profile)?;
    let mut command = Command::new(cargo());
    command.args(["build", "--message-format=json-render-diagnostics"]).args(&args);
    output::progress("Building", &what);
    let result =
        command.stderr(Stdio::inherit()).stdout(Stdio::piped()).output().map_err(|e| {
            Failure::new(format!("cannot run cargo: {e}")).hint("is cargo on PATH? set CARGO to its path")
        })?;
    if !result.status.success() {
        return Err(Failure::new(format!("building {what} failed")).hint("cargo's messages above say why"));
    }
    let executable = String::from_utf8_lossy(&result.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Artifact>(line).ok())
        .filter(|a| a.reason == "compiler-artifact" && a.target.name == name)
        .filter(|a| a.target.kind.iter().any(|k| k == kind.cargo_kind()))
        .find_map(|a| a.executable)
        .ok_or_else(|| Failure::new(format!("cargo built {what} but named no executable for it")))?;
    Ok(Built { executable, name })
}

/// The cargo that runs this (cargo sets `CARGO` for its subcommands).
pub fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The workspace's root directory, if the current directory is in one.
pub fn workspace_root() -> Option<PathBuf> {
    metadata().ok().map(|m| m.workspace_root)
}

#[derive(Deserialize)]
struct Artifact {
    reason: String,
    #[serde(default)]
    target: ArtifactTarget,
    #[serde(default)]
    executable: Option<PathBuf>,
}

#[derive(Default, Deserialize)]
struct ArtifactTarget {
    #[serde(default)]
    name: String,
    #[serde(default)]
    kind: Vec<String>,
}

#[derive(Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    workspace_members: Vec<String>,
    workspace_root: PathBuf,
    target_directory: PathBuf,
}

impl Metadata {
    fn members(&self) -> impl Iterator<Item = &Package> {
        self.packages.iter().filter(|p| self.workspace_members.contains(&p.id))
    }
}

#[derive(Deserialize)]
struct Package {
    name: String,
    id: String,
    version: String,
    manifest_path: PathBuf,
    targets: Vec<CargoTarget>,
}

impl Package {
    /// A package id spec cargo takes even when two packages share a name.
    fn spec(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    fn targets_of(&self, kind: Kind) -> impl Iterator<Item = &str> {
        self.targets.iter().filter(move |t| t.kind.iter().any(|k| k == kind.cargo_kind())).map(|t| t.name.as_str())
    }
}

#[derive(Deserialize)]
struct CargoTarget {
    name: String,
    kind: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bin,
    Example,
}

impl Kind {
    fn flag(self) -> &'static str {
        match self {
            Kind::Bin => "--bin",
            Kind::Example => "--example",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Bin => "binary",
            Kind::Example => "example",
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Kind::Bin => "binaries",
            Kind::Example => "examples",
        }
    }

    fn cargo_kind(self) -> &'static str {
        match self {
            Kind::Bin => "bin",
            Kind::Example => "example",
        }
    }
}

fn metadata() -> Result<Metadata, Failure> {
    let output = Command::new(cargo())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| Failure::new(format!("cannot run cargo: {e}")).hint("is cargo on PATH? set CARGO to its path"))?;
    if !output.status.success() {
        return Err(Failure::new("the current directory is not in a Cargo project")
            .detail(String::from_utf8_lossy(&output.stderr))
            .hint("run cargo mcp inside one, or name the server with `--url URL` or `-- COMMAND`"));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| Failure::new(format!("cannot read the output of `cargo metadata`: {e}")))
}

/// The package, kind and name of the target `args` name; with no name,
/// the only binary of the package the current directory is in (of the
/// whole workspace at a virtual manifest's root).
fn choose<'m>(metadata: &'m Metadata, args: &BuildArgs) -> Result<(&'m Package, Kind, String), Failure> {
    let members: Vec<&Package> = metadata.members().collect();
    let packages: Vec<&Package> = match &args.package {
        Some(spec) => {
            let named: Vec<&Package> =
                members.iter().copied().filter(|p| p.name == *spec || p.spec() == *spec).collect();
            if named.is_empty() {
                let names: Vec<&str> = members.iter().map(|p| p.name.as_str()).collect();
                return Err(Failure::new(format!("no package named `{spec}` in this workspace"))
                    .hint(format!("packages are: {}", names.join(", "))));
            }
            named
        }
        None => members,
    };
    let (kind, name) = match (&args.example, &args.bin) {
        (Some(example), _) => (Kind::Example, example.clone()),
        (None, Some(bin)) => (Kind::Bin, bin.clone()),
        (None, None) => return only_binary(metadata, &packages),
    };
    let having: Vec<&Package> = packages.iter().copied().filter(|p| p.targets_of(kind).any(|t| t == name)).collect();
    match having.as_slice() {
        [package] => Ok((package, kind, name)),
        [] => {
            let mut all: Vec<&str> = packages.iter().flat_map(|p| p.targets_of(kind)).collect();
            all.sort_unstable();
            let list = if all.is_empty() { "none".to_owned() } else { all.join(", ") };
            Err(Failure::new(format!("no {} named `{name}`", kind.noun()))
                .hint(format!("{} are: {list}", kind.plural())))
        }
        several => {
            let names: Vec<String> = several.iter().map(|p| p.name.clone()).collect();
            Err(Failure::new(format!("several packages have a {} named `{name}`: {}", kind.noun(), names.join(", ")))
                .hint("choose one with --package NAME"))
        }
    }
}

fn only_binary<'m>(metadata: &'m Metadata, packages: &[&'m Package]) -> Result<(&'m Package, Kind, String), Failure> {
    let here = std::env::current_dir().unwrap_or_default();
    // The innermost package whose directory holds the current one.
    let current = packages
        .iter()
        .copied()
        .filter(|p| p.manifest_path.parent().is_some_and(|dir| here.starts_with(dir)))
        .max_by_key(|p| p.manifest_path.components().count());
    let candidates: Vec<&Package> = match current {
        Some(package) => vec![package],
        None => packages.to_vec(),
    };
    let bins: Vec<(&Package, &str)> =
        candidates.iter().flat_map(|p| p.targets_of(Kind::Bin).map(move |t| (*p, t))).collect();
    match bins.as_slice() {
        [(package, name)] => Ok((package, Kind::Bin, (*name).to_owned())),
        [] => {
            let examples: Vec<&str> = candidates.iter().flat_map(|p| p.targets_of(Kind::Example)).collect();
            let hint = if examples.is_empty() {
                "name the server with --bin NAME, --example NAME, --url URL or `-- COMMAND`".to_owned()
            } else {
                format!("name one with --example NAME (examples: {})", examples.join(", "))
            };
            Err(Failure::new(format!("no binary in {}", where_(metadata, current))).hint(hint))
        }
        several => {
            let names: Vec<&str> = several.iter().map(|(_, name)| *name).collect();
            Err(Failure::new(format!("several binaries in {}: {}", where_(metadata, current), names.join(", ")))
                .hint("choose one with --bin NAME (or --example NAME)"))
        }
    }
}

fn where_(metadata: &Metadata, current: Option<&Package>) -> String {
    match current {
        Some(package) => format!("package `{}`", package.name),
        None => format!("the workspace at {}", shorten(&metadata.workspace_root)),
    }
}

/// A path relative to the current directory when it is inside it.
pub fn shorten(path: &Path) -> String {
    let here = std::env::current_dir().unwrap_or_default();
    match path.strip_prefix(&here) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.display().to_string(),
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(packages: serde_json::Value) -> Metadata {
        let ids: Vec<serde_json::Value> = packages.as_array().unwrap().iter().map(|p| p["id"].clone()).collect();
        serde_json::from_value(serde_json::json!({
            "packages": packages,
            "workspace_members": ids,
            "workspace_root": "/w",
            "target_directory": "/w/target",
        }))
        .unwrap()
    }

    fn package(name: &str, examples: &[&str]) -> serde_json::Value {
        let targets: Vec<serde_json::Value> =
            examples.iter().map(|e| serde_json::json!({"name": e, "kind": ["example"]})).collect();
        serde_json::json!({"name": name, "id": format!("path+file:///w/{name}#0.1.0"), "version": "0.1.0",
            "manifest_path": format!("/w/{name}/Cargo.toml"), "targets": targets})
    }

    #[test]
    fn a_unique_target_is_built_with_the_workspaces_features_and_a_shared_name_by_its_package() {
        let metadata =
            metadata(serde_json::json!([package("app", &["demo", "shared"]), package("other", &["shared"]),]));
        let app = &metadata.packages[0];
        assert_eq!(selection(&metadata, app, Kind::Example, "demo"), ["--workspace"]);
        assert_eq!(selection(&metadata, app, Kind::Example, "shared"), ["--package", "app@0.1.0"]);
        // A binary of the same name is another kind: it does not count.
        assert_eq!(selection(&metadata, app, Kind::Bin, "demo"), ["--package", "app@0.1.0"]);
    }
}
