//! Prompts and completions end to end, as a client sees them: the list,
//! arguments read from their strings (and refused with the argument
//! named), every kind of message, completions from types and functions,
//! the eras, run-time changes and the start-up checks.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{Content, ProtocolVersion, Role};
use mcp_runtime::{Error, completion::Completing, prompts::GetPromptResult, testing::TestClient};
use serde_json::{Value, json};

/// A language to review in.
#[derive(serde::Deserialize, schemars::JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Language {
    Rust,
    Python,
    Ruby,
}

/// Review a piece of code for bugs and style.
#[prompt(title = "Code review")]
fn code_review(
    /// The code to review
    code: String,
    /// The language it is written in
    language: Option<Language>,
    /// How many issues to list at most
    limit: Option<u8>,
    /// Whether to be terse
    terse: Option<bool>,
) -> Vec<PromptMessage> {
    let language = match language {
        Some(Language::Rust) => "Rust",
        Some(Language::Python) => "Python",
        Some(Language::Ruby) => "Ruby",
        None => "code",
    };
    vec![
        PromptMessage::user(format!(
            "Review this {language} (at most {} issues, terse: {terse:?}):\n{code}",
            limit.unwrap_or(5)
        )),
        PromptMessage::assistant("I will look for bugs first, then style."),
    ]
}

/// Cities starting with what was typed, preferring the chosen country's.
async fn cities(mut completing: Completing) -> Vec<String> {
    let calls = completing.extract::<State<AtomicU64>>().map(|s| s.fetch_add(1, Ordering::SeqCst)).unwrap_or(99);
    let typed = completing.value().to_lowercase();
    assert!(typed != "boom", "exploded at /srv/secret");
    let all: &[&str] = match completing.argument("country") {
        Some("france") => &["Paris", "Pau", "Perpignan"],
        _ => &["Paris", "Prague", "Porto", "Lima"],
    };
    let mut found: Vec<String> =
        all.iter().filter(|c| c.to_lowercase().starts_with(&typed)).map(|c| c.to_string()).collect();
    found.push(format!("(call {calls})"));
    found
}

/// Plan a trip.
#[prompt]
fn trip(
    /// Where to
    #[arg(complete = cities)]
    city: String,
    /// In which country
    country: Option<String>,
) -> GetPromptResult {
    GetPromptResult {
        description: Some(format!("a trip to {city}")),
        messages: vec![PromptMessage::user(format!("Plan three days in {city} ({})", country.unwrap_or_default()))],
        meta: None,
    }
}

/// Every kind of content.
#[prompt]
fn media() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Image::new(vec![1, 2, 3], "image/png")),
        PromptMessage::user(Audio::new(vec![4, 5], "audio/wav")),
        PromptMessage::user(Embedded::text("notes://a", "embedded")),
        PromptMessage::user(ResourceLink::new("notes://b", "b")),
    ]
}

/// Fails in the ways a prompt can.
#[prompt]
async fn fragile(
    /// `shown`, `internal` or `panic`
    how: String,
) -> Result<String, PromptError> {
    match how.as_str() {
        "shown" => Err(PromptError::new("pick another topic")),
        "internal" => Err(std::io::Error::other("token=abc123").into()),
        "panic" => panic!("exploded at /srv/secret"),
        _ => Ok(how),
    }
}

/// The request's id, from the context.
#[prompt]
fn whoami(ctx: Context) -> String {
    format!("request {}", ctx.request_id())
}

/// A prompt that takes as long as it is asked to.
#[prompt(timeout = "100ms")]
async fn slow(millis: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
    format!("after {millis} ms")
}

fn server() -> Server {
    Server::empty("prompts", "1")
        .prompt(code_review::Prompt)
        .prompt(trip::Prompt)
        .prompt(media::Prompt)
        .prompt(fragile::Prompt)
        .prompt(whoami::Prompt)
        .with_state(AtomicU64::new(0))
}

fn text(content: &Content) -> &str {
    content.as_text().unwrap_or_else(|| panic!("not text: {content:?}"))
}

#[tokio::test]
async fn prompts_are_listed_with_their_arguments() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let prompts = client.list_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["code_review", "fragile", "media", "trip", "whoami"]);
    let review = serde_json::to_value(&prompts[0]).unwrap();
    assert_eq!(
        review,
        json!({
            "name": "code_review",
            "title": "Code review",
            "description": "Review a piece of code for bugs and style.",
            "arguments": [
                {"name": "code", "description": "The code to review", "required": true},
                {"name": "language", "description": "The language it is written in", "required": false},
                {"name": "limit", "description": "How many issues to list at most", "required": false},
                {"name": "terse", "description": "Whether to be terse", "required": false}
            ]
        })
    );
    assert_eq!(
        serde_json::to_value(&prompts[4]).unwrap()["arguments"],
        json!(null),
        "an injected value is no argument"
    );
    let mut old = TestClient::connect_as(server(), ProtocolVersion::V2024_11_05).await.unwrap();
    assert!(old.list_prompts().await.unwrap().iter().all(|p| p.title.is_none()));
}

