//! Skills (the `io.modelcontextprotocol/skills` extension, SEP-2640): a
//! server serves agent skills, each a folder whose `SKILL.md` starts with
//! YAML frontmatter naming and describing it, as `skill://` resources.
//!
//! [`Server::skills`](crate::Server::skills) serves every skill under a
//! folder, read-only; [`Server::skill`](crate::Server::skill) serves one
//! [`Skill`] made in code. Each file of a skill is a resource
//! (`skill://<skill-path>/<file>`, its `SKILL.md` named and described by
//! its frontmatter); `skills/list` and `skills/get` give each skill's entry
//! (its frontmatter, and every file's size and SHA-256 digest), and
//! `resources/directory/read` lists a folder's children. The server
//! declares the extension with `directoryRead: true`.
//!
//! The skills are read, checked and hashed when the server starts; a
//! skill that breaks the extension's rules stops it with
//! [`Error::InvalidSkill`](crate::Error::InvalidSkill) saying why. A
//! folder's files are read from disk at each `resources/read`, under the
//! rules of [`Directory`](crate::resources::Directory): a file changed
//! since start-up no longer matches its digest, which a host notices.

mod file;
mod folder;
pub(crate) mod methods;
mod served;

use std::path::PathBuf;
use std::sync::Arc;

pub(crate) use served::Served;

use crate::resources::Resource;

/// One skill made in code, for [`Server::skill`](crate::Server::skill):
/// its `SKILL.md` and any other files.
///
/// ```
/// use mcp_runtime::skills::Skill;
///
/// let skill = Skill::new(
///     "release-notes",
///     "---\nname: release-notes\ndescription: Write release notes from the changelog\n---\n\nRead `STYLE.md` first.\n",
/// )
/// .file("STYLE.md", "Short sentences; one change per line.\n");
/// let server = mcp_runtime::Server::empty("docs", "1").skill(skill);
/// ```
#[derive(Clone, Debug)]
pub struct Skill {
    path: String,
    skill_md: Vec<u8>,
    files: Vec<(String, Vec<u8>)>,
}

impl Skill {
    /// A skill at `path` (`/`-separated; its last segment is its name,
    /// which its frontmatter must repeat) whose `SKILL.md` is `skill_md`.
    pub fn new(path: impl Into<String>, skill_md: impl Into<Vec<u8>>) -> Skill {
        Skill { path: path.into(), skill_md: skill_md.into(), files: Vec::new() }
    }

    /// Add the file at `relative` (`/`-separated, under the skill's folder).
    pub fn file(mut self, relative: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Skill {
        self.files.push((relative.into(), bytes.into()));
        self
    }
}

/// Where a server's skills come from.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// Every skill under a folder.
    Folder(PathBuf),
    /// One skill made in code.
    Code(Skill),
}

/// The skills a server was given, and what reads them at start-up.
///
/// The reader (the skill checks, hashing, the YAML frontmatter parser) is
/// reached through the pointer that adding a skill stores, never named by
/// the server's start-up: a program that adds no skill leaves it all to
/// the linker to drop.
pub(crate) struct Sources {
    pub(crate) list: Vec<Source>,
    pub(crate) load: fn(&[Source]) -> Result<Loaded, crate::Error>,
}

/// What the server serves of its skills, and the resource of each file.
pub(crate) type Loaded = (Served, Vec<Arc<dyn Resource>>);

impl Sources {
    pub(crate) fn new() -> Self {
        Sources { list: Vec::new(), load: Served::load }
    }
}
