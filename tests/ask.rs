//! Asking the client (elicitation, sampling, roots) as one `.await`, driven
//! through the protocol in both eras: requests to the client in the
//! handshake versions, multi-round results in 2026-07-28.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, ProtocolVersion, Role, Root,
    SamplingContent,
};
use mcp_runtime::prelude::*;
use mcp_runtime::{testing::TestClient, transport::InMemoryClient};
use serde_json::{Value, json};

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// When to book.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct When {
    /// The day, as YYYY-MM-DD
    day: String,
    /// How many people
    #[schemars(range(min = 1, max = 12))]
    people: u8,
}

/// Book a table, asking when.
#[tool]
async fn book(restaurant: String, ctx: Context) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<When>("When should I book?").await? {
        Elicited::Accept(when) => format!("{restaurant}: {} people on {}", when.people, when.day),
        Elicited::Decline => "declined".into(),
        Elicited::Cancel => "cancelled".into(),
    })
}

fn accept(content: Value) -> ElicitResult {
    ElicitResult { action: ElicitAction::Accept, content: content.as_object().cloned() }
}

fn text(result: &mcp_runtime::CallToolResult) -> &str {
    result.content[0].as_text().unwrap_or_else(|| panic!("no text in {result:?}"))
}

#[tokio::test]
async fn an_elicitation_is_one_await_in_both_eras_with_the_form_from_the_type() {
    for version in ERAS {
        let asked = Arc::new(std::sync::Mutex::new(Vec::<ElicitParams>::new()));
        let seen = asked.clone();
        let mut client = TestClient::builder(Server::empty("t", "1").tool(book::Tool))
            .version(version)
            .on_elicit(move |params| {
                seen.lock().unwrap().push(params);
                accept(json!({"day": "2026-12-24", "people": 4}))
            })
            .connect()
            .await
            .unwrap();
        let result = client.call_tool("book", json!({"restaurant": "Chez Rust"})).await.unwrap();
        assert_eq!(text(&result), "Chez Rust: 4 people on 2026-12-24", "{version}");
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{version}: asked once");
        assert_eq!(asked[0].message, "When should I book?");
        assert_eq!(
            Value::Object(asked[0].requested_schema.clone().unwrap()),
            json!({"type": "object", "properties": {
                "day": {"type": "string", "description": "The day, as YYYY-MM-DD"},
                "people": {"type": "integer", "description": "How many people", "minimum": 1, "maximum": 12}
            }, "required": ["day", "people"]}),
            "{version}"
        );
    }
}

#[tokio::test]
async fn decline_and_cancel_reach_the_tool() {
    for version in ERAS {
        for (action, said) in [(ElicitAction::Decline, "declined"), (ElicitAction::Cancel, "cancelled")] {
            let mut client = TestClient::builder(Server::empty("t", "1").tool(book::Tool))
                .version(version)
                .on_elicit(move |_| ElicitResult { action, content: None })
                .connect()
                .await
                .unwrap();
            let result = client.call_tool("book", json!({"restaurant": "x"})).await.unwrap();
            assert_eq!(text(&result), said, "{version}");
        }
    }
}

#[tokio::test]
async fn an_answer_outside_the_form_is_refused_or_asked_again() {
    for version in ERAS {
        let answers = Arc::new(AtomicUsize::new(0));
        let counted = answers.clone();
        let mut client = TestClient::builder(Server::empty("t", "1").tool(book::Tool))
            .version(version)
            .on_elicit(move |_| match counted.fetch_add(1, Ordering::SeqCst) {
                // 40 people is over the form's maximum.
                0 => accept(json!({"day": "2026-12-24", "people": 40})),
                _ => accept(json!({"day": "2026-12-24", "people": 2})),
            })
            .connect()
            .await
            .unwrap();
        let result = client.call_tool("book", json!({"restaurant": "x"})).await.unwrap();
        if version.uses_handshake() {
            // A request to the client has one answer: a wrong one fails the
            // question, and the model is told why.
            assert_eq!(result.is_error, Some(true));
            assert!(text(&result).contains("/people"), "{}", text(&result));
            assert_eq!(answers.load(Ordering::SeqCst), 1);
        } else {
            // A multi-round request asks again.
            assert_eq!(text(&result), "x: 2 people on 2026-12-24");
            assert_eq!(answers.load(Ordering::SeqCst), 2);
        }
    }
}

