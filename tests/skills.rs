//! Skills (the `io.modelcontextprotocol/skills` extension) through the
//! protocol: a folder of skills and a skill made in code served by ours,
//! loaded by the client crate over a pipe in both eras; the checks a host
//! makes on what it reads; and the skills a server refuses to serve.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_core::skills::{DIRECTORY_MIME_TYPE, SkillFiles};
use mcp_core::{ProtocolVersion, codes};
use mcp_runtime::Server;
use mcp_runtime::skills::Skill;
use mcp_runtime_client::{Client, EraChoice, Error};
use serde_json::{Value, json};
use sha2::Digest;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

const PDF_SKILL: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n\
    license: Apache-2.0\nmetadata:\n  version: \"2.1\"\n  tags: [pdf, forms]\n---\n\n# PDF processing\n\n\
    Read `references/FORMS.md` before filling a form.\n";
const FORMS: &str = "# Forms\n\nEach form's fields.\n";
const REFUNDS_SKILL: &str = "---\nname: refunds\ndescription: Process refund requests\n---\n\nBe kind.\n";

/// A folder of files under the system's temporary directory, removed when
/// dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(files: &[(&str, &str)]) -> Folder {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("mcp-skills-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let root = std::env::temp_dir().join(name);
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir_all(&root).unwrap();
        Folder(root)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn skills_folder() -> Folder {
    Folder::new(&[
        ("pdf-processing/SKILL.md", PDF_SKILL),
        ("pdf-processing/references/FORMS.md", FORMS),
        ("pdf-processing/scripts/extract.py", "print('pages')\n"),
        ("pdf-processing/.cache/ignored", "hidden"),
        ("acme/billing/refunds/SKILL.md", REFUNDS_SKILL),
        ("README.md", "Not part of any skill.\n"),
    ])
}

/// A client of `server` over an in-process pipe, speaking `version`.
async fn connect(server: Server, version: ProtocolVersion) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(server.serve(server_read, server_write));
    let (read, write) = tokio::io::split(client_end);
    Client::builder().era(EraChoice::Version(version)).io(read, write).await.expect("the client connects")
}

fn sha256(text: &str) -> String {
    let hash = sha2::Sha256::digest(text.as_bytes());
    format!("sha256:{}", hash.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

fn error_code(error: &Error) -> i64 {
    error.server_error().unwrap_or_else(|| panic!("expected a JSON-RPC error, got {error}")).code
}

#[tokio::test]
async fn a_folder_of_skills_is_listed_loaded_and_read_in_both_eras() {
    let folder = skills_folder();
    for version in ERAS {
        let client = connect(Server::empty("skills", "1").skills(folder.path()), version).await;
        assert!(client.has_skills(), "{version}");
        let capabilities = client.server_capabilities();
        assert_eq!(capabilities.other["extensions"]["io.modelcontextprotocol/skills"], json!({"directoryRead": true}));
        assert!(capabilities.resources.is_some(), "skill files are resources: {version}");

        let skills = client.list_skills().await.unwrap();
        let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
        assert_eq!(uris, ["skill://acme/billing/refunds/SKILL.md", "skill://pdf-processing/SKILL.md"], "{version}");
        let pdf = &skills[1];
        assert_eq!(
            Value::Object(pdf.frontmatter.clone()),
            json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents",
                "license": "Apache-2.0", "metadata": {"version": "2.1", "tags": ["pdf", "forms"]}})
        );
        let SkillFiles::Listed(files) = &pdf.resources else { panic!("a folder's skill lists its files") };
        let manifest: Vec<(&str, &str, u64)> =
            files.iter().map(|f| (f.uri.as_str(), f.digest.as_str(), f.size)).collect();
        let (skill_md, forms) = (sha256(PDF_SKILL), sha256(FORMS));
        assert_eq!(
            manifest,
            [
                ("skill://pdf-processing/SKILL.md", skill_md.as_str(), PDF_SKILL.len() as u64),
                ("skill://pdf-processing/references/FORMS.md", forms.as_str(), FORMS.len() as u64),
                ("skill://pdf-processing/scripts/extract.py", sha256("print('pages')\n").as_str(), 15),
            ]
        );
        assert_eq!(&client.get_skill("skill://pdf-processing/SKILL.md").await.unwrap(), pdf);

        // Each SKILL.md is a resource named and described by its frontmatter.
        let resources = client.list_resources().await.unwrap();
        let listed = resources.iter().find(|r| r.uri == "skill://pdf-processing/SKILL.md").unwrap();
        assert_eq!(listed.name, "pdf-processing");
        assert_eq!(listed.description.as_deref(), Some("Extract, fill, and assemble PDF documents"));
        assert_eq!(listed.mime_type.as_deref(), Some("text/markdown"));
        assert!(!resources.iter().any(|r| r.uri.contains(".cache") || r.uri.contains("README")), "{resources:?}");

        // Loading reads SKILL.md and checks it; the other files are read
        // as they are asked for.
        let loaded = client.load_skill(pdf).await.unwrap();
        assert_eq!(loaded.instructions(), PDF_SKILL);
        assert_eq!(loaded.files(), ["references/FORMS.md", "scripts/extract.py"]);
        assert_eq!(loaded.read("references/FORMS.md").await.unwrap(), FORMS.as_bytes());
        let unlisted = loaded.read("../../README.md").await.unwrap_err();
        assert!(matches!(unlisted, Error::Unverified(_)), "{unlisted}");

        // Directories, down from the skill's root.
        let root = client.read_directory("skill://pdf-processing").await.unwrap();
        let children: Vec<(&str, Option<&str>)> =
            root.iter().map(|r| (r.uri.as_str(), r.mime_type.as_deref())).collect();
        assert_eq!(
            children,
            [
                ("skill://pdf-processing/SKILL.md", Some("text/markdown")),
                ("skill://pdf-processing/references", Some(DIRECTORY_MIME_TYPE)),
                ("skill://pdf-processing/scripts", Some(DIRECTORY_MIME_TYPE)),
            ]
        );
        let references = client.read_directory("skill://pdf-processing/references").await.unwrap();
        assert_eq!(references.len(), 1);
        assert_eq!(references[0].name, "FORMS.md");
        let prefix = client.read_directory("skill://acme").await.unwrap();
        assert_eq!(prefix[0].uri, "skill://acme/billing");

        client.close().await;
    }
}

