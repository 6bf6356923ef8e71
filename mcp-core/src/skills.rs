//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a
//! server serves agent skills (a folder whose `SKILL.md` starts with YAML
//! frontmatter naming and describing it, plus reference files) as
//! resources, lists them with `skills/list`, gives one entry with
//! `skills/get`, and, when it declares `directoryRead`, lists a folder's
//! children with `resources/directory/read`.
//!
//! An entry carries the skill's frontmatter as JSON and a manifest of its
//! files, each with its size and SHA-256 digest: what a host checks what
//! it reads against ([`frontmatter`], [`digest`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::jsonrpc::JsonObject;
use crate::resource::Resource;

/// The extension's name, under the server's `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The file every skill has at its root.
pub const SKILL_FILE: &str = "SKILL.md";

/// The MIME type of a directory resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The scheme servers should serve skills under.
pub const SCHEME: &str = "skill://";

/// The most files a host must accept in one skill (`SKILL.md` included).
pub const MAX_FILES: usize = 512;

/// The most bytes a host must accept in one skill, all files together.
pub const MAX_TOTAL_SIZE: u64 = 16 * 1024 * 1024;

/// The server's declaration: `{"directoryRead": true}` when it answers
/// `resources/directory/read`.
pub fn capability(directory_read: bool) -> Value {
    if directory_read { json!({ "directoryRead": true }) } else { json!({}) }
}

/// One file of a skill, with what its bytes must be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits: the SHA-256 of its raw bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// A skill's files: every one of them, or `"dynamic"` when its content is
/// generated and has no stable digests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkillFiles {
    /// Every file, `SKILL.md` included, each once.
    Listed(Vec<SkillFile>),
    /// No manifest: what is read cannot be checked.
    Dynamic,
}

impl Serialize for SkillFiles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillFiles::Listed(files) => files.serialize(s),
            SkillFiles::Dynamic => s.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillFiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) if s == "dynamic" => Ok(SkillFiles::Dynamic),
            value @ Value::Array(_) => {
                serde_json::from_value(value).map(SkillFiles::Listed).map_err(serde::de::Error::custom)
            }
            other => {
                Err(serde::de::Error::custom(format!("`resources` is an array of files or \"dynamic\", not {other}")))
            }
        }
    }
}

/// One skill's entry, as `skills/list` and `skills/get` give it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its `SKILL.md` frontmatter as JSON, every field the author wrote.
    pub frontmatter: JsonObject,
    /// Its files.
    pub resources: SkillFiles,
}

impl Skill {
    /// Its name (`frontmatter.name`).
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// Its description (`frontmatter.description`).
    pub fn description(&self) -> &str {
        self.frontmatter.get("description").and_then(Value::as_str).unwrap_or_default()
    }

    /// The URI of its folder: its `uri` without `/SKILL.md`.
    pub fn root(&self) -> &str {
        self.uri.strip_suffix(SKILL_FILE).and_then(|r| r.strip_suffix('/')).unwrap_or(&self.uri)
    }

    /// The manifest's entry for `uri`, if it lists one.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        match &self.resources {
            SkillFiles::Listed(files) => files.iter().find(|f| f.uri == uri),
            SkillFiles::Dynamic => None,
        }
    }
}

/// The result of `skills/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// This page's skills.
    pub skills: Vec<Skill>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The result of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// The skill's entry.
    pub skill: Skill,
}

/// The params of `resources/directory/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadDirectoryParams {
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// Where the page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `resources/directory/read`: the directory's direct
/// children, subdirectories with [`DIRECTORY_MIME_TYPE`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadDirectoryResult {
    /// This page's children.
    pub resources: Vec<Resource>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The digest of `bytes` as entries spell it: `sha256:` and 64 lowercase
/// hex digits.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash.iter() {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

/// The YAML frontmatter a `SKILL.md` starts with, as JSON: the block
/// between a first line `---` and the next line `---` (a byte-order mark
/// and `\r\n` line ends allowed), which must be a mapping with a
/// non-empty `name` and `description`.
pub fn frontmatter(markdown: &str) -> Result<JsonObject, String> {
    let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not start with a `---` line opening YAML frontmatter")?;
    let mut yaml_end = None;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']).trim_end_matches([' ', '\t']) == "---" {
            yaml_end = Some(at);
            break;
        }
        at += line.len();
    }
    let yaml = &rest[..yaml_end.ok_or("its frontmatter has no closing `---` line")?];
    let value: Value = if yaml.trim().is_empty() {
        Value::Object(JsonObject::new())
    } else {
        serde_norway::from_str(yaml).map_err(|e| format!("its frontmatter is not YAML this reads: {e}"))?
    };
    let Value::Object(fields) = value else {
        return Err("its frontmatter is not a mapping of fields".into());
    };
    for field in ["name", "description"] {
        if fields.get(field).and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err(format!("its frontmatter has no `{field}` (a non-empty string)"));
        }
    }
    Ok(fields)
}