#[tokio::test]
async fn a_client_without_the_capability_is_never_asked() {
    for version in ERAS {
        let mut client = TestClient::connect_as(Server::empty("t", "1").tool(book::Tool), version).await.unwrap();
        let outcome = client.call_tool("book", json!({"restaurant": "x"})).await;
        if version.uses_handshake() {
            let result = outcome.unwrap();
            assert_eq!(result.is_error, Some(true));
            assert_eq!(text(&result), "the client did not declare the `elicitation` capability");
        } else {
            let error = outcome.unwrap_err();
            assert_eq!(error.code, -32021, "{error:?}");
            assert_eq!(error.data, Some(json!({"requiredCapabilities": {"elicitation": {}}})));
        }
    }
}

/// Summarise `topic` with the host's model.
#[tool]
async fn summarise(topic: String, ctx: Context) -> Result<String, ToolError> {
    let request = Sampling::user(format!("One sentence about {topic}"))
        .system("Be brief.")
        .max_tokens(60)
        .temperature(0.3)
        .prefer_model("small");
    let answer = ctx.sample(request).await?;
    Ok(format!("{} ({})", answer.text(), answer.model))
}

#[tokio::test]
async fn sampling_sends_the_whole_request_and_types_the_answer() {
    for version in ERAS {
        let asked = Arc::new(std::sync::Mutex::new(None::<CreateMessageParams>));
        let seen = asked.clone();
        let mut client = TestClient::builder(Server::empty("t", "1").tool(summarise::Tool))
            .version(version)
            .on_sample(move |params| {
                *seen.lock().unwrap() = Some(params);
                CreateMessageResult {
                    role: Role::Assistant,
                    content: vec![SamplingContent::text("Rust is fast.")],
                    model: "small-1".into(),
                    stop_reason: Some("endTurn".into()),
                }
            })
            .connect()
            .await
            .unwrap();
        let result = client.call_tool("summarise", json!({"topic": "Rust"})).await.unwrap();
        assert_eq!(text(&result), "Rust is fast. (small-1)", "{version}");
        let params = asked.lock().unwrap().take().unwrap();
        assert_eq!(
            serde_json::to_value(params).unwrap(),
            json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "One sentence about Rust"}}],
                "modelPreferences": {"hints": [{"name": "small"}]},
                "systemPrompt": "Be brief.",
                "temperature": 0.3,
                "maxTokens": 60
            })
        );
    }
}

/// Name the client's roots.
#[tool]
async fn workspace(ctx: Context) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    Ok(roots.iter().map(|r| r.name.clone().unwrap_or_default()).collect::<Vec<_>>().join(","))
}

fn root(name: &str) -> Root {
    Root { uri: format!("file:///{name}"), name: Some(name.into()), meta: None }
}

#[tokio::test]
async fn roots_are_kept_per_session_until_the_client_says_they_changed() {
    let mut client = TestClient::builder(Server::empty("t", "1").tool(workspace::Tool))
        .roots(vec![root("a"), root("b")])
        .connect()
        .await
        .unwrap();
    assert_eq!(text(&client.call_tool("workspace", json!({})).await.unwrap()), "a,b");
    client.set_roots(vec![root("c")]).await.unwrap();
    assert_eq!(text(&client.call_tool("workspace", json!({})).await.unwrap()), "c");

    // The cache is what answers between changes: a raw client sees one
    // roots/list for two calls.
    let mut raw = roots_client(Server::empty("t", "1").tool(workspace::Tool)).await;
    for id in [100, 101] {
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "workspace", "arguments": {}}}))
            .await
            .unwrap();
        let mut asked = 0;
        let response = loop {
            let message = raw.recv().await.unwrap().unwrap();
            if message["method"] == "roots/list" {
                asked += 1;
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": [root("a")]}});
                raw.send(&reply).await.unwrap();
            } else if message["id"] == json!(id) {
                break message;
            }
        };
        assert_eq!(response["result"]["content"][0]["text"], "a");
        assert_eq!(asked, usize::from(id == 100), "asked only on the first call");
    }
}

async fn roots_client(server: Server) -> InMemoryClient {
    let mut client = server.connect_in_memory().unwrap();
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": true}},
        "clientInfo": {"name": "t", "version": "0"}});
    client.request("initialize", init).await.unwrap();
    client.notify("notifications/initialized", json!({})).await.unwrap();
    client
}

/// How often the reservation was made.
struct Reservations(AtomicUsize);

