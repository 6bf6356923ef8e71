//! The crate `cargo mcp publish` describes: what `cargo metadata` says of
//! it, and its `[package.metadata.mcp]` table.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;
use serde_json::Value;

use crate::failure::Failure;
use crate::select;

/// A package as `cargo metadata` describes it.
#[derive(Debug, Deserialize)]
pub struct Crate {
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default)]
    pub homepage: Option<String>,
    /// The README, relative to the manifest's folder (cargo fills in
    /// `README.md` when the manifest names none and the file exists).
    #[serde(default)]
    pub readme: Option<PathBuf>,
    /// `None` when it may go to any registry; `[]` for `publish = false`.
    #[serde(default)]
    pub publish: Option<Vec<String>>,
    pub manifest_path: PathBuf,
    #[serde(default)]
    metadata: Option<Value>,
}

/// `[package.metadata.mcp]`: what the manifest cannot say by itself. The
/// arrays and `transport` are in the registry's own shape (camelCase keys:
/// `isRequired`, `isSecret`), and go into `server.json` as they are.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct McpMetadata {
    /// The server's name in the registry (`io.github.OWNER/NAME`), which
    /// the README's `mcp-name:` line repeats.
    #[serde(default)]
    pub name: Option<String>,
    /// A display title.
    #[serde(default)]
    pub title: Option<String>,
    /// How a client talks to the installed binary (default `stdio`).
    #[serde(default)]
    pub transport: Option<Value>,
    /// The environment variables the server reads.
    #[serde(default)]
    pub environment_variables: Vec<Value>,
    /// The arguments the binary is started with.
    #[serde(default)]
    pub package_arguments: Vec<Value>,
    /// Where a deployment of the server is reached over HTTP.
    #[serde(default)]
    pub remotes: Vec<Value>,
}

impl Crate {
    /// The package of the manifest at `manifest` (or of the current
    /// directory), or the one named `package` in its workspace.
    pub fn load(manifest: Option<&Path>, package: Option<&str>) -> Result<Crate, Failure> {
        let mut command = Command::new(select::cargo());
        command.args(["metadata", "--no-deps", "--format-version", "1"]).stderr(Stdio::piped());
        if let Some(manifest) = manifest {
            command.arg("--manifest-path").arg(manifest);
        }
        let output = command.output().map_err(|e| Failure::new(format!("cannot run cargo: {e}")))?;
        if !output.status.success() {
            return Err(Failure::new("cannot read the crate's manifest")
                .detail(String::from_utf8_lossy(&output.stderr))
                .hint("run cargo mcp publish in the crate's folder, or name its manifest with --manifest-path"));
        }
        #[derive(Deserialize)]
        struct Metadata {
            packages: Vec<Crate>,
        }
        let metadata: Metadata = serde_json::from_slice(&output.stdout)
            .map_err(|e| Failure::new(format!("cannot read the output of `cargo metadata`: {e}")))?;
        let here = match manifest {
            Some(manifest) => std::path::absolute(manifest)?,
            None => nearest_manifest()?,
        };
        let names: Vec<String> = metadata.packages.iter().map(|p| p.name.clone()).collect();
        let mut packages = metadata.packages.into_iter();
        let found = match package {
            Some(name) => packages.find(|p| p.name == name),
            None => packages.find(|p| same_file(&p.manifest_path, &here)),
        };
        found.ok_or_else(|| match package {
            Some(name) => Failure::new(format!("no package named `{name}` here"))
                .hint(format!("packages are: {}", names.join(", "))),
            None => Failure::new(format!("{} is not a package's manifest", here.display()))
                .hint("run it in the server's own folder, or name it with -p NAME"),
        })
    }

    /// The crate's folder.
    pub fn dir(&self) -> &Path {
        self.manifest_path.parent().unwrap_or(Path::new("."))
    }

    /// `[package.metadata.mcp]`, or an error naming the key it cannot read.
    pub fn mcp(&self) -> Result<McpMetadata, Failure> {
        let Some(table) = self.metadata.as_ref().and_then(|m| m.get("mcp")) else {
            return Ok(McpMetadata::default());
        };
        serde_json::from_value(table.clone()).map_err(|e| {
            Failure::new(format!("cannot read [package.metadata.mcp] in {}: {e}", self.manifest_path.display()))
                .hint("its keys are name, title, transport, environment-variables, package-arguments and remotes")
        })
    }
}

/// The `Cargo.toml` of the current directory or the nearest above it.
fn nearest_manifest() -> Result<PathBuf, Failure> {
    let start = std::env::current_dir()?;
    start
        .ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|manifest| manifest.is_file())
        .ok_or_else(|| Failure::new("no Cargo.toml here or above").hint("run it in the server's crate"))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