#[tokio::test]
async fn arguments_arrive_as_strings_and_are_read_into_their_types() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let review = client
        .get_prompt("code_review", &[("code", "fn main() {}"), ("language", "rust"), ("limit", "3"), ("terse", "true")])
        .await
        .unwrap();
    assert_eq!(review.messages.len(), 2);
    assert_eq!(review.messages[0].role, Role::User);
    assert_eq!(
        text(&review.messages[0].content),
        "Review this Rust (at most 3 issues, terse: Some(true)):\nfn main() {}"
    );
    assert_eq!(
        (review.messages[1].role, text(&review.messages[1].content)),
        (Role::Assistant, "I will look for bugs first, then style.")
    );
    let plain = client.get_prompt("code_review", &[("code", "x")]).await.unwrap();
    assert_eq!(text(&plain.messages[0].content), "Review this code (at most 5 issues, terse: None):\nx");

    let trip = client.get_prompt("trip", &[("city", "Lima"), ("country", "peru")]).await.unwrap();
    assert_eq!(trip.description.as_deref(), Some("a trip to Lima"));
    assert!(text(&client.get_prompt("whoami", &[]).await.unwrap().messages[0].content).starts_with("request "));
}

#[tokio::test]
async fn bad_arguments_are_invalid_params_naming_each() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let error = client.get_prompt("code_review", &[("language", "cobol"), ("limit", "many")]).await.unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("argument `code`: required but not sent"), "{}", error.message);
    assert!(error.message.contains("argument `language`: unknown variant `cobol`"), "{}", error.message);
    assert!(error.message.contains("argument `limit`: expected u8, got \"many\""), "{}", error.message);
    let unknown = client.get_prompt("code_review", &[("code", "x"), ("colour", "red")]).await.unwrap_err();
    assert_eq!(
        (unknown.code, unknown.message.as_str()),
        (-32602, "invalid params: prompt `code_review` has no argument `colour`")
    );
    assert_eq!(client.get_prompt("nothing", &[]).await.unwrap_err().code, -32602);
    let typo = client.get_prompt("code_reveiw", &[]).await.unwrap_err();
    assert_eq!(typo.message, "invalid params: unknown prompt: code_reveiw (did you mean `code_review`?)");
    // A value that is not a string is refused too.
    let raw =
        client.raw().request("prompts/get", json!({"name": "code_review", "arguments": {"code": 42}})).await.unwrap();
    assert_eq!(raw["error"]["code"], -32602, "{raw}");
}

#[tokio::test]
async fn failures_show_public_text_and_mask_internals() {
    let mut client = TestClient::connect(server().show_internal_errors(false)).await.unwrap();
    let shown = client.get_prompt("fragile", &[("how", "shown")]).await.unwrap_err();
    assert_eq!((shown.code, shown.message.as_str()), (-32602, "pick another topic"));
    for how in ["internal", "panic"] {
        let masked = client.get_prompt("fragile", &[("how", how)]).await.unwrap_err();
        assert!(masked.message.starts_with("internal error (incident "), "{how}: {}", masked.message);
        assert!(!masked.message.contains("abc123") && !masked.message.contains("/srv"), "{}", masked.message);
    }
    assert_eq!(text(&client.get_prompt("fragile", &[("how", "fine")]).await.unwrap().messages[0].content), "fine");
}

#[tokio::test]
async fn a_prompt_past_its_timeout_is_stopped_with_an_error_saying_so() {
    let mut client = TestClient::connect(Server::empty("slow", "1").prompt(slow::Prompt)).await.unwrap();
    let fast = client.get_prompt("slow", &[("millis", "1")]).await.unwrap();
    assert_eq!(text(&fast.messages[0].content), "after 1 ms");
    let stopped = client.get_prompt("slow", &[("millis", "5000")]).await.unwrap_err();
    assert_eq!(stopped.code, -32603);
    assert!(stopped.message.contains("timed out after 0.1 seconds"), "{}", stopped.message);
}

#[tokio::test]
async fn messages_carry_every_content_kind_projected_per_version() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let media = client.get_prompt("media", &[]).await.unwrap();
    let kinds: Vec<Value> =
        media.messages.iter().map(|m| serde_json::to_value(&m.content).unwrap()["type"].clone()).collect();
    assert_eq!(kinds, [json!("image"), json!("audio"), json!("resource"), json!("resource_link")]);
    let mut old = TestClient::connect_as(server(), ProtocolVersion::V2024_11_05).await.unwrap();
    let media = old.get_prompt("media", &[]).await.unwrap();
    let kinds: Vec<Value> =
        media.messages.iter().map(|m| serde_json::to_value(&m.content).unwrap()["type"].clone()).collect();
    assert_eq!(kinds, [json!("image"), json!("text"), json!("resource")], "no audio or links before they existed");
}

