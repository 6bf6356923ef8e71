//! End to end: `cargo mcp new` makes a crate, `cargo mcp publish` (a dry
//! run) writes its `server.json` and refuses what the registry would
//! refuse, and `cargo mcp install --dry-run` turns a `server.json` (a
//! file, or the registry's answer) into each client's entry. Building and
//! running the generated crates is `.ci/templates`' job (it shares the
//! workspace's build); these need no build beyond `cargo-mcp`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

mod common;
use common::TempDir;

const SCHEMA: &str = include_str!("../schemas/server.schema.2025-12-11.json");

fn cargo_mcp(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp")).args(args).current_dir(dir).output().expect("running cargo-mcp")
}

#[track_caller]
fn ok(output: &Output) -> String {
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "stdout:\n{out}\nstderr:\n{err}");
    out.into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace's root")
}

fn valid(document: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    let validator = jsonschema::draft7::new(&schema).unwrap();
    validator.iter_errors(document).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

#[test]
fn a_new_crate_publishes_a_valid_server_json_and_a_hidden_mcp_name_is_refused() {
    let dir = TempDir::new("new");
    let runtime = workspace().to_str().unwrap();
    for template in ["stdio", "http", "oauth", "gateway", "openapi"] {
        let name = format!("w-{template}");
        let mcp_name = format!("io.github.Example/{name}");
        ok(&cargo_mcp(
            &dir.0,
            &["new", &name, "--template", template, "--runtime-path", runtime, "--mcp-name", &mcp_name],
        ));
        let krate = dir.0.join(&name);
        for file in ["Cargo.toml", "src/lib.rs", "src/main.rs", "tests/tools.rs", "README.md"] {
            assert!(krate.join(file).is_file(), "{template}: no {file}");
        }
        let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!("path = \"{}", workspace().join("mcp-runtime").display())), "{manifest}");
        let tests = std::fs::read_to_string(krate.join("tests/tools.rs")).unwrap();
        assert!(tests.contains("TestClient::connect") && tests.contains("check_clients("), "{tests}");

        let printed: Value = serde_json::from_str(&ok(&cargo_mcp(&krate, &["publish"]))).unwrap();
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(krate.join("server.json")).unwrap()).unwrap();
        assert_eq!(printed, written);
        assert_eq!(valid(&written), Vec::<String>::new(), "{template}: {written:#}");
        assert_eq!(written["name"], mcp_name.as_str());
        assert_eq!(written["version"], "0.1.0");
        let package = &written["packages"][0];
        assert_eq!(package["registryType"], "cargo");
        assert_eq!(package["identifier"], name.as_str());
        assert_eq!(package["version"], "0.1.0");
        let transport = if matches!(template, "http" | "oauth") { "streamable-http" } else { "stdio" };
        assert_eq!(package["transport"]["type"], transport, "{template}");
    }

    // The registry reads the rendered README, which has no comments.
    let krate = dir.0.join("w-stdio");
    let readme = std::fs::read_to_string(krate.join("README.md")).unwrap();
    let hidden = readme.replace("mcp-name: io.github.Example/w-stdio", "<!-- mcp-name: io.github.Example/w-stdio -->");
    std::fs::write(krate.join("README.md"), hidden).unwrap();
    std::fs::remove_file(krate.join("server.json")).unwrap();
    let refused = cargo_mcp(&krate, &["publish"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("inside an HTML comment"), "{}", stderr(&refused));
    assert!(!krate.join("server.json").exists(), "a refused server.json was written");

    // The registry compares names with case.
    std::fs::write(krate.join("README.md"), readme.replace("io.github.Example/", "io.github.example/")).unwrap();
    let refused = cargo_mcp(&krate, &["publish"]);
    assert!(stderr(&refused).contains("names `io.github.example/w-stdio`"), "{}", stderr(&refused));

    // The version clients see is the one the registry lists.
    std::fs::write(krate.join("README.md"), &readme).unwrap();
    let lib = std::fs::read_to_string(krate.join("src/lib.rs")).unwrap();
    std::fs::write(krate.join("src/lib.rs"), lib.replace("env!(\"CARGO_PKG_VERSION\")", "\"9.9.9\"")).unwrap();
    let refused = cargo_mcp(&krate, &["publish"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("serves version 9.9.9, the crate is 0.1.0"), "{}", stderr(&refused));

    // A description past the schema's limit is one problem, the schema's.
    std::fs::write(krate.join("src/lib.rs"), &lib).unwrap();
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    let long = format!("description = \"{}\"", "x".repeat(101));
    let described = manifest.lines().map(|l| if l.starts_with("description =") { &long } else { l });
    std::fs::write(krate.join("Cargo.toml"), described.collect::<Vec<_>>().join("\n")).unwrap();
    let refused = cargo_mcp(&krate, &["publish"]);
    let said = stderr(&refused);
    assert!(said.contains("(1 problem)") && said.contains("schema: /description"), "{said}");
}

fn server_json() -> Value {
    json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": "io.github.example/weather",
        "description": "Forecasts",
        "version": "0.3.0",
        "packages": [{
            "registryType": "cargo", "identifier": "weather-mcp", "version": "0.3.0", "transport": {"type": "stdio"},
            "environmentVariables": [{"name": "UNITS", "default": "metric"}, {"name": "API_KEY", "isRequired": true}],
            "packageArguments": [{"type": "named", "name": "--city", "valueHint": "city"}, {"type": "named", "name": "--verbose"}],
        }],
    })
}

