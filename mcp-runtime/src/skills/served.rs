//! The skills a server serves, checked and hashed once at start-up: each
//! skill's entry, the resource of each of its files, and the directories
//! `resources/directory/read` lists.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_core::skills::{self, DIRECTORY_MIME_TYPE, MAX_FILES, MAX_TOTAL_SIZE, SCHEME, SKILL_FILE, SkillFiles};
use serde_json::Value;

use super::Source;
use super::file::SkillFile;
use crate::error::Error;
use crate::resources::{Directory, Resource};

/// Where a file's bytes are.
#[derive(Clone, Debug)]
pub(super) enum Content {
    /// In a served folder, at `relative` under its root.
    Disk { directory: Arc<Directory>, relative: String },
    /// Given in code.
    Memory(Arc<[u8]>),
}

impl Content {
    /// The bytes now (at start-up, to hash them).
    fn bytes(&self) -> Result<Vec<u8>, String> {
        match self {
            Content::Disk { directory, relative } => {
                let path = directory.resolve(relative).map_err(|e| e.message().to_owned())?;
                std::fs::read(path).map_err(|e| format!("`{relative}` cannot be read: {e}"))
            }
            Content::Memory(bytes) => Ok(bytes.to_vec()),
        }
    }
}

/// A skill as found, before it is checked.
pub(super) struct Draft {
    /// Its skill path, `/`-separated.
    pub(super) path: String,
    /// Where it came from, for errors.
    pub(super) origin: String,
    /// Its files, by their paths under its folder.
    pub(super) files: Vec<(String, Content)>,
}

/// The skills a server serves.
#[derive(Debug, Default)]
pub(crate) struct Served {
    /// Their entries, by URI.
    skills: Vec<skills::Skill>,
    /// Every directory of their files, by URI: its direct children.
    directories: BTreeMap<String, Vec<mcp_core::Resource>>,
}

impl Served {
    /// Read and check the skills of `sources`: what the server serves, and
    /// the resource of each file.
    pub(crate) fn load(sources: &[Source]) -> Result<super::Loaded, Error> {
        let mut drafts = Vec::new();
        for source in sources {
            match source {
                Source::Folder(folder) => drafts.extend(super::folder::scan(folder)?),
                Source::Code(skill) => drafts.push(from_code(skill)?),
            }
        }
        let mut served = Served::default();
        // A nested skill's files are its enclosing skill's too: one
        // resource each, a `SKILL.md` described by its own skill.
        let mut resources: BTreeMap<String, SkillFile> = BTreeMap::new();
        let mut children: BTreeMap<String, BTreeMap<String, mcp_core::Resource>> = BTreeMap::new();
        for draft in drafts {
            let checked = check(draft)?;
            if served.skills.iter().any(|s| s.uri == checked.entry.uri) {
                return Err(Error::InvalidSkill {
                    path: checked.origin,
                    reason: format!("another skill is served at `{}` already", checked.entry.uri),
                });
            }
            for file in checked.files {
                add_to_directories(&mut children, &file);
                let uri = file.definition().uri().to_owned();
                if file.is_skill_md() || !resources.contains_key(&uri) {
                    resources.insert(uri, file);
                }
            }
            served.skills.push(checked.entry);
        }
        served.skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        served.directories = children.into_iter().map(|(uri, kids)| (uri, kids.into_values().collect())).collect();
        let resources = resources.into_values().map(|r| Arc::new(r) as Arc<dyn Resource>).collect();
        Ok((served, resources))
    }