#[tokio::test]
async fn unknown_skills_directories_and_paths_out_of_the_folder_are_invalid_params_and_the_server_goes_on() {
    let folder = skills_folder();
    for version in ERAS {
        let client = connect(Server::empty("skills", "1").skills(folder.path()), version).await;
        let unknown = client.get_skill("skill://pdf-processing/README.md").await.unwrap_err();
        assert_eq!(error_code(&unknown), codes::INVALID_PARAMS, "{unknown}");
        for not_a_directory in ["skill://pdf-processing/SKILL.md", "skill://nothing-here", "skill://pdf-processing/"] {
            let error = client.read_directory(not_a_directory).await.unwrap_err();
            assert_eq!(error_code(&error), codes::INVALID_PARAMS, "{not_a_directory}: {error}");
        }
        for escape in [
            "skill://pdf-processing/../README.md",
            "skill://pdf-processing/%2e%2e/README.md",
            "skill://pdf-processing/.cache/ignored",
            "skill://README.md",
        ] {
            assert!(client.read_resource(escape).await.is_err(), "{escape} must not be read ({version})");
        }
        let bad_cursor = client.request("skills/list", json!({"cursor": "not-ours"})).await.unwrap_err();
        assert_eq!(error_code(&bad_cursor), codes::INVALID_PARAMS);
        // Still serving.
        assert_eq!(client.list_skills().await.unwrap().len(), 2);
        client.close().await;
    }
}

#[tokio::test]
async fn a_skill_made_in_code_is_served_beside_a_folder_and_pages_are_followed() {
    let folder = skills_folder();
    let release_notes = "---\nname: release-notes\ndescription: Write release notes\n---\nRead STYLE.md.\n";
    let skill = Skill::new("release-notes", release_notes).file("STYLE.md", "Short lines.\n");
    // One entry per page: the client follows the cursors.
    let server = Server::empty("skills", "1").skills(folder.path()).skill(skill).page_size(1);
    let client = connect(server, ProtocolVersion::LATEST).await;
    let skills = client.list_skills().await.unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["refunds", "pdf-processing", "release-notes"]);
    let loaded = client.load_skill(&skills[2]).await.unwrap();
    assert_eq!(loaded.instructions(), release_notes);
    assert_eq!(loaded.read("STYLE.md").await.unwrap(), b"Short lines.\n");
    let page = client.request("skills/list", json!({})).await.unwrap();
    assert_eq!(page["skills"].as_array().unwrap().len(), 1);
    assert!(page["nextCursor"].is_string(), "{page}");
    // skills/list and skills/get carry cache hints in 2026-07-28.
    assert!(page["ttlMs"].is_u64() && page["cacheScope"].is_string(), "{page}");
    client.close().await;
}