#[test]
fn install_from_a_server_json_writes_goose_and_mcp_json_entries_in_a_dry_run() {
    let dir = TempDir::new("install");
    let file = dir.0.join("server.json");
    std::fs::write(&file, server_json().to_string()).unwrap();
    let goose = dir.0.join("config.yaml");
    std::fs::write(&goose, "GOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true\n").unwrap();
    let args = ["install", "goose", "--server-json", file.to_str().unwrap(), "--config", goose.to_str().unwrap()];
    let dry = cargo_mcp(&dir.0, &[&args[..], &["--dry-run"]].concat());
    let shown = ok(&dry);
    let said = stderr(&dry);
    assert!(said.contains("would install with `cargo install --locked weather-mcp --version 0.3.0`"), "{said}");
    assert!(said.contains("set API_KEY in the entry's environment"), "{said}");
    assert!(shown.contains("GOOSE_PROVIDER: openai"), "{shown}");
    assert!(
        shown.contains("  weather:\n") && shown.contains("type: stdio") && shown.contains("UNITS: metric"),
        "{shown}"
    );
    assert!(shown.contains("cmd: ") && shown.contains("weather-mcp"), "{shown}");
    assert_eq!(std::fs::read_to_string(&goose).unwrap().lines().count(), 4, "the dry run changed the file");

    let mcp_json = dir.0.join("mcp.json");
    let args = ["install", "mcp-json", "--server-json", file.to_str().unwrap(), "--config", mcp_json.to_str().unwrap()];
    let dry = cargo_mcp(&dir.0, &[&args[..], &["--dry-run"]].concat());
    let shown: Value = serde_json::from_str(&ok(&dry)).unwrap();
    let entry = &shown["mcpServers"]["weather"];
    assert_eq!(entry["type"], "stdio");
    assert_eq!(entry["env"], json!({"UNITS": "metric"}));
    // A named argument with a value hint takes a value, to fill in; one without is a flag.
    assert_eq!(entry["args"], json!(["--city", "<city>", "--verbose"]));
    assert!(stderr(&dry).contains("replace <city> in the arguments"), "{}", stderr(&dry));
    assert!(entry["command"].as_str().unwrap().contains("weather-mcp"), "{entry}");
    assert!(!mcp_json.exists());
}

/// A stand-in for the registry: answers one request with `body` and
/// hands back its request line.
fn registry_answering(body: Value) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let served = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap() > 2 {
            line.clear();
        }
        let body = body.to_string();
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        first
    });
    (url, served)
}

#[test]
fn install_from_the_registry_asks_it_for_the_latest_version() {
    let dir = TempDir::new("registry");
    let answer =
        json!({"server": server_json(), "_meta": {"io.modelcontextprotocol.registry/official": {"isLatest": true}}});
    let (registry, served) = registry_answering(answer);
    let config = dir.0.join("settings.json");
    let args = ["install", "gemini-cli", "--from-registry", "io.github.example/weather", "--registry", &registry];
    let shown = cargo_mcp(&dir.0, &[&args[..], &["--config", config.to_str().unwrap(), "--dry-run"]].concat());
    let shown: Value = serde_json::from_str(&ok(&shown)).unwrap();
    assert_eq!(served.join().unwrap().trim(), "GET /v0/servers/io.github.example%2Fweather/versions/latest HTTP/1.1");
    let entry = &shown["mcpServers"]["weather"];
    assert!(entry["command"].as_str().unwrap().ends_with(&format!("weather-mcp{}", std::env::consts::EXE_SUFFIX)));
    assert!(!config.exists());
}

/// A stand-in for the registry's publish endpoint: answers one request
/// with 200 and hands back the whole request (line, headers, body).
fn publish_endpoint() -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let served = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap();
            }
            head.push_str(&line);
            if line.trim().is_empty() {
                break;
            }
        }
        let mut body = vec![0; length];
        std::io::Read::read_exact(&mut reader, &mut body).unwrap();
        let mut stream = stream;
        write!(stream, "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{{}}").unwrap();
        format!("{head}{}", String::from_utf8_lossy(&body))
    });
    (url, served)
}

#[test]
fn upload_sends_only_with_a_token_from_the_environment() {
    let dir = TempDir::new("upload");
    let runtime = workspace().to_str().unwrap();
    ok(&cargo_mcp(&dir.0, &["new", "w", "--runtime-path", runtime, "--mcp-name", "io.github.example/w"]));
    let krate = dir.0.join("w");
    let upload = |token: Option<&str>, registry: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-mcp"));
        command.args(["publish", "--upload", "--registry", registry]).current_dir(&krate);
        match token {
            Some(token) => command.env("MCP_REGISTRY_TOKEN", token),
            None => command.env_remove("MCP_REGISTRY_TOKEN"),
        };
        command.output().unwrap()
    };
    // Without a token nothing is sent (the port is closed: a request would fail otherwise).
    let refused = upload(None, "http://127.0.0.1:9");
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("--upload needs a registry token in MCP_REGISTRY_TOKEN"), "{}", stderr(&refused));

    let (registry, served) = publish_endpoint();
    ok(&upload(Some("registry-jwt"), &registry));
    let request = served.join().unwrap();
    assert!(request.starts_with("POST /v0/publish HTTP/1.1"), "{request}");
    assert!(request.to_ascii_lowercase().contains("authorization: bearer registry-jwt"), "{request}");
    let body: Value = serde_json::from_str(request.rsplit("\r\n\r\n").next().unwrap()).unwrap();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(krate.join("server.json")).unwrap()).unwrap();
    assert_eq!(body, written);
    assert_eq!(body["name"], "io.github.example/w");
}
