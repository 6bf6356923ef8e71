//! End to end: the built `cargo-mcp` against the fixture server
//! (`tests/fixtures/server.rs`), over stdio and Streamable HTTP, in both
//! protocol eras, and `install` against configuration files in a
//! temporary folder.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;
use common::TempDir;

/// The fixture's path, built up to date in this test's profile (with the
/// other fixture, once per test process), as `tests/common` does for the
/// workspace's examples (with the whole workspace selected, for the same
/// reason: the runtime's features stay those the workspace's tests built).
fn fixture() -> PathBuf {
    example("fixture-server")
}

fn example(name: &str) -> PathBuf {
    static BUILT: Mutex<bool> = Mutex::new(false);
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("a target directory");
    let profile = profile_dir.file_name().and_then(|p| p.to_str()).expect("a profile directory");
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !*built {
        let profile = if profile == "debug" { "dev" } else { profile };
        let status = Command::new(cargo())
            .args(["build", "--quiet", "--workspace", "--profile", profile])
            .args(["--example", "fixture-server", "--example", "fixture-old-server"])
            .status()
            .expect("running cargo to build the fixtures");
        assert!(status.success(), "building the fixtures failed");
        *built = true;
    }
    profile_dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// `cargo-mcp <args>`, run to the end (from this package's directory, so
/// that `--example fixture-server` names the fixture).
fn cargo_mcp(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-mcp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("MCP_TRANSPORT")
        .output()
        .expect("running cargo-mcp");
    Run(output)
}

/// `cargo-mcp <args> -- <fixture> <fixture_args>`.
fn against_fixture(args: &[&str], fixture_args: &[&str]) -> Run {
    let fixture = fixture();
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.push(fixture.to_str().expect("a UTF-8 path"));
    all.extend(fixture_args);
    cargo_mcp(&all)
}

struct Run(Output);

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    fn code(&self) -> Option<i32> {
        self.0.status.code()
    }

    #[track_caller]
    fn success(&self) -> String {
        assert_eq!(self.code(), Some(0), "stdout:\n{}\nstderr:\n{}", self.stdout(), self.stderr());
        self.stdout()
    }

    #[track_caller]
    fn failure(&self, code: i32) -> String {
        assert_eq!(self.code(), Some(code), "stdout:\n{}\nstderr:\n{}", self.stdout(), self.stderr());
        self.stderr()
    }

    #[track_caller]
    fn json(&self) -> Value {
        serde_json::from_str(&self.success()).expect("stdout is one JSON document")
    }
}

/// A process ended when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

