//! Notes as resources: `notes://index` lists them, `notes://{title}` reads
//! one; the `write_note` and `delete_note` tools change them, and clients
//! subscribed to a note (or to the index) are told when it changes. The
//! `summarize_note` prompt embeds a note, and completes its title.
//!
//! `edit_note` opens a note in an editor in hosts that render MCP Apps (an
//! interactive view, `ui://notes/editor`, built from `examples/views/`);
//! other clients get the note's text. The editor lists the notes through
//! `note_titles`, a tool for views alone, and saves with `write_note`.
//!
//! ```sh
//! cargo run --example notes
//! ```

use std::collections::BTreeMap;
use std::sync::Mutex;

use mcp_runtime::apps::View;
use mcp_runtime::prelude::*;
use mcp_runtime::resources::ResourcesHandle;

/// The notes, by title.
#[derive(Default)]
struct Notebook(Mutex<BTreeMap<String, String>>);

impl Notebook {
    fn notes(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Tells subscribers which resources changed.
struct Changes(ResourcesHandle);

const INDEX: &str = "notes://index";

/// Every note's title, one per line.
#[resource("notes://index", mime_type = "text/plain")]
fn index(book: State<Notebook>) -> String {
    book.notes().keys().cloned().collect::<Vec<_>>().join("\n")
}

/// One note, by its title.
#[resource("notes://{title}", mime_type = "text/markdown")]
fn note(title: String, book: State<Notebook>) -> Result<String, ResourceError> {
    book.notes()
        .get(&title)
        .cloned()
        .ok_or_else(|| ResourceError::not_found(format!("there is no note called {title}")))
}

/// A title names a resource, so it is one URI segment: letters, digits,
/// `-` and `_` (and not `index`, the list of them).
fn check_title(title: &str) -> Result<(), ToolError> {
    let ok = title != "index"
        && !title.is_empty()
        && title.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    if ok { Ok(()) } else { Err(ToolError::new("a title is letters, digits, `-` and `_`, e.g. `shopping_list`")) }
}

/// Write a note, creating it or replacing its text. Its URI is
/// `notes://<title>`.
#[tool(idempotent)]
fn write_note(
    /// The note's title: letters, digits, `-` and `_`
    title: String,
    /// The note's text (Markdown)
    text: String,
    book: State<Notebook>,
    changes: State<Changes>,
) -> Result<String, ToolError> {
    check_title(&title)?;
    let created = book.notes().insert(title.clone(), text).is_none();
    changes.0.updated(&format!("notes://{title}"));
    if created {
        changes.0.updated(INDEX);
    }
    Ok(format!("{} notes://{title}", if created { "created" } else { "updated" }))
}

/// Delete a note.
#[tool(destructive)]
fn delete_note(
    /// The note's title
    title: String,
    book: State<Notebook>,
    changes: State<Changes>,
) -> Result<String, ToolError> {
    if book.notes().remove(&title).is_none() {
        return Err(ToolError::new(format!("there is no note called {title}")));
    }
    changes.0.updated(&format!("notes://{title}"));
    changes.0.updated(INDEX);
    Ok(format!("deleted notes://{title}"))
}

/// A note, as the editor shows it.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct OpenNote {
    /// The note's title.
    title: String,
    /// Its text (empty for a new note).
    text: String,
    /// Whether it is saved yet.
    exists: bool,
}

/// Open a note in an editor, to read and change it. A title that names no
/// note opens a new, empty one.
#[tool(ui = "ui://notes/editor", read_only)]
fn edit_note(
    /// The note's title: letters, digits, `-` and `_`
    title: String,
    book: State<Notebook>,
) -> Result<Json<OpenNote>, ToolError> {
    check_title(&title)?;
    let text = book.notes().get(&title).cloned();
    Ok(Json(OpenNote { exists: text.is_some(), text: text.unwrap_or_default(), title }))
}

/// Every note's title, for the editor's list.
#[tool(app_only, read_only)]
fn note_titles(book: State<Notebook>) -> Json<Vec<String>> {
    Json(book.notes().keys().cloned().collect())
}

/// The editor: one HTML file with its script inlined, built from
/// `examples/views/notes-editor/` with the MCP Apps SDK.
fn editor() -> View {
    View::new("ui://notes/editor", include_str!("views/dist/notes-editor.html"))
        .title("Note editor")
        .description("Edit a note and save it; pick another from the list.")
        .prefers_border(true)
}

/// Titles of the notes that start with what was typed.
async fn titles(mut completing: mcp_runtime::completion::Completing) -> Vec<String> {
    let Ok(book) = completing.extract::<State<Notebook>>() else { return Vec::new() };
    let typed = completing.value().to_lowercase();
    book.notes().keys().filter(|t| t.to_lowercase().starts_with(&typed)).cloned().collect()
}

/// How to summarize.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Style {
    /// One sentence.
    Brief,
    /// A bulleted list.
    Bullets,
}

/// Summarize a note, with the note embedded.
#[prompt]
fn summarize_note(
    /// The note's title
    #[arg(complete = titles)]
    title: String,
    /// `brief` (one sentence, the default) or `bullets`
    style: Option<Style>,
    book: State<Notebook>,
) -> Result<Vec<PromptMessage>, PromptError> {
    let text = book
        .notes()
        .get(&title)
        .cloned()
        .ok_or_else(|| PromptError::new(format!("there is no note called {title}")))?;
    let how = match style {
        Some(Style::Bullets) => "as a bulleted list",
        Some(Style::Brief) | None => "in one sentence",
    };
    let note = Embedded::text(format!("notes://{title}"), text).with_mime_type("text/markdown");
    Ok(vec![PromptMessage::user(note), PromptMessage::user(format!("Summarize the note above {how}."))])
}

fn main() -> Result<(), mcp_runtime::Error> {
    let server = Server::new("notes", env!("CARGO_PKG_VERSION"))
        .instructions("Notes are resources (notes://index, notes://{title}); write_note and delete_note change them.");
    let changes = Changes(server.resources_handle());
    let book = Notebook::default();
    book.notes().insert("welcome".into(), "# Welcome\nWrite notes with `write_note`.".into());
    server.resource(editor()).with_state(book).with_state(changes).run_blocking()
}
