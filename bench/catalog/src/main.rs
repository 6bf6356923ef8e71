//! A generated catalog of 1,000 tools with realistic descriptions, served
//! behind tool search and driven in process (no transport, so the times
//! are the server's own plus one channel hop): `tools/list`'s time and
//! size with the catalog hidden, the p50 of a `search_tools` call, and how
//! much the process's resident memory grows when the first search builds
//! the index (`VmRSS`, so page-grained and an upper bound on the index).
//!
//! ```sh
//! cargo run --release -p bench-catalog
//! ```

use std::time::{Duration, Instant};

use mcp_runtime::Server;
use mcp_runtime::catalog::ToolSearch;
use mcp_runtime::prelude::*;
use mcp_runtime::request::RequestParts;
use mcp_runtime::tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition};
use serde_json::{Value, json};

/// The process's resident memory in KiB (`VmRSS`), where `/proc` has it.
fn rss_kib() -> Option<i64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

const TOOLS: usize = 1_000;
const SEARCHES: usize = 2_000;

/// What the generated tools act on, and how.
const SERVICES: &[&str] = &[
    "GitHub",
    "Slack",
    "Jira",
    "Stripe",
    "Salesforce",
    "Zendesk",
    "Notion",
    "Linear",
    "Postgres",
    "S3",
    "Kubernetes",
    "Datadog",
    "PagerDuty",
    "Calendar",
    "Gmail",
    "Drive",
    "Figma",
    "Shopify",
    "HubSpot",
    "Twilio",
];
const OBJECTS: &[(&str, &str)] = &[
    ("issue", "a tracked piece of work with a title, body, labels and assignees"),
    ("message", "a text posted to a channel or a conversation"),
    ("invoice", "a bill sent to a customer, with its lines and totals"),
    ("customer", "a person or company that buys, with contact details"),
    ("ticket", "a support request from a customer, with its replies"),
    ("page", "a document of blocks in a shared workspace"),
    ("table", "rows and columns of a database"),
    ("bucket", "a container of stored objects and files"),
    ("deployment", "a running release of a service in a cluster"),
    ("alert", "a notification that a monitored metric crossed its threshold"),
    ("event", "an appointment with a start, an end and attendees"),
    ("file", "a stored document with its owner and sharing settings"),
    ("order", "a purchase of products with shipping and payment"),
    ("contact", "a person's name, email and phone number"),
    ("webhook", "a URL called when something changes"),
    ("report", "a summary of metrics over a period"),
    ("user", "an account that signs in, with its roles"),
    ("comment", "a remark attached to an item"),
    ("label", "a name used to group items"),
    ("schedule", "who is on call and when"),
];
const VERBS: &[(&str, &str)] = &[
    ("create", "Create a new"),
    ("get", "Get the details of one"),
    ("list", "List and filter every"),
    ("update", "Change the fields of an existing"),
    ("delete", "Delete for good one"),
    ("search", "Search by keywords for any"),
    ("archive", "Archive, keeping but hiding, one"),
    ("export", "Export as CSV every"),
    ("assign", "Assign to a person one"),
    ("count", "Count, with optional filters, every"),
];

/// One generated tool, answering with its arguments.
struct Generated(usize);

impl Tool for Generated {
    fn definition(&self) -> ToolDefinition {
        let service = SERVICES[self.0 % SERVICES.len()];
        let (object, about) = OBJECTS[(self.0 / SERVICES.len()) % OBJECTS.len()];
        let (verb, phrase) = VERBS[(self.0 / (SERVICES.len() * OBJECTS.len())) % VERBS.len()];
        let name = format!("{}_{verb}_{object}", service.to_lowercase());
        let mut builder = ToolBuilder::new(&name, module_path!(), "generated");
        let description = format!("{phrase} {service} {object} ({about}). Needs a {service} account.");
        builder
            .description(Some(&description))
            .argument::<String>("id", Some(&format!("The {object}'s identifier in {service}")), false)
            .argument::<String>("query", Some("Words to filter by"), false)
            .argument::<u32>("limit", Some("How many to return at most"), false);
        builder.build()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let text = Value::Object(request.arguments().clone()).to_string();
        Box::pin(async move { CallToolResult::success(vec![Content::text(text)]) })
    }
}

fn p50(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut server = Server::empty("catalog-bench", "1").tool_search(ToolSearch::new());
    for i in 0..TOOLS {
        server = server.tool(Generated(i));
    }
    let mut client = server.connect_in_memory().expect("the server starts");
    client.initialize().await.expect("the handshake");

    let mut lists = Vec::new();
    let mut bytes = 0;
    for _ in 0..200 {
        let started = Instant::now();
        let answer = client.request("tools/list", json!({})).await.expect("tools/list");
        lists.push(started.elapsed());
        bytes = answer["result"].to_string().len();
        assert_eq!(answer["result"]["tools"].as_array().map(Vec::len), Some(2), "{answer}");
    }

    // The index is built by the first search; one that matches nothing
    // leaves nothing else behind.
    let before = rss_kib();
    let first = Instant::now();
    let none = client
        .request("tools/call", json!({"name": "search_tools", "arguments": {"query": "zzzz"}}))
        .await
        .expect("a search");
    let build = first.elapsed();
    let index = before.zip(rss_kib()).map(|(before, after)| after - before);
    assert_eq!(none["result"]["structuredContent"]["tools"], json!([]), "{none}");

    let queries = ["refund a stripe invoice", "post a message to slack", "who is on call", "export orders as csv"];
    let mut searches = Vec::new();
    for i in 0..SEARCHES {
        let query = queries[i % queries.len()];
        let started = Instant::now();
        let answer = client
            .request("tools/call", json!({"name": "search_tools", "arguments": {"query": query}}))
            .await
            .expect("a search");
        searches.push(started.elapsed());
        assert_eq!(answer["result"]["structuredContent"]["tools"].as_array().map(Vec::len), Some(5), "{answer}");
    }

    println!("| measurement | value |");
    println!("|---|---|");
    println!("| tools/list p50 (search on, catalog hidden; {TOOLS} tools) | {} |", micros(p50(lists)));
    println!("| tools/list result size | {bytes} bytes |");
    println!("| first search (builds the index) | {} |", micros(build));
    println!("| search_tools call p50 (BM25, 5 results) | {} |", micros(p50(searches)));
    match index {
        Some(kib) => println!("| resident memory growth across the first search (the index) | {kib} KiB |"),
        None => println!("| resident memory growth across the first search (the index) | not measured (no /proc) |"),
    }
}
