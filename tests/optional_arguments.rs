//! A mistake inside an optional value (`Option<struct>`, `Option<tagged
//! enum>`, at any depth) is told at its own place, as inside a value that
//! is not optional; an integral float (`5.0`) is taken for an integer.
//! Through the protocol, in both schema profiles.

use crate::common::memory::{call, connect};
use mcp_core::SchemaProfile;
use mcp_runtime::Server;
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Where an issue stands.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Open,
    InProgress,
    Closed,
}

/// Which issues.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // The fields are read through `Debug`.
struct Filter {
    status: Status,
    limit: Option<u32>,
}

/// A day of the year.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // The fields are read through `Debug`.
struct Due {
    day: u32,
    month: u32,
}

/// Who works on it.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // The fields are read through `Debug`.
#[serde(tag = "kind", rename_all = "snake_case")]
enum Assignee {
    User { login: String },
    Team { name: String, size: u32 },
}

/// An issue.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // The fields are read through `Debug`.
struct Issue {
    title: String,
    due: Option<Due>,
    assignee: Option<Assignee>,
}

/// Find issues.
#[tool]
fn find(filter: Option<Filter>) -> String {
    format!("{filter:?}")
}

/// File an issue.
#[tool]
fn file(issue: Issue, count: u64) -> String {
    format!("{issue:?} {count}")
}

/// Assign the work.
#[tool]
fn assign(to: Option<Assignee>) -> String {
    format!("{to:?}")
}

fn server(profile: SchemaProfile) -> Server {
    Server::empty("issues", "1").schema_profile(profile).tool(find::Tool).tool(file::Tool).tool(assign::Tool)
}

/// The text of a call that must fail.
async fn refused(client: &mut mcp_runtime::transport::InMemoryClient, tool: &str, arguments: Value) -> String {
    let result = call(client, tool, arguments.clone()).await;
    assert_eq!(result["isError"], true, "{tool} {arguments} should fail: {result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

/// The text of a call that must succeed.
async fn answered(client: &mut mcp_runtime::transport::InMemoryClient, tool: &str, arguments: Value) -> String {
    let result = call(client, tool, arguments.clone()).await;
    assert_ne!(result["isError"], true, "{tool} {arguments}: {result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_mistake_inside_an_optional_value_is_told_at_its_place() {
    let issue = |extra: Value| {
        let mut issue = json!({"title": "t"});
        issue.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!({"issue": issue, "count": 1})
    };
    let cases = [
        (
            "find",
            json!({"filter": {"status": "opened"}}),
            "argument `filter.status`: expected one of \"open\", \"in_progress\", \"closed\", got the string \"opened\"",
        ),
        (
            "find",
            json!({"filter": {"status": "open", "limit": "x"}}),
            "argument `filter.limit`: expected an integer, got the string \"x\"",
        ),
        ("find", json!({"filter": {}}), "argument `filter.status`: required but not sent"),
        ("find", json!({"filter": "open"}), "argument `filter`: expected an object, got the string \"open\""),
        (
            "file",
            issue(json!({"due": {"day": "x", "month": 1}})),
            "argument `issue.due.day`: expected an integer, got the string \"x\"",
        ),
        (
            "file",
            issue(json!({"assignee": {"kind": "robot"}})),
            "argument `issue.assignee.kind`: expected one of \"user\", \"team\", got the string \"robot\"",
        ),
        (
            "file",
            issue(json!({"assignee": {"kind": "user", "login": 5}})),
            "argument `issue.assignee.login`: expected a string, got the number 5",
        ),
        (
            "file",
            issue(json!({"assignee": {"kind": "team", "name": "x"}})),
            "argument `issue.assignee.size`: required but not sent",
        ),
        ("file", issue(json!({"assignee": {"login": "x"}})), "argument `issue.assignee.kind`: required but not sent"),
        (
            "assign",
            json!({"to": {"kind": "robot"}}),
            "argument `to.kind`: expected one of \"user\", \"team\", got the string \"robot\"",
        ),
        (
            "assign",
            json!({"to": {"kind": "team", "name": "x", "size": -1}}),
            "argument `to.size`: must be at least 0, got the number -1",
        ),
    ];
    for profile in [SchemaProfile::Portable, SchemaProfile::Strict] {
        let mut client = connect(server(profile)).await;
        for (tool, arguments, expected) in &cases {
            assert_eq!(
                refused(&mut client, tool, arguments.clone()).await,
                *expected,
                "{profile:?}: {tool} {arguments}"
            );
        }
        // `null` is still "not sent".
        assert_eq!(answered(&mut client, "find", json!({"filter": null})).await, "None");
        assert_eq!(answered(&mut client, "assign", json!({"to": null})).await, "None");
    }
}

#[tokio::test]
async fn an_integral_float_is_taken_for_an_integer_at_any_depth_and_a_fraction_is_refused() {
    for profile in [SchemaProfile::Portable, SchemaProfile::Strict] {
        let mut client = connect(server(profile)).await;
        let sent = json!({"issue": {"title": "t", "due": {"day": 1.0, "month": 2e0}}, "count": 3.0});
        assert_eq!(
            answered(&mut client, "file", sent).await,
            "Issue { title: \"t\", due: Some(Due { day: 1, month: 2 }), assignee: None } 3",
            "{profile:?}"
        );
        let sent = json!({"to": {"kind": "team", "name": "x", "size": 2.0}});
        assert_eq!(answered(&mut client, "assign", sent).await, "Some(Team { name: \"x\", size: 2 })", "{profile:?}");
        let sent = json!({"filter": {"status": "open", "limit": 10.0}});
        assert_eq!(
            answered(&mut client, "find", sent).await,
            "Some(Filter { status: Open, limit: Some(10) })",
            "{profile:?}"
        );
        for (arguments, expected) in [
            (
                json!({"issue": {"title": "t"}, "count": 1.5}),
                "argument `count`: expected an integer, got the number 1.5",
            ),
            (
                json!({"issue": {"title": "t", "due": {"day": 1, "month": 2.5}}, "count": 1}),
                "argument `issue.due.month`: expected an integer, got the number 2.5",
            ),
            (
                json!({"issue": {"title": "t"}, "count": -1.0}),
                "argument `count`: must be at least 0, got the number -1.0",
            ),
        ] {
            assert_eq!(refused(&mut client, "file", arguments.clone()).await, expected, "{profile:?}: {arguments}");
        }
    }
}