/// Check the bytes read at `uri` against `skill`'s entry, as a host must
/// before using them: the entry lists the file, and the bytes have its
/// size and digest. A skill whose files are `"dynamic"` has nothing to
/// check them against.
pub fn verify(skill: &Skill, uri: &str, bytes: &[u8]) -> Result<(), String> {
    let SkillFiles::Listed(files) = &skill.resources else { return Ok(()) };
    let Some(file) = files.iter().find(|f| f.uri == uri) else {
        return Err(format!("{uri} is not one of the files the entry of {} lists", skill.uri));
    };
    if bytes.len() as u64 != file.size {
        return Err(format!("{uri} is {} bytes, but its entry says {}", bytes.len(), file.size));
    }
    let actual = digest(bytes);
    if actual != file.digest {
        return Err(format!("{uri} has the digest {actual}, but its entry says {}", file.digest));
    }
    Ok(())
}

/// Check a `SKILL.md` read for `skill` against its entry's frontmatter,
/// field by field, as a host must before loading it.
pub fn verify_frontmatter(skill: &Skill, markdown: &str) -> Result<(), String> {
    let read = frontmatter(markdown).map_err(|e| format!("{}: {e}", skill.uri))?;
    let mut names: Vec<&String> = read.keys().chain(skill.frontmatter.keys()).collect();
    names.sort();
    names.dedup();
    let differ: Vec<&str> =
        names.into_iter().filter(|k| read.get(*k) != skill.frontmatter.get(*k)).map(String::as_str).collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: its frontmatter differs from its entry's in {}", skill.uri, differ.join(", ")))
    }
}

/// Whether `name` follows the Agent Skills naming rules: 1 to 64
/// lowercase letters, digits and hyphens, with no hyphen first, last or
/// next to another.
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The skill name a `SKILL.md` URI ends in: the segment before
/// `/SKILL.md`.
pub fn name_in_uri(uri: &str) -> Option<&str> {
    let path = uri.split_once("://").map_or(uri, |(_, path)| path);
    let folder = path.strip_suffix(SKILL_FILE)?.strip_suffix('/')?;
    let name = folder.rsplit('/').next()?;
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_read_as_json() {
        let md = "---\nname: pdf-processing\ndescription: Extract PDFs\nmetadata:\n  version: \"2.1\"\n---\n\nBody\n";
        let fields = frontmatter(md).unwrap();
        assert_eq!(
            Value::Object(fields),
            json!({"name": "pdf-processing", "description": "Extract PDFs", "metadata": {"version": "2.1"}})
        );
        assert!(frontmatter("\u{feff}---\r\nname: a\r\ndescription: b\r\n--- \r\nx").is_ok());
        assert!(frontmatter("---\nname: a\ndescription: b\n---").is_ok());
    }

    #[test]
    fn bad_frontmatter_says_why() {
        assert!(frontmatter("# no frontmatter").unwrap_err().contains("does not start"));
        assert!(frontmatter("---\nname: a\n").unwrap_err().contains("closing"));
        assert!(frontmatter("---\n- a\n- b\n---\n").unwrap_err().contains("mapping"));
        assert!(frontmatter("---\nname: a\n---\n").unwrap_err().contains("description"));
        assert!(frontmatter("---\nname: [a\n---\n").unwrap_err().contains("YAML"));
    }

    #[test]
    fn digests_and_names() {
        assert_eq!(digest(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert!(is_valid_name("pdf-processing"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", &"a".repeat(65)] {
            assert!(!is_valid_name(bad), "{bad}");
        }
        assert_eq!(name_in_uri("skill://acme/billing/refunds/SKILL.md"), Some("refunds"));
        assert_eq!(name_in_uri("skill://x/README.md"), None);
    }

    #[test]
    fn reads_are_checked_against_the_entry() {
        let md = "---\nname: a\ndescription: b\n---\nBody\n";
        let skill = Skill {
            uri: "skill://a/SKILL.md".into(),
            frontmatter: frontmatter(md).unwrap(),
            resources: SkillFiles::Listed(vec![SkillFile {
                uri: "skill://a/SKILL.md".into(),
                digest: digest(md.as_bytes()),
                size: md.len() as u64,
            }]),
        };
        assert_eq!(verify(&skill, &skill.uri, md.as_bytes()), Ok(()));
        assert_eq!(verify_frontmatter(&skill, md), Ok(()));
        assert!(verify(&skill, &skill.uri, b"other").unwrap_err().contains("bytes"));
        let same_size = md.replace("Body", "Evil");
        assert!(verify(&skill, &skill.uri, same_size.as_bytes()).unwrap_err().contains("digest"));
        assert!(verify(&skill, "skill://a/x.md", b"").unwrap_err().contains("not one of the files"));
        let changed = md.replace("description: b", "description: c");
        assert!(verify_frontmatter(&skill, &changed).unwrap_err().contains("description"));
    }

    #[test]
    fn resources_are_a_list_or_dynamic() {
        let dynamic: SkillFiles = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(dynamic, SkillFiles::Dynamic);
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        assert!(serde_json::from_value::<SkillFiles>(json!("static")).is_err());
        let listed: SkillFiles = serde_json::from_value(json!([{"uri": "a", "digest": "d", "size": 1}])).unwrap();
        assert!(matches!(listed, SkillFiles::Listed(files) if files.len() == 1));
    }
}
