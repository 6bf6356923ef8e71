//! `cargo mcp serve --openapi`: what `--list` says each operation became,
//! and `cargo mcp inspect` on the server it makes (the petstore of the
//! workspace's `openapi` example).

use std::process::{Command, Output};

use serde_json::Value;

fn petstore() -> String {
    format!("{}/../examples/openapi/petstore.yaml", env!("CARGO_MANIFEST_DIR"))
}

fn cargo_mcp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp")).args(args).env_remove("MCP_TRANSPORT").output().unwrap()
}

fn text(output: &Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn list_says_what_each_operation_became_and_why() {
    let spec = petstore();
    let listed = text(&cargo_mcp(&[
        "serve",
        "--openapi",
        &spec,
        "--route",
        "exclude:DELETE",
        "--route",
        "resource:GET:^/pets$",
        "--list",
    ]));
    let line = |start: &str| listed.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{listed}"));
    let list = line("GET     /pets ");
    assert!(list.contains("template api://pets{?limit,tag}") && list.contains("route map rule 1"), "{listed}");
    let delete = line("DELETE  /pets/{petId}");
    assert!(delete.contains("excluded") && delete.contains("route map rule 0"), "{listed}");
    assert!(line("POST    /pets ").contains("tool createPet"), "{listed}");

    let bad = cargo_mcp(&["serve", "--openapi", &spec, "--route", "rsource:GET", "--list"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("`rsource` is no kind of rule"));
}

#[test]
fn inspect_serves_the_document_and_every_client_is_clear() {
    let spec = petstore();
    let me = env!("CARGO_BIN_EXE_cargo-mcp");
    let args = ["inspect", "--json", "--deny", "all", "--", me, "serve", "--openapi", &spec];
    let doc: Value = serde_json::from_str(&text(&cargo_mcp(&args))).unwrap();
    assert_eq!(doc["server"]["name"], "Petstore");
    let mut names: Vec<&str> = doc["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["createPet", "deletePet", "listPets", "showPetById"]);
    assert!(doc["clients"].as_array().unwrap().iter().all(|c| c["errors"] == 0), "{}", doc["clients"]);
}
