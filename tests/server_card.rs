//! The server card (experimental, SEP-2127 draft) as a client reads it:
//! fetched over HTTP before connecting, validated against the draft's
//! schema (`tests/schemas/server-card.v1.schema.json`, pinned from the
//! extension's repository) with an independent validator, compared with
//! what the connection itself says, and found in the AI catalog.

use std::net::SocketAddr;

use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, ServerCard};
use mcp_runtime::{Server, protocol::Icon};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};

use crate::common::http::Client;

const MEDIA_TYPE: &str = "application/mcp-server-card+json";

/// Say what the weather is.
#[tool]
fn forecast(city: String) -> String {
    format!("sunny in {city}")
}

/// A view, which makes the server declare the MCP Apps extension.
#[resource("ui://weather/view", mime_type = "text/html;profile=mcp-app")]
fn view() -> String {
    "<p>weather</p>".into()
}

fn server() -> Server {
    Server::empty("weather", "2.1.0").title("Weather").tool(forecast::Tool).resource(view::Resource)
}

async fn serve(server: Server, options: HttpOptions) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, options).await.unwrap() });
    format!("http://{addr}/mcp")
}

/// The draft's card schema, its `ServerCard` definition as the root.
fn validator() -> jsonschema::Validator {
    let text = include_str!("schemas/server-card.v1.schema.json");
    let mut schema: Value = serde_json::from_str(text).unwrap();
    schema["$ref"] = json!("#/$defs/ServerCard");
    jsonschema::draft202012::options().should_validate_formats(true).build(&schema).unwrap()
}

fn assert_valid(card: &Value) {
    let validator = validator();
    let errors: Vec<String> = validator.iter_errors(card).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{card:#}");
}

async fn get(url: &str) -> reqwest::Response {
    reqwest::Client::new().get(url).header(ACCEPT, MEDIA_TYPE).send().await.unwrap()
}

#[tokio::test]
async fn the_card_is_valid_says_what_the_connection_says_and_lists_no_tools() {
    let card = ServerCard::new("io.github.example/weather")
        .description("Forecasts for any city")
        .icon(Icon::new("https://example.com/weather.png"))
        .repository("https://github.com/example/weather");
    let url = serve(server(), HttpOptions::new().server_card(card)).await;

    let response = get(&format!("{url}/server-card")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CONTENT_TYPE], MEDIA_TYPE);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    assert_eq!(response.headers()["cache-control"], "public, max-age=3600");
    let etag = response.headers()[ETAG].clone();
    let card: Value = response.json().await.unwrap();
    assert_valid(&card);

    assert_eq!(card["name"], "io.github.example/weather");
    assert_eq!(card["description"], "Forecasts for any city");
    assert_eq!(card["icons"][0]["src"], "https://example.com/weather.png");
    assert_eq!(card["repository"], json!({"url": "https://github.com/example/weather", "source": "github"}));
    let remote = &card["remotes"][0];
    assert_eq!(remote["type"], "streamable-http");
    assert_eq!(remote["url"], url.as_str());
    assert!(remote.get("headers").is_none(), "no token is needed: {card}");
    for field in ["tools", "resources", "prompts", "capabilities"] {
        assert!(card.get(field).is_none(), "the card lists no {field}: {card}");
    }
    assert!(!card.to_string().contains("forecast"), "a tool's name leaked into the card: {card}");

    // What a client sees once connected agrees with the card.
    let mut client = Client::new(&url);
    let init = client.initialize().await;
    let result = &init;
    assert_eq!(result["serverInfo"]["version"], card["version"]);
    assert_eq!(result["serverInfo"]["title"], card["title"]);
    let extensions = &result["capabilities"]["extensions"];
    assert!(extensions.get("io.modelcontextprotocol/ui").is_some(), "{init}");
    assert_eq!(&card["_meta"]["dev.mcp-runtime/extensions"], extensions);
    let versions = remote["supportedProtocolVersions"].as_array().unwrap();
    assert!(versions.iter().any(|v| v == &result["protocolVersion"]), "{versions:?}");

    // A page of any origin may ask first, and may read the tag it revalidates with.
    let asked = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, format!("{url}/server-card"))
        .header("origin", "https://catalog.example")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "if-none-match")
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), StatusCode::NO_CONTENT);
    let allowed = |name: &str| asked.headers()[name].to_str().unwrap().to_lowercase();
    assert_eq!(allowed("access-control-allow-origin"), "*");
    assert!(allowed("access-control-allow-methods").contains("get"), "{:?}", asked.headers());
    assert!(allowed("access-control-allow-headers").contains("if-none-match"), "{:?}", asked.headers());
    let exposed = get(&format!("{url}/server-card")).await.headers()["access-control-expose-headers"].clone();
    assert!(exposed.to_str().unwrap().to_lowercase().contains("etag"), "{exposed:?}");

    // Unchanged, it is not sent again.
    let again =
        reqwest::Client::new().get(format!("{url}/server-card")).header(IF_NONE_MATCH, etag).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.text().await.unwrap(), "");
}