#[tokio::test]
async fn completions_come_from_types_and_functions() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let languages = client.complete("code_review", "language", "R").await.unwrap();
    assert_eq!(
        (languages.values, languages.total, languages.has_more),
        (vec!["rust".to_owned(), "ruby".to_owned()], Some(2), Some(false))
    );
    let flags = client.complete("code_review", "terse", "").await.unwrap();
    assert_eq!(flags.values, ["false", "true"]);
    assert!(
        client.complete("code_review", "code", "fn").await.unwrap().values.is_empty(),
        "free text has no completions"
    );
    let cities = client.complete("trip", "city", "p").await.unwrap();
    assert_eq!(cities.values, ["Paris", "Prague", "Porto", "(call 0)"]);
    // The other arguments come in the request's context.
    let params = json!({"ref": {"type": "ref/prompt", "name": "trip"}, "argument": {"name": "city", "value": "p"},
        "context": {"arguments": {"country": "france"}}});
    let french = client.raw().request("completion/complete", params).await.unwrap();
    assert_eq!(french["result"]["completion"]["values"], json!(["Paris", "Pau", "Perpignan", "(call 1)"]));
    let unknown = client.complete("trip", "planet", "").await.unwrap_err();
    assert_eq!(unknown.code, -32602);
}

#[tokio::test]
async fn completion_functions_fail_like_every_handler_and_near_names_are_suggested() {
    let mut client = TestClient::connect(server().show_internal_errors(false)).await.unwrap();
    let failed = client.complete("trip", "city", "boom").await.unwrap_err();
    assert_eq!(failed.code, -32603);
    assert!(failed.message.starts_with("internal error (incident "), "{}", failed.message);
    assert!(!failed.message.contains("secret"), "{}", failed.message);
    // The connection goes on.
    assert_eq!(client.complete("trip", "city", "l").await.unwrap().values[0], "Lima");
    let typo = client.complete("tirp", "city", "").await.unwrap_err();
    assert_eq!(typo.message, "invalid params: unknown prompt: tirp (did you mean `trip`?)");
}

#[tokio::test]
async fn the_completions_capability_is_declared_only_when_something_completes() {
    let mut client = Server::empty("p", "1").prompt(whoami::Prompt).connect_in_memory().unwrap();
    let init = client.initialize().await.unwrap();
    assert_eq!(init["capabilities"], json!({"prompts": {"listChanged": true}, "logging": {}}));
    let complete = json!({"ref": {"type": "ref/prompt", "name": "whoami"}, "argument": {"name": "x", "value": ""}});
    assert_eq!(client.request("completion/complete", complete).await.unwrap()["error"]["code"], -32601);
    let mut client = server().connect_in_memory().unwrap();
    assert_eq!(client.initialize().await.unwrap()["capabilities"]["completions"], json!({}));
}

#[tokio::test]
async fn the_modern_era_renders_with_its_envelope() {
    let mut client = server().connect_in_memory().unwrap();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let listed = client.request("prompts/list", json!({"_meta": meta})).await.unwrap();
    assert_eq!(
        (listed["result"]["cacheScope"].clone(), listed["result"]["resultType"].clone()),
        (json!("public"), json!("complete"))
    );
    let got = client.request("prompts/get", json!({"name": "whoami", "_meta": meta})).await.unwrap();
    assert_eq!(got["result"]["resultType"], "complete");
    assert_eq!(got["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "prompts");
}

#[tokio::test]
async fn run_time_changes_are_announced() {
    let server = Server::empty("p", "1").prompt(whoami::Prompt);
    let prompts = server.prompts_handle();
    let mut client = server.connect_in_memory().unwrap();
    client.initialize().await.unwrap();
    prompts.add(media::Prompt).unwrap();
    assert!(prompts.disable("whoami"));
    client.request("ping", json!({})).await.unwrap();
    let changes = client.take_notifications();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(changes.iter().all(|n| n["method"] == "notifications/prompts/list_changed"));
    assert_eq!(prompts.names(), ["media", "whoami"]);
}

/// A prompt whose argument is a list, which cannot come from one string.
#[prompt]
fn listy(items: Vec<String>) -> String {
    items.join(", ")
}

#[test]
fn prompts_that_cannot_be_served_stop_the_server_from_starting() {
    let err = Server::empty("p", "1").prompt(listy::Prompt).prompt_definitions().unwrap_err();
    assert!(matches!(err, Error::InvalidPrompt { .. }), "{err}");
    assert!(err.to_string().contains("the argument `items` is read as"), "{err}");
    let err = Server::empty("p", "1").prompt(whoami::Prompt).prompt(whoami::Prompt).prompt_definitions().unwrap_err();
    assert!(err.to_string().contains("has the same name"), "{err}");
    assert_eq!(server().prompt_definitions().unwrap().len(), 5);
}
