//! Finding the skills under a folder: every directory in it that holds a
//! `SKILL.md` is a skill, its path under the folder its skill path, and
//! every file under it (nested skills' too) one of its files.

use std::path::Path;
use std::sync::Arc;

use mcp_core::skills::{MAX_TOTAL_SIZE, SKILL_FILE};

use super::served::{Content, Draft};
use crate::error::Error;
use crate::resources::Directory;

/// The skills under `folder`. Hidden entries (`.git`) are left out, and
/// so is whatever [`Directory`] would refuse to read: a symlink that
/// leads out of the folder, anything that is not a file or a directory. A
/// symlink to a directory is not followed (it could loop).
pub(super) fn scan(folder: &Path) -> Result<Vec<Draft>, Error> {
    let invalid = |reason: String| Error::InvalidSkill { path: folder.display().to_string(), reason };
    let directory = Directory::new(folder)
        .map_err(|e| invalid(format!("the folder cannot be opened: {e}")))?
        .max_size(MAX_TOTAL_SIZE);
    let directory = Arc::new(directory);
    let mut files = Vec::new();
    walk(&directory, directory.root(), "", &mut files)
        .map_err(|e| invalid(format!("the folder cannot be read: {e}")))?;
    let mut drafts = Vec::new();
    for skill_md in files.iter().filter(|f| *f == SKILL_FILE || f.ends_with(&format!("/{SKILL_FILE}"))) {
        let Some(path) = skill_md.strip_suffix(SKILL_FILE).and_then(|p| p.strip_suffix('/')) else {
            return Err(invalid(format!(
                "the folder itself holds a `{SKILL_FILE}`: serve the folder above it, so that a folder names the skill"
            )));
        };
        let prefix = format!("{path}/");
        let own = files
            .iter()
            .filter_map(|file| file.strip_prefix(&prefix).map(|relative| (relative, file)))
            .map(|(relative, file)| {
                let content = Content::Disk { directory: directory.clone(), relative: file.clone() };
                (relative.to_owned(), content)
            })
            .collect();
        drafts.push(Draft { path: path.to_owned(), origin: folder.join(path).display().to_string(), files: own });
    }
    if drafts.is_empty() {
        tracing::warn!(folder = %folder.display(), "no skills found: no directory in the folder holds a `{SKILL_FILE}`");
    }
    Ok(drafts)
}

/// Add the files under `dir` (at `relative` in the folder) to `files`.
fn walk(directory: &Directory, dir: &Path, relative: &str, files: &mut Vec<String>) -> std::io::Result<()> {
    let mut entries = std::fs::read_dir(dir)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            tracing::warn!(path = %entry.path().display(), "left out of the skills: its name is not UTF-8");
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let inner = if relative.is_empty() { name } else { format!("{relative}/{name}") };
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(directory, &entry.path(), &inner, files)?;
        } else if kind.is_symlink() {
            match directory.resolve(&inner) {
                Ok(real) if real.is_file() => files.push(inner),
                Ok(_) => {
                    tracing::warn!(path = %inner, "left out of the skills: a symlink to a directory is not followed")
                }
                Err(_) => tracing::warn!(path = %inner, "left out of the skills: the symlink leads out of the folder"),
            }
        } else if kind.is_file() {
            files.push(inner);
        }
    }
    Ok(())
}