/// Reserve, then ask three things at once, then one more: work before the
/// questions is kept across rounds with `once`.
#[tool]
async fn reserve(ctx: Context, reservations: State<Reservations>) -> Result<String, ToolError> {
    let id = ctx.once("reservation", async { reservations.0.fetch_add(1, Ordering::SeqCst) + 100 }).await;
    let (when, greeting, roots) =
        tokio::join!(ctx.elicit::<When>("When?"), ctx.sample(Sampling::user("Greet")), ctx.roots().key("where"),);
    let when = when?.accepted().ok_or_else(|| ToolError::new("no date"))?;
    let confirm = ctx.elicit::<Confirm>("Confirm?").key("confirm").await?;
    Ok(format!(
        "#{id} {} {} {} {}",
        when.day,
        greeting?.text(),
        roots?.len(),
        confirm.accepted().is_some_and(|c| c.yes)
    ))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    yes: bool,
}

fn reserving_client(version: ProtocolVersion) -> mcp_runtime::testing::TestClientBuilder {
    let server = Server::empty("t", "1").tool(reserve::Tool).with_state(Reservations(AtomicUsize::new(0)));
    TestClient::builder(server)
        .version(version)
        .on_elicit(|params| match params.message.as_str() {
            "When?" => accept(json!({"day": "2027-01-01", "people": 2})),
            _ => accept(json!({"yes": true})),
        })
        .on_sample(|_| CreateMessageResult {
            role: Role::Assistant,
            content: vec![SamplingContent::text("hi")],
            model: "m".into(),
            stop_reason: None,
        })
        .roots(vec![root("a")])
}

#[tokio::test]
async fn several_questions_and_several_rounds_with_work_kept_across_them() {
    for version in ERAS {
        let mut client = reserving_client(version).connect().await.unwrap();
        let result = client.call_tool("reserve", json!({})).await.unwrap();
        assert_eq!(text(&result), "#100 2027-01-01 hi 1 true", "{version}");
    }
}

/// A 2026-07-28 `tools/call` of `reserve`, with `extra` params.
fn modern_call(id: i64, extra: Value) -> Value {
    let mut params = json!({"name": "reserve", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}}
    }});
    params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

async fn exchange(client: &mut InMemoryClient, request: Value) -> Value {
    let id = request["id"].clone();
    client.send(&request).await.unwrap();
    client.response_to(&id).await.unwrap()
}

#[tokio::test]
async fn the_first_round_lists_every_question_of_one_poll_and_seals_its_state() {
    let server = Server::empty("t", "1").tool(reserve::Tool).with_state(Reservations(AtomicUsize::new(0)));
    let mut client = server.connect_in_memory().unwrap();
    let first = exchange(&mut client, modern_call(1, json!({}))).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let requests = result["inputRequests"].as_object().unwrap();
    let keys: Vec<&str> = requests.keys().map(String::as_str).collect();
    assert_eq!(keys, ["elicitation-1", "sampling-2", "where"], "the join's three questions, in order");
    assert_eq!(requests["sampling-2"]["method"], "sampling/createMessage");
    assert_eq!(requests["sampling-2"]["params"]["maxTokens"], 1024);
    assert_eq!(requests["where"], json!({"method": "roots/list", "params": {}}));
    assert!(result.get("ttlMs").is_none(), "an input-required result is never cached");
    let state = result["requestState"].as_str().unwrap().to_owned();

    // Round two: the three answers; the confirmation is asked next, and the
    // state now carries them (round three brings only its own answer).
    let answers = json!({
        "elicitation-1": {"action": "accept", "content": {"day": "2027-01-01", "people": 3}},
        "sampling-2": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"},
        "where": {"roots": []}
    });
    let second = exchange(&mut client, modern_call(2, json!({"inputResponses": answers, "requestState": state}))).await;
    let second = &second["result"];
    assert_eq!(second["resultType"], "input_required");
    assert_eq!(second["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["confirm"]);
    let state = second["requestState"].as_str().unwrap();
    let third = json!({"inputResponses": {"confirm": {"action": "accept", "content": {"yes": false}}},
        "requestState": state});
    let done = exchange(&mut client, modern_call(3, third)).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "#100 2027-01-01 hello 0 false");
}

#[tokio::test]
async fn altered_foreign_expired_and_malformed_state_is_refused() {
    let server = Server::empty("t", "1")
        .tool(reserve::Tool)
        .tool(book::Tool)
        .with_state(Reservations(AtomicUsize::new(0)))
        .request_state_lifetime(Duration::ZERO);
    let mut client = server.connect_in_memory().unwrap();
    let first = exchange(&mut client, modern_call(1, json!({}))).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let refused = |response: &Value| (response["error"]["code"].clone(), response["error"]["message"].clone());

    let tampered = exchange(&mut client, modern_call(2, json!({"requestState": format!("{state}x")}))).await;
    assert_eq!(refused(&tampered).0, -32602);
    assert!(refused(&tampered).1.as_str().unwrap().contains("integrity"), "{tampered}");

    let mut other_tool = modern_call(3, json!({"requestState": state}));
    other_tool["params"]["name"] = json!("book");
    other_tool["params"]["arguments"] = json!({"restaurant": "x"});
    let response = exchange(&mut client, other_tool).await;
    assert!(refused(&response).1.as_str().unwrap().contains("another request"), "{response}");

    tokio::time::sleep(Duration::from_millis(1100)).await;
    let expired = exchange(&mut client, modern_call(4, json!({"requestState": state}))).await;
    assert!(refused(&expired).1.as_str().unwrap().contains("expired"), "{expired}");

    for (extra, what) in [
        (json!({"inputResponses": null}), "inputResponses"),
        (json!({"inputResponses": [1]}), "inputResponses"),
        (json!({"requestState": 7}), "requestState"),
    ] {
        let response = exchange(&mut client, modern_call(5, extra)).await;
        assert_eq!(refused(&response).0, -32602);
        assert!(refused(&response).1.as_str().unwrap().contains(what), "{response}");
    }
}

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tokio::test]
async fn a_tool_that_cannot_ask_answers_at_once_and_still_has_its_retry_checked() {
    // `add` sees nothing of a request but its arguments: its first rounds
    // keep nothing for later ones. What a retry brings is checked all the same.
    let server =
        Server::empty("t", "1").tool(reserve::Tool).tool(add::Tool).with_state(Reservations(AtomicUsize::new(0)));
    let mut client = server.connect_in_memory().unwrap();
    let add = |id: i64, extra: Value| {
        let mut call = modern_call(id, extra);
        call["params"]["name"] = json!("add");
        call["params"]["arguments"] = json!({"a": 2, "b": 3});
        call
    };
    let sum = exchange(&mut client, add(1, json!({}))).await;
    assert_eq!(sum["result"]["content"][0]["text"], "5", "{sum}");

    let first = exchange(&mut client, modern_call(2, json!({}))).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let refused = |response: &Value| (response["error"]["code"].clone(), response["error"]["message"].clone());
    let foreign = exchange(&mut client, add(3, json!({"requestState": state}))).await;
    assert_eq!(refused(&foreign).0, -32602, "{foreign}");
    assert!(refused(&foreign).1.as_str().unwrap().contains("another request"), "{foreign}");
    let tampered = exchange(&mut client, add(4, json!({"requestState": format!("{state}x")}))).await;
    assert!(refused(&tampered).1.as_str().unwrap().contains("integrity"), "{tampered}");
    let answers = exchange(&mut client, add(5, json!({"inputResponses": [1]}))).await;
    assert!(refused(&answers).1.as_str().unwrap().contains("inputResponses"), "{answers}");
}