#[tokio::test]
async fn a_file_changed_after_start_up_is_refused_by_the_client() {
    let folder = skills_folder();
    let client = connect(Server::empty("skills", "1").skills(folder.path()), ProtocolVersion::LATEST_HANDSHAKE).await;
    let skills = client.list_skills().await.unwrap();
    let loaded = client.load_skill(&skills[1]).await.unwrap();
    // Same length, other bytes: only the digest tells.
    std::fs::write(folder.path().join("pdf-processing/references/FORMS.md"), FORMS.replace("Forms", "Evils")).unwrap();
    let changed = loaded.read("references/FORMS.md").await.unwrap_err();
    assert!(matches!(&changed, Error::Unverified(why) if why.contains("digest")), "{changed}");
    std::fs::write(folder.path().join("pdf-processing/SKILL.md"), format!("{PDF_SKILL}more\n")).unwrap();
    let longer = client.load_skill(&skills[1]).await.unwrap_err();
    assert!(matches!(&longer, Error::Unverified(why) if why.contains("bytes")), "{longer}");
    client.close().await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_out_of_the_folder_is_not_served() {
    let outside = Folder::new(&[("secret.txt", "not for clients")]);
    let folder = skills_folder();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), folder.path().join("pdf-processing/secret.txt"))
        .unwrap();
    let client = connect(Server::empty("skills", "1").skills(folder.path()), ProtocolVersion::LATEST).await;
    let pdf = client.get_skill("skill://pdf-processing/SKILL.md").await.unwrap();
    assert!(pdf.file("skill://pdf-processing/secret.txt").is_none(), "{pdf:?}");
    assert!(client.read_resource("skill://pdf-processing/secret.txt").await.is_err());
    client.close().await;
}

/// The error starting `server` gives, as text.
fn refusal(server: Server) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let _inside = runtime.enter();
    match server.connect_in_memory() {
        Ok(_) => panic!("the server started"),
        Err(error) => {
            assert!(matches!(error, mcp_runtime::Error::InvalidSkill { .. }), "{error}");
            error.to_string()
        }
    }
}

#[test]
fn a_skill_the_extension_does_not_allow_stops_the_server_with_a_clear_error() {
    let cases: [(&[(&str, &str)], &str); 6] = [
        (&[("notes/SKILL.md", "# Notes\n")], "does not start with a `---` line"),
        (&[("notes/SKILL.md", "---\nname: notes\n---\n")], "no `description`"),
        (&[("notes/SKILL.md", "---\nname: [notes\n---\n")], "not YAML"),
        (
            &[("notes/SKILL.md", "---\nname: other\ndescription: d\n---\n")],
            "names it `other`, but its folder is `notes`",
        ),
        (&[("Notes/SKILL.md", "---\nname: Notes\ndescription: d\n---\n")], "naming rules"),
        (&[("SKILL.md", "---\nname: x\ndescription: d\n---\n")], "the folder itself"),
    ];
    for (files, expected) in cases {
        let folder = Folder::new(files);
        let message = refusal(Server::empty("skills", "1").skills(folder.path()));
        assert!(message.contains(expected), "{message:?} should say {expected:?}");
    }
    let missing = refusal(Server::empty("skills", "1").skills("/no/such/folder"));
    assert!(missing.contains("cannot be opened"), "{missing}");
    let twice = Skill::new("dup", "---\nname: dup\ndescription: d\n---\n");
    let message = refusal(Server::empty("skills", "1").skill(twice.clone()).skill(twice));
    assert!(message.contains("already"), "{message}");
    let escaping = Skill::new("dup", "---\nname: dup\ndescription: d\n---\n").file("../x", "");
    assert!(refusal(Server::empty("skills", "1").skill(escaping)).contains("plain relative path"));
}

#[tokio::test]
async fn a_nested_skill_is_its_own_skill_and_files_of_the_one_around_it() {
    let inner = "---\nname: forms\ndescription: Fill forms\n---\nFill them.\n";
    let folder = Folder::new(&[("pdf-processing/SKILL.md", PDF_SKILL), ("pdf-processing/forms/SKILL.md", inner)]);
    let client = connect(Server::empty("skills", "1").skills(folder.path()), ProtocolVersion::LATEST).await;
    let skills = client.list_skills().await.unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(uris, ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/forms/SKILL.md"]);
    // The outer skill's manifest is complete: the nested skill's files are its files too.
    assert!(skills[0].file("skill://pdf-processing/forms/SKILL.md").is_some(), "{:?}", skills[0]);
    // One resource per file, the nested SKILL.md described by its own skill.
    let resources = client.list_resources().await.unwrap();
    let nested: Vec<_> = resources.iter().filter(|r| r.uri == "skill://pdf-processing/forms/SKILL.md").collect();
    assert_eq!(nested.len(), 1);
    assert_eq!((nested[0].name.as_str(), nested[0].description.as_deref()), ("forms", Some("Fill forms")));
    let loaded = client.load_skill(&skills[1]).await.unwrap();
    assert_eq!(loaded.instructions(), inner);
    client.close().await;
}