    /// Every skill's entry, by URI.
    pub(crate) fn skills(&self) -> &[skills::Skill] {
        &self.skills
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub(crate) fn skill(&self, uri: &str) -> Option<&skills::Skill> {
        self.skills.iter().find(|s| s.uri == uri)
    }

    /// The children of the directory at `uri`, if it is one.
    pub(crate) fn directory(&self, uri: &str) -> Option<&[mcp_core::Resource]> {
        self.directories.get(uri).map(Vec::as_slice)
    }
}

/// A skill made in code, as a draft.
fn from_code(skill: &super::Skill) -> Result<Draft, Error> {
    let mut files = vec![(SKILL_FILE.to_owned(), Content::Memory(skill.skill_md.clone().into()))];
    for (relative, bytes) in &skill.files {
        let plain =
            !relative.contains(['\\', '\0']) && relative.split('/').all(|segment| !matches!(segment, "" | "." | ".."));
        let invalid = |reason: String| Error::InvalidSkill { path: skill.path.clone(), reason };
        if !plain {
            return Err(invalid(format!(
                "the file `{relative}` is not a plain relative path (`/`-separated names, no `.`, `..` or empty ones)"
            )));
        }
        if files.iter().any(|(r, _)| r == relative) {
            return Err(invalid(format!("the file `{relative}` is given twice")));
        }
        files.push((relative.clone(), Content::Memory(bytes.clone().into())));
    }
    Ok(Draft { path: skill.path.clone(), origin: skill.path.clone(), files })
}

/// A skill checked against the extension's rules.
struct Checked {
    origin: String,
    entry: skills::Skill,
    files: Vec<SkillFile>,
}

/// Check `draft` and hash its files.
fn check(draft: Draft) -> Result<Checked, Error> {
    let Draft { path, origin, files } = draft;
    let invalid = |reason: String| Error::InvalidSkill { path: origin.clone(), reason };
    if let Some(bad) = path.split('/').find(|s| !is_path_segment(s)) {
        return Err(invalid(format!(
            "its path `{path}` has the segment `{bad}`: each is letters, digits, `-`, `.`, `_` or `~` (a URI needs no \
             escaping in it)"
        )));
    }
    let name = path.rsplit('/').next().unwrap_or_default();
    if !skills::is_valid_name(name) {
        return Err(invalid(format!(
            "its name `{name}` breaks the Agent Skills naming rules: 1 to 64 lowercase letters, digits and hyphens, \
             no hyphen first, last or twice in a row"
        )));
    }
    if files.len() > MAX_FILES {
        return Err(invalid(format!("it has {} files; hosts need accept only {MAX_FILES}", files.len())));
    }
    let root = format!("{SCHEME}{path}");
    let mut frontmatter = None;
    let mut manifest = Vec::new();
    let mut resources = Vec::new();
    let mut total = 0u64;
    for (relative, content) in files {
        let bytes = content.bytes().map_err(&invalid)?;
        total += bytes.len() as u64;
        let uri = format!("{root}/{}", relative.split('/').map(encode).collect::<Vec<_>>().join("/"));
        let mut file = SkillFile::new(&uri, &relative, content, bytes.len() as u64);
        if relative == SKILL_FILE {
            let text = std::str::from_utf8(&bytes).map_err(|_| invalid(format!("its {SKILL_FILE} is not UTF-8")))?;
            let fields = skills::frontmatter(text).map_err(|e| invalid(format!("its {SKILL_FILE}: {e}")))?;
            let declared = fields.get("name").and_then(Value::as_str).unwrap_or_default();
            if declared != name {
                return Err(invalid(format!(
                    "its {SKILL_FILE} names it `{declared}`, but its folder is `{name}`; they must be the same"
                )));
            }
            let description = fields.get("description").and_then(Value::as_str).unwrap_or_default();
            file = file.described(name, description);
            frontmatter = Some(fields);
        }
        manifest.push(skills::SkillFile { uri, digest: skills::digest(&bytes), size: bytes.len() as u64 });
        resources.push(file);
    }
    let frontmatter = frontmatter.ok_or_else(|| invalid(format!("it has no {SKILL_FILE}")))?;
    if total > MAX_TOTAL_SIZE {
        return Err(invalid(format!("its files hold {total} bytes; hosts need accept only {MAX_TOTAL_SIZE}")));
    }
    manifest.sort_by(|a, b| a.uri.cmp(&b.uri));
    let entry =
        skills::Skill { uri: format!("{root}/{SKILL_FILE}"), frontmatter, resources: SkillFiles::Listed(manifest) };
    Ok(Checked { origin, entry, files: resources })
}

/// Whether `segment` may be a segment of a skill path as it is.
fn is_path_segment(segment: &str) -> bool {
    !matches!(segment, "" | "." | "..") && segment.bytes().all(is_unreserved)
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// A path segment as a URI carries it: percent-encoded but for
/// unreserved characters.
fn encode(segment: &str) -> String {
    segment.bytes().map(|b| if is_unreserved(b) { char::from(b).to_string() } else { format!("%{b:02X}") }).collect()
}

/// Enter `file` in the directories above it, each parent listing its
/// child: the file, or a subdirectory.
fn add_to_directories(children: &mut BTreeMap<String, BTreeMap<String, mcp_core::Resource>>, file: &SkillFile) {
    let listed = file.definition().resource();
    let Some(path) = listed.uri.strip_prefix(SCHEME) else { return };
    let segments: Vec<&str> = path.split('/').collect();
    for depth in 1..segments.len() {
        let parent = format!("{SCHEME}{}", segments[..depth].join("/"));
        let child = format!("{SCHEME}{}", segments[..=depth].join("/"));
        let entry = if depth + 1 == segments.len() {
            let mut resource = mcp_core::Resource::new(&child, file.file_name());
            resource.mime_type = listed.mime_type.clone();
            resource.size = listed.size;
            resource
        } else {
            let mut resource = mcp_core::Resource::new(&child, segments[depth]);
            resource.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
            resource
        };
        children.entry(parent).or_default().entry(child).or_insert(entry);
    }
}