#[tokio::test]
async fn a_layer_can_ask_before_a_tool_that_cannot_in_both_eras() {
    use mcp_runtime::middleware::ErrorObject;
    // The tool cannot ask, but a layer around it can: its calls keep their
    // rounds when the server has layers.
    let confirming = mcp_runtime::middleware::from_fn(|mut invocation, next| async move {
        let ctx: Context = invocation.extract().map_err(|_| ErrorObject::internal_error())?;
        let confirm = ctx.elicit::<Confirm>("Add them?").await.map_err(|_| ErrorObject::internal_error())?;
        match confirm.accepted() {
            Some(Confirm { yes: true }) => next.run(invocation).await,
            _ => Err(ErrorObject::invalid_params("not confirmed")),
        }
    });
    for version in ERAS {
        let asked = Arc::new(AtomicUsize::new(0));
        let seen = asked.clone();
        let server = Server::empty("t", "1").tool(add::Tool).layer(confirming.clone());
        let mut client = TestClient::builder(server)
            .version(version)
            .on_elicit(move |_| {
                seen.fetch_add(1, Ordering::SeqCst);
                accept(json!({"yes": true}))
            })
            .connect()
            .await
            .unwrap();
        let result = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
        assert_eq!(text(&result), "5", "{version}");
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{version}: asked once");
    }
}

#[tokio::test]
async fn keys_rotate_signing_with_the_first_and_verifying_with_any() {
    let (old, new) = ([7u8; 32], [9u8; 32]);
    let server = |keys: Vec<[u8; 32]>| {
        Server::empty("t", "1")
            .tool(reserve::Tool)
            .with_state(Reservations(AtomicUsize::new(0)))
            .request_state_keys(keys)
    };
    let mut before = server(vec![old]).connect_in_memory().unwrap();
    let first = exchange(&mut before, modern_call(1, json!({}))).await;
    let state = first["result"]["requestState"].clone();
    let retry = json!({"requestState": state});
    let mut during = server(vec![new, old]).connect_in_memory().unwrap();
    let accepted = exchange(&mut during, modern_call(2, retry.clone())).await;
    assert_eq!(accepted["result"]["resultType"], "input_required", "{accepted}");
    let mut after = server(vec![new]).connect_in_memory().unwrap();
    let refused = exchange(&mut after, modern_call(3, retry)).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    let short = Server::empty("t", "1").request_state_keys([[1u8; 16]]).connect_in_memory().err().unwrap();
    assert!(short.to_string().contains("at least 32"), "{short}");
}