/// Wait until something listens on `port`: the server started (a build
/// may come first, so be patient).
fn wait_for(port: u16, process: &mut Running) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = process.0.try_wait() {
            panic!("the server exited before listening: {status}");
        }
        assert!(Instant::now() < deadline, "nothing listens on port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The fixture serving Streamable HTTP through `Server::run`'s `--http`.
fn http_fixture() -> (Running, String) {
    let port = free_port();
    let child = Command::new(fixture())
        .args(["--http", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting the fixture");
    let mut running = Running(child);
    wait_for(port, &mut running);
    (running, format!("http://127.0.0.1:{port}/mcp"))
}

#[test]
fn inspect_lists_every_kind_of_definition_and_each_clients_verdict() {
    let out = against_fixture(&["inspect"], &[]).success();
    for expected in [
        "fixture 1.2.3",
        "protocol 2026-07-28",
        "A fixture for cargo mcp's tests.",
        "Tools (9)",
        "Count the words of a text",
        "\"description\": \"The left operand\"",
        "output schema:",
        "Resources (1)",
        "fixture://greeting",
        "Resource templates (1)",
        "fixture://items/{id}",
        "Prompts (1)",
        "argument code (required): The code to review",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    let verdicts = &out[out.find("Clients").expect("a clients section")..];
    assert!(verdicts.contains("Claude Code            all clear"), "{verdicts}");
    assert!(verdicts.contains("Claude Desktop         2 errors, 1 warning"), "{verdicts}");
    assert!(verdicts.contains("tool draw, inputSchema.$defs.Shape.oneOf: `oneOf` is not part of Gemini"), "{verdicts}");
    assert!(verdicts.contains("warning tool count, outputSchema:"), "{verdicts}");
    assert!(verdicts.contains("Visual Studio Copilot  1 error"), "{verdicts}");
    assert!(verdicts.contains("tool legacy.lookup, name:"), "{verdicts}");
    assert!(verdicts.contains("fix: rename the tool with letters, digits"), "{verdicts}");
}

#[test]
fn inspect_json_is_one_document_of_definitions_and_problems() {
    let doc = against_fixture(&["inspect", "--json"], &[]).json();
    assert_eq!(doc["server"], json!({"name": "fixture", "version": "1.2.3"}));
    assert_eq!(doc["era"], "modern");
    assert_eq!(doc["tools"].as_array().unwrap().len(), 9);
    let route = doc["tools"].as_array().unwrap().iter().find(|t| t["name"] == "route").unwrap();
    assert_eq!(route["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region", "tools as the server sent them");
    assert_eq!(doc["resources"][0]["uri"], "fixture://greeting");
    assert_eq!(doc["resourceTemplates"][0]["uriTemplate"], "fixture://items/{id}");
    assert_eq!(doc["prompts"][0]["name"], "review");
    let problems = doc["problems"].as_array().unwrap();
    let of = |client: &str, item: &str, path: &str| {
        problems.iter().any(|p| p["client"] == client && p["item"] == item && p["path"] == path)
    };
    // The strict schema of a tagged enum: what Gemini rejects, by path.
    assert!(of("gemini-cli", "tool draw", "inputSchema.$defs.Shape.oneOf"), "{problems:?}");
    assert!(of("cursor", "tool draw", "inputSchema.$defs"), "{problems:?}");
    let named = problems.iter().find(|p| p["client"] == "visual-studio").expect("Visual Studio's problem");
    assert_eq!((&named["item"], &named["path"]), (&json!("tool legacy.lookup"), &json!("name")));
    assert!(of("claude-desktop", "tool count", "outputSchema"), "{problems:?}");
    let clients = doc["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 7);
    for client in clients {
        let troubled = ["visual-studio", "claude-desktop", "gemini-cli", "cursor", "vscode"].map(Value::from);
        let troubled = troubled.contains(&client["id"]);
        assert_eq!(client["allClear"], !troubled, "{client}");
    }

    let handshake = against_fixture(&["inspect", "--json", "--era", "handshake"], &[]).json();
    assert_eq!(handshake["era"], "handshake");
    assert_eq!(handshake["protocolVersion"], "2025-11-25");
    assert_eq!(handshake["tools"].as_array().unwrap().len(), 9);
}

#[test]
fn deny_fails_only_when_a_named_client_has_a_problem() {
    let denied = against_fixture(&["inspect", "--deny", "visual-studio"], &[]).failure(1);
    assert!(
        denied.contains("Visual Studio Copilot would have problems with this server: 1 error (--deny counts errors)"),
        "{denied}"
    );
    against_fixture(&["inspect", "--deny", "claude-code,codex"], &[]).success();
    against_fixture(&["inspect", "--deny", "all", "--json"], &["--clean"]).success();
    // In JSON the problems are in the document, not "above": no such hint.
    let json = against_fixture(&["inspect", "--deny", "all", "--json"], &[]);
    let stderr = json.failure(1);
    assert!(stderr.contains("would have problems with this server: "), "{stderr}");
    assert!(!stderr.contains("hint:") && !stderr.contains("above"), "{stderr}");
    let doc: Value = serde_json::from_str(&json.stdout()).expect("stdout is one JSON document");
    assert!(!doc["problems"].as_array().unwrap().is_empty());
    against_fixture(&["inspect", "--deny", "visual-studio"], &["--clean"]).success();
    let unknown = against_fixture(&["inspect", "--deny", "notepad"], &[]).failure(2);
    assert!(unknown.contains("`notepad` is not a client") && unknown.contains("visual-studio"), "{unknown}");
}

#[test]
fn deny_counts_errors_and_warnings_only_when_asked() {
    // Output schemas (structured output, the advice): Claude Desktop's
    // trouble with them is a warning, shown and not counted by `--deny all`.
    let shown = against_fixture(&["inspect", "--deny", "all"], &["--structured"]).success();
    let line = shown.lines().find(|l| l.contains("Claude Desktop")).unwrap();
    assert!(line.trim_start().starts_with('!') && line.contains(" warning"), "{line}");
    assert!(shown.contains("warning tool count, outputSchema:"), "{shown}");
    let strict = against_fixture(&["inspect", "--deny", "all", "--deny-warnings"], &["--structured"]).failure(1);
    assert!(strict.contains("Claude Desktop would have problems with this server: "), "{strict}");
    assert!(strict.contains("warning") && strict.contains("--deny-warnings"), "{strict}");
    let doc = against_fixture(&["inspect", "--json"], &["--structured"]).json();
    let desktop = doc["clients"].as_array().unwrap().iter().find(|c| c["id"] == "claude-desktop").unwrap().clone();
    assert_eq!(desktop["errors"], 0, "{desktop}");
    assert!(desktop["warnings"].as_u64().unwrap() >= 1, "{desktop}");
    assert!(doc["problems"].as_array().unwrap().iter().all(|p| p["severity"] == "warning"), "{doc}");
    // `--deny-warnings` alone is a usage error: it qualifies `--deny`.
    against_fixture(&["inspect", "--deny-warnings"], &["--structured"]).failure(2);
}

#[test]
fn inspect_builds_an_example_of_the_project() {
    let out = cargo_mcp(&["inspect", "--example", "fixture-server", "--deny", "claude-code"]).success();
    assert!(out.contains("fixture 1.2.3"), "{out}");
    let missing = cargo_mcp(&["inspect", "--example", "no-such-server"]).failure(1);
    assert!(missing.contains("no example named `no-such-server`"), "{missing}");
    // Every example of the workspace can be named, from any of its folders.
    assert!(missing.contains("examples are: ") && missing.contains("fixture-server"), "{missing}");
    assert!(missing.contains("calculator"), "{missing}");
    let binary = cargo_mcp(&["inspect", "--bin", "no-such-server"]).failure(1);
    assert!(binary.contains("no binary named `no-such-server`"), "{binary}");
    assert!(binary.contains("binaries are: "), "{binary}");
}

#[test]
fn call_takes_key_value_pairs_and_json_in_both_eras_over_stdio() {
    for era in ["modern", "handshake", "auto"] {
        let sum = against_fixture(&["call", "add", "a=2", "b=3.5", "--era", era], &[]).success();
        assert_eq!(sum.trim(), "5.5", "era {era}");
        let merged = against_fixture(&["call", "add", "--args", r#"{"a": 1, "b": 2}"#, "b=40", "--era", era], &[]);
        assert_eq!(merged.success().trim(), "41", "era {era}");
        let text = against_fixture(&["call", "greet", "name=Ada Lovelace", "--era", era], &[]).success();
        assert_eq!(text.trim(), "Hello, Ada Lovelace!", "era {era}");
    }
}

#[test]
fn call_prints_structured_content_as_json_and_tool_errors_as_errors() {
    let structured = against_fixture(&["call", "count", "text=a longer text"], &[]).success();
    let value: Value = serde_json::from_str(&structured).expect("pretty JSON alone");
    assert_eq!(value, json!({"words": 3, "longest": "longer"}));
    assert!(structured.contains("\n  \"words\": 3"), "pretty-printed: {structured}");

    let raw = against_fixture(&["call", "add", "a=1", "b=1", "--json"], &[]).json();
    assert_eq!(raw["content"][0], json!({"type": "text", "text": "2"}));

    let failed = against_fixture(&["call", "fail"], &[]);
    let stderr = failed.failure(1);
    assert!(stderr.contains("the tool `fail` reported an error") && stderr.contains("the fixture fails on purpose"));
    assert_eq!(failed.stdout(), "");

    let unknown = against_fixture(&["call", "nope"], &[]).failure(1);
    assert!(unknown.contains("JSON-RPC error -32602, invalid params"), "{unknown}");
    assert!(unknown.contains("hint: check the tool's name"), "{unknown}");

    let bad = against_fixture(&["call", "add", "oops"], &[]).failure(2);
    assert!(bad.contains("`oops` is not an argument: write KEY=VALUE"), "{bad}");
}

#[test]
fn call_over_http_in_both_eras_with_event_streams_and_mirrored_headers() {
    let (_server, url) = http_fixture();
    for era in ["auto", "modern", "handshake"] {
        let sum = cargo_mcp(&["call", "add", "a=2", "b=3", "--url", &url, "--era", era]).success();
        assert_eq!(sum.trim(), "5", "era {era}");
        // Logs before the result: the answer comes as an event stream in
        // the handshake era (the log rides along), as JSON in modern.
        let streamed = cargo_mcp(&["call", "chatty", "--url", &url, "--era", era]).success();
        assert_eq!(streamed.trim(), "done talking", "era {era}");
        // The region goes in the body and, in 2026-07-28, in Mcp-Param-Region
        // (base64 when a header cannot carry it as text).
        for region in ["eu-west", "Zürich"] {
            let routed = cargo_mcp(&["call", "route", &format!("region={region}"), "--url", &url, "--era", era]);
            assert_eq!(routed.success().trim(), format!("routed to {region}"), "era {era}");
        }
    }
    let doc = cargo_mcp(&["inspect", "--json", "--url", &url, "--era", "handshake"]).json();
    assert_eq!(doc["tools"].as_array().unwrap().len(), 9);

    let nobody = format!("http://127.0.0.1:{}/mcp", free_port());
    let refused = cargo_mcp(&["call", "add", "--url", &nobody]).failure(1);
    assert!(refused.contains("cannot reach") && refused.contains("is the server running?"), "{refused}");
}

#[test]
fn read_and_prompt_print_contents_and_messages() {
    for era in ["modern", "handshake"] {
        let text = against_fixture(&["read", "fixture://greeting", "--era", era], &[]).success();
        assert_eq!(text.trim(), "hello from the fixture");
        let templated = against_fixture(&["read", "fixture://items/7", "--era", era], &[]).success();
        assert_eq!(templated.trim(), "item number 7");
        let prompt = against_fixture(&["prompt", "review", "code=fn main() {}", "--era", era], &[]).success();
        assert_eq!(prompt, "user:\n  Please review this code:\n  fn main() {}\n");
    }
    let raw = against_fixture(&["read", "fixture://greeting", "--json"], &[]).json();
    assert_eq!(raw["contents"][0]["mimeType"], "text/plain");
    let missing = against_fixture(&["read", "fixture://items/0"], &[]).failure(1);
    assert!(missing.contains("there is no item 0"), "{missing}");
    let unfilled = against_fixture(&["prompt", "review"], &[]).failure(1);
    assert!(unfilled.contains("code"), "{unfilled}");
}

#[test]
fn auto_falls_back_to_the_handshake_and_server_requests_are_answered() {
    let old = example("fixture-old-server");
    let old = old.to_str().unwrap();
    let doc = cargo_mcp(&["inspect", "--json", "--", old]).json();
    assert_eq!(doc["era"], "handshake");
    assert_eq!(doc["protocolVersion"], "2025-06-18");
    assert_eq!(doc["server"]["name"], "old");
    let names: Vec<&str> = doc["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["first", "second"], "both pages");
    assert_eq!(
        (doc["resources"].clone(), doc["prompts"].clone()),
        (json!([]), json!([])),
        "no capability, none listed"
    );

    let refused = cargo_mcp(&["inspect", "--era", "modern", "--", old]).failure(1);
    assert!(
        refused.contains("does not answer 2026-07-28 requests") && refused.contains("--era handshake"),
        "{refused}"
    );

    // The server pings and asks to elicit before answering, then shows
    // what it got back.
    let replies = cargo_mcp(&["call", "first", "--", old]).success();
    let mut lines = replies.lines().map(|l| serde_json::from_str::<Value>(l).expect("a JSON-RPC line"));
    assert_eq!(lines.next().unwrap(), json!({"jsonrpc": "2.0", "id": "ping-1", "result": {}}));
    let refusal = lines.next().unwrap();
    assert_eq!(refusal["id"], "ask-1");
    assert!(refusal["error"]["message"].as_str().unwrap().contains("not supported by cargo mcp"), "{refusal}");
}

#[cfg(unix)]
#[test]
fn a_server_that_dies_is_reported_with_its_stderr() {
    let failed = cargo_mcp(&["inspect", "--", "sh", "-c", "echo 'cannot open the database' >&2; exit 3"]);
    let stderr = failed.failure(1);
    assert!(stderr.contains("the server exited before"), "{stderr}");
    assert!(stderr.contains("cannot open the database"), "{stderr}");
}

#[test]
fn install_merges_into_the_clients_file_and_keeps_a_backup() {
    let dir = TempDir::new("install");
    let config = dir.0.join("claude_desktop_config.json");
    let original =
        "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"/bin/other\"}\n  }\n}\n";
    std::fs::write(&config, original).unwrap();
    let config_arg = config.to_str().unwrap();
    let install = |extra: &[&str]| {
        let mut args = vec!["install", "claude-desktop", "--example", "fixture-server", "--profile", "dev"];
        args.extend(["--config", config_arg]);
        args.extend(extra);
        cargo_mcp(&args)
    };

    // A dry run builds nothing and changes nothing: it shows the build
    // command, the entry and the resulting file.
    let dry = install(&["--dry-run", "--name", "fx"]);
    let shown: Value = serde_json::from_str(&dry.success()).unwrap();
    let said = dry.stderr();
    assert!(!said.contains("Building"), "{said}");
    assert!(said.contains("nothing is built or written"), "{said}");
    assert!(
        said.contains("would build with `cargo build --workspace --example fixture-server --profile dev`"),
        "{said}"
    );
    assert!(said.contains("would add `fx` under `mcpServers`:") && said.contains("\"command\": "), "{said}");
    assert!(said.contains(&format!("would write {}", config.display())), "{said}");
    assert_eq!(shown["theme"], "dark");
    assert_eq!(shown["mcpServers"]["other"]["command"], "/bin/other");
    let command = shown["mcpServers"]["fx"]["command"].as_str().unwrap().to_owned();
    assert!(Path::new(&command).is_absolute() && command.ends_with("fixture-server"), "{command}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    assert!(!dir.0.join("claude_desktop_config.json.bak").exists());

    // The real thing: merged, with the old file kept (and the executable
    // where the dry run said it would be).
    install(&["--name", "fx", "--", "--clean"]).success();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({
            "theme": "dark",
            "mcpServers": {
                "other": {"command": "/bin/other"},
                "fx": {"command": command, "args": ["--clean"]},
            }
        })
    );
    assert_eq!(std::fs::read_to_string(dir.0.join("claude_desktop_config.json.bak")).unwrap(), original);
    // The installed command is a working server.
    let sum = cargo_mcp(&["call", "add", "a=1", "b=2", "--", &command, "--clean"]).success();
    assert_eq!(sum.trim(), "3");

    // Shapes of the other clients; a missing file is created, with no backup.
    let vscode = dir.0.join("new").join("mcp.json");
    let args = ["install", "vscode", "--example", "fixture-server", "--profile", "dev", "--config"];
    cargo_mcp(&[&args[..], &[vscode.to_str().unwrap()]].concat()).success();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&vscode).unwrap()).unwrap();
    assert_eq!(written, json!({"servers": {"fixture-server": {"type": "stdio", "command": command, "args": []}}}));
    assert!(!dir.0.join("new").join("mcp.json.bak").exists());

    // A file with comments is refused, untouched.
    let commented = dir.0.join("settings.json");
    std::fs::write(&commented, "// mine\n{}\n").unwrap();
    let args = ["install", "gemini-cli", "--example", "fixture-server", "--profile", "dev", "--config"];
    let refused = cargo_mcp(&[&args[..], &[commented.to_str().unwrap()]].concat()).failure(1);
    assert!(refused.contains("is not plain JSON"), "{refused}");
    assert_eq!(std::fs::read_to_string(&commented).unwrap(), "// mine\n{}\n");
}

#[cfg(unix)]
#[test]
fn run_serves_http_through_server_run_and_passes_arguments_on() {
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_cargo-mcp"))
        .args(["run", "--example", "fixture-server", "--http", &addr, "--", "--clean"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting cargo mcp run");
    // `run` becomes the server, so ending this process ends the server.
    let mut running = Running(child);
    wait_for(port, &mut running);
    let doc = cargo_mcp(&["inspect", "--json", "--url", &format!("http://{addr}/mcp")]).json();
    assert_eq!(doc["tools"].as_array().unwrap().len(), 6, "`--clean` reached the server");
    assert_eq!(doc["problems"], json!([]));
}

#[test]
fn inspect_prints_the_tools_as_a_model_apis_definitions() {
    let openai = against_fixture(&["inspect", "--format", "openai"], &["--clean"]).json();
    let add = openai.as_array().unwrap().iter().find(|t| t["function"]["name"] == "add").expect("the add tool");
    assert_eq!(add["type"], "function");
    assert_eq!(add["function"]["parameters"]["type"], "object");
    let anthropic = against_fixture(&["inspect", "--format", "anthropic"], &["--clean"]).json();
    assert!(anthropic.as_array().unwrap().iter().any(|t| t["name"] == "add" && t["input_schema"].is_object()));
    let gemini = against_fixture(&["inspect", "--format", "gemini"], &["--clean"]).json();
    assert!(gemini.as_array().unwrap().iter().any(|t| t["name"] == "add" && t["parameters"].is_object()));
    let unknown = against_fixture(&["inspect", "--format", "cobol"], &[]).failure(2);
    assert!(
        unknown.contains("`cobol` is not a model API") && unknown.contains("openai, anthropic, gemini"),
        "{unknown}"
    );
}

#[test]
fn internal_errors_show_the_servers_log_of_their_incident() {
    // The fixture started by cargo mcp: its stderr has the details.
    let call = against_fixture(&["call", "broken"], &[]).failure(1);
    assert!(call.contains("internal error (incident "), "{call}");
    assert!(call.contains("the server's log of incident "), "{call}");
    assert!(call.contains("the fixture's database is on fire"), "{call}");
    assert!(!call.contains("hint:"), "{call}");
    let read = against_fixture(&["read", "fixture://items/13"], &[]).failure(1);
    assert!(read.contains("the server's log of incident ") && read.contains("item 13 is cursed"), "{read}");
    assert!(!read.contains("hint:"), "{read}");
    let prompt = against_fixture(&["prompt", "review", "code=crash"], &[]).failure(1);
    assert!(prompt.contains("the server's log of incident ") && prompt.contains("the reviewer crashed"), "{prompt}");
    // With --json, stdout is the result alone; the lines go to stderr.
    let json = against_fixture(&["call", "broken", "--json"], &[]);
    let stderr = json.failure(1);
    let result: Value = serde_json::from_str(&json.stdout()).expect("stdout is one JSON document");
    assert_eq!(result["isError"], true);
    assert!(stderr.contains("the fixture's database is on fire"), "{stderr}");

    // A server of its own: its log is out of reach, a hint says where.
    let (_server, url) = http_fixture();
    for run in
        [cargo_mcp(&["call", "broken", "--url", &url]), cargo_mcp(&["read", "fixture://items/13", "--url", &url])]
    {
        let remote = run.failure(1);
        assert!(remote.contains("internal error (incident "), "{remote}");
        assert!(remote.contains("hint:") && remote.contains("-v"), "{remote}");
        assert!(remote.contains("Server::show_internal_errors(true)"), "{remote}");
        assert!(!remote.contains("on fire") && !remote.contains("cursed"), "{remote}");
    }
}

#[test]
fn a_mistyped_http_flag_is_refused_and_the_servers_own_flags_are_its_own() {
    let direct = Command::new(fixture()).args(["--htpp", "127.0.0.1:0"]).stdin(Stdio::null()).output().unwrap();
    let said = String::from_utf8_lossy(&direct.stderr);
    assert!(!direct.status.success(), "{said}");
    assert!(said.contains("`--htpp`") && said.contains("did you mean `--http`?"), "{said}");
    // `cargo mcp run` passes the arguments after `--` on; the server refuses.
    let passed = cargo_mcp(&["run", "--example", "fixture-server", "--", "--htpp", "127.0.0.1:0"]).failure(1);
    assert!(passed.contains("did you mean `--http`?"), "{passed}");
    // `cargo mcp run`'s own flag is clap's to check.
    let own = cargo_mcp(&["run", "--example", "fixture-server", "--htpp", "127.0.0.1:0"]).failure(2);
    assert!(own.contains("--http"), "{own}");
    // A flag the server takes itself (and hands `run` the rest) passes; one
    // it does not know is refused with the usage.
    let sum = against_fixture(&["call", "add", "a=1", "b=2"], &["--clean"]).success();
    assert_eq!(sum.trim(), "3");
    let unknown = Command::new(fixture()).args(["--http-port", "9"]).stdin(Stdio::null()).output().unwrap();
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(!unknown.status.success() && said.contains("unknown flag `--http-port`"), "{said}");
    assert!(said.contains("Usage: "), "{said}");
}

#[test]
fn a_lone_http_server_starts_without_warnings() {
    use std::io::{BufRead, BufReader};
    let port = free_port();
    let mut child = Command::new(fixture())
        .args(["--http", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting the fixture");
    let stderr = child.stderr.take().expect("the fixture's stderr");
    let _running = Running(child);
    // Everything up to the line that says it serves: the start-up.
    let mut said = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("the fixture's stderr");
        let serving = line.contains("serving MCP over Streamable HTTP");
        said.push(line);
        if serving {
            break;
        }
    }
    let said = said.join("\n");
    assert!(said.contains("serving MCP over Streamable HTTP"), "{said}");
    assert!(!said.contains("WARN") && !said.contains("request_state_keys"), "{said}");
}

#[test]
fn serve_mounts_every_server_of_a_configuration_under_its_name() {
    let dir = std::env::temp_dir().join(format!("cargo-mcp-test-{}-serve", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("gateway.json");
    let fixture = fixture();
    let servers = json!({ "mcpServers": { "fx": { "command": fixture, "args": ["--clean"] } } });
    std::fs::write(&config, servers.to_string()).unwrap();
    let config = config.to_str().unwrap();
    let gateway = env!("CARGO_BIN_EXE_cargo-mcp");
    let doc = cargo_mcp(&["inspect", "--json", "--", gateway, "serve", "--config", config]).json();
    let names: Vec<&str> = doc["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(!names.is_empty() && names.iter().all(|n| n.starts_with("fx_")), "{names:?}");
    let sum = cargo_mcp(&["call", "fx_add", "a=2", "b=3", "--", gateway, "serve", "--config", config]);
    assert!(sum.success().contains('5'), "{}", sum.stdout());

    std::fs::write(dir.join("bad.json"), r#"{"mcpServers": {"fx": {}}}"#).unwrap();
    let bad = cargo_mcp(&["serve", "--config", dir.join("bad.json").to_str().unwrap()]).failure(2);
    assert!(bad.contains("server `fx`: give a `command` (with `args`) or a `url`"), "{bad}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An HTTP server that answers `server/discover`, and each `tools/list`
/// after `delay` with one tool and a cursor never given before: a list
/// without end.
fn endless_list_server(delay: Duration) -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let pages = Arc::new(AtomicU64::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let pages = pages.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
                let mut writer = stream;
                loop {
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        if let Some((name, value)) = line.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let result = match message["method"].as_str() {
                        Some("server/discover") => {
                            json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}})
                        }
                        Some("tools/list") => {
                            std::thread::sleep(delay);
                            let page = pages.fetch_add(1, Ordering::Relaxed);
                            let tool = json!({"name": format!("t{page}"), "inputSchema": {"type": "object"}});
                            json!({"tools": [tool], "nextCursor": format!("c{page}")})
                        }
                        _ => json!({}),
                    };
                    let reply = match message.get("id") {
                        None => "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_owned(),
                        Some(id) => {
                            let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                                body.len()
                            )
                        }
                    };
                    if writer.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

/// `cargo-mcp <args>`, which must end within `limit`.
fn cargo_mcp_within(args: &[&str], limit: Duration) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-mcp"))
        .args(args)
        .env_remove("MCP_TRANSPORT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running cargo-mcp");
    let deadline = Instant::now() + limit;
    while child.try_wait().expect("waiting for cargo-mcp").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`cargo mcp {}` did not end within {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Run(child.wait_with_output().expect("cargo-mcp's output"))
}

#[test]
fn inspect_stops_reading_a_list_without_end() {
    let url = endless_list_server(Duration::ZERO);
    let args = ["inspect", "--url", &url, "--era", "modern"];
    let said = cargo_mcp_within(&args, Duration::from_secs(60)).failure(1);
    assert!(said.contains("`tools/list` has more than 1000 pages"), "{said}");
    // Slow pages: the whole list has `--timeout`.
    let url = endless_list_server(Duration::from_millis(300));
    let args = ["inspect", "--url", &url, "--era", "modern", "--timeout", "2"];
    let said = cargo_mcp_within(&args, Duration::from_secs(60)).failure(1);
    assert!(said.contains("`tools/list` took longer than 2s") && said.contains("--timeout"), "{said}");
}
