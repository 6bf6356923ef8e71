//! Skills (the `io.modelcontextprotocol/skills` extension) as a host uses
//! them: list the entries, and read nothing more until a skill is loaded;
//! loading reads its `SKILL.md` and checks it against the entry (size,
//! digest, frontmatter) before handing it over; each other file is read
//! only when asked for, only if the entry lists it, and checked the same
//! way. Content that fails a check is never returned.

use mcp_core::skills::{self, GetSkillResult, Skill};
use mcp_core::{Resource, methods};
use serde_json::{Value, json};

use crate::{Client, Error};

impl Client {
    /// Whether the server declared the skills extension.
    pub fn has_skills(&self) -> bool {
        self.skills_declaration().is_some_and(|d| d.is_object())
    }

    /// The server's settings of the skills extension, if it declared it.
    fn skills_declaration(&self) -> Option<Value> {
        self.server_capabilities().other.get("extensions")?.get(skills::EXTENSION).cloned()
    }

    /// Every skill's entry (`skills/list`, all pages): names,
    /// descriptions, frontmatter and file manifests. Reads none of their
    /// files.
    pub async fn list_skills(&self) -> Result<Vec<Skill>, Error> {
        self.require_skills()?;
        self.list_all(methods::SKILLS_LIST, "skills").await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`):
    /// for a skill named elsewhere than in the listing, or to refresh one.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill, Error> {
        self.require_skills()?;
        let result: GetSkillResult =
            crate::api::typed(&self.request_text(methods::SKILLS_GET, json!({ "uri": uri })).await?)?;
        if result.skill.uri != uri {
            return Err(Error::protocol(format!("`skills/get` for {uri} answered with {}", result.skill.uri)));
        }
        Ok(result.skill)
    }

    /// Load `skill`: read its `SKILL.md` and check it against the entry
    /// (its size and digest, then its frontmatter field by field). Fails
    /// with [`Error::Unverified`] if anything differs: the content is
    /// then not used. The entry is held by the loaded skill, and its other
    /// files are read through it.
    pub async fn load_skill(&self, skill: &Skill) -> Result<LoadedSkill, Error> {
        let bytes = self.read_verified(skill, &skill.uri).await?;
        let text = String::from_utf8(bytes).map_err(|_| Error::Unverified(format!("{} is not UTF-8", skill.uri)))?;
        skills::verify_frontmatter(skill, &text).map_err(Error::Unverified)?;
        Ok(LoadedSkill { client: self.clone(), entry: skill.clone(), instructions: text })
    }

    /// The direct children of the directory resource at `uri`
    /// (`resources/directory/read`, all pages), subdirectories with the
    /// MIME type `inode/directory`. Only for a server that declared
    /// `directoryRead`.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Resource>, Error> {
        self.require_skills()?;
        let declared = self.skills_declaration().and_then(|d| d.get("directoryRead").cloned());
        if declared != Some(Value::Bool(true)) {
            return Err(Error::protocol("the server did not declare `directoryRead`: it lists no directories"));
        }
        let mut children = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = json!({ "uri": uri });
            if let Some(cursor) = &cursor {
                params["cursor"] = json!(cursor);
            }
            let page: skills::ReadDirectoryResult =
                crate::api::typed(&self.request_text(methods::RESOURCES_DIRECTORY_READ, params).await?)?;
            children.extend(page.resources);
            match page.next_cursor {
                Some(next) if Some(&next) != cursor.as_ref() => cursor = Some(next),
                _ => return Ok(children),
            }
        }
    }

    fn require_skills(&self) -> Result<(), Error> {
        if self.has_skills() {
            Ok(())
        } else {
            Err(Error::protocol(format!("the server did not declare the `{}` extension", skills::EXTENSION)))
        }
    }

    /// The bytes at `uri`, read and checked against `skill`'s entry.
    async fn read_verified(&self, skill: &Skill, uri: &str) -> Result<Vec<u8>, Error> {
        // An unlisted file is refused before anything is read.
        if matches!(skill.resources, skills::SkillFiles::Listed(_)) && skill.file(uri).is_none() {
            return Err(Error::Unverified(format!("{uri} is not one of the files the entry of {} lists", skill.uri)));
        }
        let result = self.read_resource(uri).await?;
        let contents = result.contents.iter().find(|c| c.uri() == uri).or(result.contents.first());
        let bytes = contents
            .and_then(mcp_core::ResourceContents::bytes)
            .ok_or_else(|| Error::protocol(format!("reading {uri} gave no contents")))?;
        skills::verify(skill, uri, &bytes).map_err(Error::Unverified)?;
        Ok(bytes)
    }
}

/// A skill loaded by [`Client::load_skill`]: its checked `SKILL.md`, and
/// the entry it was checked against, through which its other files are
/// read.
#[derive(Clone)]
pub struct LoadedSkill {
    client: Client,
    entry: Skill,
    instructions: String,
}

impl LoadedSkill {
    /// The entry it was loaded from.
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// Its `SKILL.md`, frontmatter included.
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The file at `relative` under the skill's folder (as `SKILL.md`
    /// names it, `references/FORMS.md`, percent-encoded as in
    /// [`files`](Self::files)), read now and checked against the entry; a
    /// file the entry does not list is refused unread.
    pub async fn read(&self, relative: &str) -> Result<Vec<u8>, Error> {
        let uri = format!("{}/{}", self.entry.root(), relative.trim_start_matches("./"));
        self.client.read_verified(&self.entry, &uri).await
    }

    /// The files its entry lists besides `SKILL.md`, by their paths under
    /// its folder (none for a skill whose files are `"dynamic"`).
    pub fn files(&self) -> Vec<&str> {
        let root = self.entry.root();
        match &self.entry.resources {
            skills::SkillFiles::Listed(files) => files
                .iter()
                .filter(|f| f.uri != self.entry.uri)
                .filter_map(|f| f.uri.strip_prefix(root)?.strip_prefix('/'))
                .collect(),
            skills::SkillFiles::Dynamic => Vec::new(),
        }
    }
}

impl std::fmt::Debug for LoadedSkill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedSkill").field("entry", &self.entry).finish_non_exhaustive()
    }
}