#[tokio::test]
async fn the_catalog_points_at_the_card() {
    let url = serve(server(), HttpOptions::new().server_card(ServerCard::new("io.github.example/weather"))).await;
    let root = url.trim_end_matches("/mcp");
    for path in ["/.well-known/ai-catalog.json", "/.well-known/mcp/catalog.json"] {
        let response = get(&format!("{root}{path}")).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()[CONTENT_TYPE], "application/ai-catalog+json");
        let catalog: Value = response.json().await.unwrap();
        let entry = &catalog["entries"][0];
        assert_eq!(entry["type"], MEDIA_TYPE);
        assert_eq!(entry["identifier"], "urn:air:127.0.0.1:mcp:weather");
        // The entry's URL is where the card is.
        let card: Value = get(entry["url"].as_str().unwrap()).await.json().await.unwrap();
        assert_valid(&card);
        // Without a description of its own, the card still has one.
        assert_eq!(card["description"], "weather");
    }
}

#[tokio::test]
async fn a_protected_endpoint_says_a_token_is_needed_but_the_card_needs_none() {
    let card = ServerCard::new("com.example/weather").url("https://weather.example.com/mcp");
    let options = HttpOptions::new().bearer_token("secret-token").server_card(card);
    let url = serve(server(), options).await;
    let response = get(&format!("{url}/server-card")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let card: Value = response.json().await.unwrap();
    assert_valid(&card);
    let remote = &card["remotes"][0];
    assert_eq!(remote["url"], "https://weather.example.com/mcp");
    assert_eq!(remote["headers"][0]["name"], "Authorization");
    assert_eq!(remote["headers"][0]["isRequired"], true);
    assert_eq!(remote["headers"][0]["isSecret"], true);
    assert!(!card.to_string().contains("secret-token"), "the token leaked: {card}");
}

#[tokio::test]
async fn without_the_option_there_is_no_card_and_other_hosts_get_none() {
    let url = serve(server(), HttpOptions::new()).await;
    assert_eq!(get(&format!("{url}/server-card")).await.status(), StatusCode::NOT_FOUND);
    let root = url.trim_end_matches("/mcp");
    assert_eq!(get(&format!("{root}/.well-known/ai-catalog.json")).await.status(), StatusCode::NOT_FOUND);

    // The card answers only under the names the server answers to.
    let url = serve(server(), HttpOptions::new().server_card(ServerCard::new("com.example/weather"))).await;
    let refused =
        reqwest::Client::new().get(format!("{url}/server-card")).header("host", "evil.example").send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let posted = reqwest::Client::new().post(format!("{url}/server-card")).send().await.unwrap();
    assert_eq!(posted.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[test]
fn the_validator_refuses_a_card_that_breaks_the_draft() {
    // So a passing validation above means something.
    let validator = validator();
    let bad = json!({"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
                     "name": "no-slash", "version": "1", "description": "x"});
    assert!(!validator.is_valid(&bad));
    let no_schema = json!({"name": "a.b/c", "version": "1", "description": "x"});
    assert!(!validator.is_valid(&no_schema));
}
