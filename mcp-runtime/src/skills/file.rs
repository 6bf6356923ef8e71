//! One file of a skill as a resource: listed by `resources/list`, read by
//! `resources/read` (from disk, under [`Directory`]'s rules, or from
//! memory).

use mcp_core::skills::SKILL_FILE;

use super::served::Content;
use crate::request::RequestParts;
use crate::resources::directory::DirectoryFile;
use crate::resources::{Contents, IntoResourceContents, Resource, ResourceBuilder, ResourceDefinition};
use crate::tools::BoxFuture;

/// A skill's file, served as a resource.
pub(super) struct SkillFile {
    definition: ResourceDefinition,
    /// Its path under the skill's folder (its MIME type is by its name).
    relative: String,
    content: Content,
    skill_md: bool,
}

impl SkillFile {
    /// The file at `uri`, `relative` under its skill's folder, of `size` bytes.
    pub(super) fn new(uri: &str, relative: &str, content: Content, size: u64) -> SkillFile {
        let mut builder = ResourceBuilder::new(uri, "mcp_runtime::skills", relative);
        builder.title(Some(relative)).mime_type(crate::resources::directory::mime_type(relative.as_ref())).size(size);
        SkillFile { definition: builder.build(), relative: relative.to_owned(), content, skill_md: false }
    }

    /// A skill's own `SKILL.md`: named and described as its frontmatter
    /// says, as the extension asks.
    pub(super) fn described(self, name: &str, description: &str) -> SkillFile {
        let mut builder = ResourceBuilder::new(self.definition.uri(), "mcp_runtime::skills", name);
        builder.description(Some(description)).mime_type("text/markdown");
        if let Some(size) = self.definition.resource().size {
            builder.size(size);
        }
        SkillFile { definition: builder.build(), skill_md: true, ..self }
    }

    /// Whether it is the `SKILL.md` of the skill it was made for (not a
    /// nested skill's, seen as a file of the skill around it).
    pub(super) fn is_skill_md(&self) -> bool {
        self.skill_md
    }

    /// Its own name, without its folders.
    pub(super) fn file_name(&self) -> &str {
        self.relative.rsplit('/').next().unwrap_or(SKILL_FILE)
    }

    pub(super) fn definition(&self) -> &ResourceDefinition {
        &self.definition
    }
}

impl Resource for SkillFile {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(&self, request: RequestParts) -> BoxFuture<'static, Contents> {
        let content = self.content.clone();
        let relative = self.relative.clone();
        let uri = request.target().to_owned();
        Box::pin(async move {
            let file = match content {
                Content::Disk { directory, relative } => directory.read(&relative).await?,
                Content::Memory(bytes) => DirectoryFile::in_memory(bytes.to_vec(), &relative),
            };
            file.into_contents(&uri, None)
        })
    }
}