/// A struct a form cannot hold.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nested {
    inner: When,
}

/// Ask for something no form can hold.
#[tool]
async fn nested(ctx: Context) -> Result<String, ToolError> {
    let asked = ctx.elicit::<Nested>("?").await?;
    Ok(asked.accepted().map_or_else(String::new, |n| n.inner.day))
}

#[tokio::test]
async fn a_type_that_cannot_be_a_form_is_an_internal_error_and_nothing_is_sent() {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let mut client = TestClient::builder(Server::empty("t", "1").tool(nested::Tool))
        .on_elicit(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            accept(json!({}))
        })
        .connect()
        .await
        .unwrap();
    let result = client.call_tool("nested", json!({})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).starts_with("internal error"), "{}", text(&result));
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

/// Ask which tone, then render.
#[prompt]
async fn tone(ctx: Context) -> Result<String, PromptError> {
    let asked = ctx.elicit::<Confirm>("Formal?").await?;
    Ok(if asked.accepted().is_some_and(|c| c.yes) { "Write formally." } else { "Write casually." }.into())
}

/// A note that asks who reads it.
#[resource("notes://greeting")]
async fn greeting(ctx: Context) -> Result<String, ResourceError> {
    let roots = ctx.roots().await?;
    Ok(format!("hello, {} roots", roots.len()))
}

#[tokio::test]
async fn prompts_and_resource_reads_ask_too() {
    for version in ERAS {
        let server = Server::empty("t", "1").prompt(tone::Prompt).resource(greeting::Resource);
        let mut client = TestClient::builder(server)
            .version(version)
            .on_elicit(|_| accept(json!({"yes": true})))
            .roots(vec![root("a"), root("b")])
            .connect()
            .await
            .unwrap();
        let prompt = client.get_prompt("tone", &[]).await.unwrap();
        assert_eq!(serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"], "Write formally.");
        let read = client.read_resource("notes://greeting").await.unwrap();
        assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "hello, 2 roots", "{version}");
    }
}

#[tokio::test]
async fn a_prompt_or_read_that_needs_an_undeclared_capability_says_so_in_the_modern_era() {
    let server = Server::empty("t", "1").prompt(tone::Prompt).resource(greeting::Resource);
    let mut client = TestClient::connect_as(server, ProtocolVersion::LATEST).await.unwrap();
    let prompt = client.get_prompt("tone", &[]).await.unwrap_err();
    assert_eq!((prompt.code, prompt.data), (-32021, Some(json!({"requiredCapabilities": {"elicitation": {}}}))));
    let read = client.read_resource("notes://greeting").await.unwrap_err();
    assert_eq!((read.code, read.data), (-32021, Some(json!({"requiredCapabilities": {"roots": {}}}))));
}

/// Ask the user to open a page.
#[tool]
async fn sign_in(ctx: Context) -> Result<String, ToolError> {
    Ok(format!("{:?}", ctx.elicit_url("Sign in to continue", "https://example.com/login").await?))
}

#[tokio::test]
async fn url_elicitation_needs_its_own_capability() {
    let mut client = TestClient::builder(Server::empty("t", "1").tool(sign_in::Tool))
        .on_elicit(|params| {
            assert_eq!(params.mode.as_deref(), Some("url"));
            assert_eq!(params.url.as_deref(), Some("https://example.com/login"));
            assert_eq!(params.elicitation_id.as_ref().map(String::len), Some(32));
            ElicitResult { action: ElicitAction::Accept, content: None }
        })
        .connect()
        .await
        .unwrap();
    assert_eq!(text(&client.call_tool("sign_in", json!({})).await.unwrap()), "Accept(())");

    // A client that declared form elicitation only.
    let mut form_only = Server::empty("t", "1").tool(sign_in::Tool).connect_in_memory().unwrap();
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "0"}});
    form_only.request("initialize", init).await.unwrap();
    let response = form_only.request("tools/call", json!({"name": "sign_in", "arguments": {}})).await.unwrap();
    assert_eq!(response["result"]["content"][0]["text"], "the client did not declare the `elicitation.url` capability");
}
