//! Per-user state through the protocol: kept by session in the handshake
//! era, by the token's subject over OAuth in both eras, by a handle the
//! server mints where there is no user; a handle of another user is
//! refused, forged ones too; bounds refuse with a tool error (the owner's
//! and the store's enforced by the backend, their room freed by removal
//! and by expiry, a Redis put dropping at most 100 expired owners); an
//! HTTP session's state follows it to another replica; the same with Redis
//! behind it.

use std::time::Duration;

use crate::common::http::Client;
use crate::common::memory::{call, connect, connect_as};
use crate::oauth::{Issuer, Key, Mcp};
use mcp_runtime::Server;
use mcp_runtime::prelude::*;
use mcp_runtime::stores::MemorySessionStore;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime::userstate::{StateHandle, StateLimits, UserState, UserStore};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The caller's cart.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Cart(Vec<String>);

/// Add an item to your cart (or to the cart at `handle`); returns the cart.
#[tool]
async fn add(item: String, handle: Option<StateHandle>, cart: UserState<Cart>) -> Result<String, ToolError> {
    let cart = match handle {
        Some(handle) => cart.open(&handle)?,
        None => cart,
    };
    Ok(cart
        .update(|c| {
            c.0.push(item);
            c.0.join(",")
        })
        .await?)
}

/// A new cart of your own (with `item` in it, if given): returns its handle.
#[tool]
async fn new_cart(item: Option<String>, cart: UserState<Cart>) -> Result<String, ToolError> {
    let handle = cart.mint();
    if let Some(item) = item {
        cart.open(&handle)?.set(&Cart(vec![item])).await?;
    }
    Ok(handle.to_string())
}

/// Empty your cart (or the cart at `handle`).
#[tool]
async fn empty(handle: Option<StateHandle>, cart: UserState<Cart>) -> Result<&'static str, ToolError> {
    let cart = match handle {
        Some(handle) => cart.open(&handle)?,
        None => cart,
    };
    cart.remove().await?;
    Ok("emptied")
}

fn limits() -> StateLimits {
    StateLimits { ttl: Duration::from_secs(60), max_value_bytes: 64, max_owner_bytes: 1024, max_total_bytes: 4096 }
}

fn server(store: UserStore) -> Server {
    Server::empty("shop", "1").tool(add::Tool).tool(new_cart::Tool).tool(empty::Tool).user_state(store)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {result}"))
}

/// The text of a tool error, failing if the result is not one.
fn error(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "{result}");
    text(result)
}

async fn sessions_keep_their_own_and_refuse_each_others_handles(store: UserStore) {
    // Two connections to servers that share one store, as replicas do.
    let mut ann = connect(server(store.clone())).await;
    let mut bob = connect(server(store)).await;
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "tea"})).await), "tea");
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "jam"})).await), "tea,jam");
    assert_eq!(text(&call(&mut bob, "add", json!({"item": "salt"})).await), "salt", "bob has a cart of his own");

    let handle = text(&call(&mut ann, "new_cart", json!({})).await).to_owned();
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "rye", "handle": handle})).await), "rye");
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "oat", "handle": handle})).await), "rye,oat");
    let stolen = call(&mut bob, "add", json!({"item": "x", "handle": handle})).await;
    assert_eq!(error(&stolen), "state handle refused: it is malformed or belongs to another user");
    let mut forged = handle.clone();
    forged.replace_range(4..6, if &handle[4..6] == "AA" { "BB" } else { "AA" });
    assert!(error(&call(&mut ann, "add", json!({"item": "x", "handle": forged})).await).contains("refused"));
    // What was refused changed nothing.
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "ale", "handle": handle})).await), "rye,oat,ale");

    let big = "x".repeat(100);
    let refused = call(&mut ann, "add", json!({"item": big})).await;
    assert!(error(&refused).starts_with("state value too large: "), "{refused}");
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "fig"})).await), "tea,jam,fig", "nothing was lost");
}

/// What a cart holding `items` counts against the bounds: its slot's name
/// (the type's) and its value as JSON.
fn cost(items: &[&str]) -> usize {
    std::any::type_name::<Cart>().len() + serde_json::to_vec(items).unwrap().len()
}

/// An `add` of an item that makes a cart (or a new cart's) cost `bytes`.
fn item_costing(bytes: usize) -> Value {
    json!({"item": "x".repeat(bytes - cost(&[""]))})
}

/// Bounds small enough to reach in a few calls: 300 bytes an owner, 1000 in all.
fn tight_limits(ttl: Duration) -> StateLimits {
    StateLimits { ttl, max_value_bytes: 512, max_owner_bytes: 300, max_total_bytes: 1000 }
}

/// Values the value bound lets through but the owner's or the store's
/// bound refuses; room made by removing state is taken again.
async fn the_owners_and_the_stores_bounds_hold_and_free_up(store: UserStore) {
    let mut ann = connect(server(store)).await;
    assert_eq!(text(&call(&mut ann, "add", item_costing(250)).await).len(), 250 - cost(&[""]));
    let over = call(&mut ann, "add", json!({"item": "y".repeat(50)})).await;
    assert_eq!(error(&over), "too much state kept for this user: at most 300 bytes");
    assert_eq!(text(&call(&mut ann, "empty", json!({})).await), "emptied");
    let added = call(&mut ann, "add", json!({"item": "y".repeat(50)})).await;
    assert_eq!(text(&added), "y".repeat(50), "the owner has room again");
    assert_eq!(text(&call(&mut ann, "empty", json!({})).await), "emptied");

    // Each handle is an owner of its own: three of 300 bytes fit in
    // 1000, a fourth does not.
    let mut handles = Vec::new();
    for _ in 0..3 {
        handles.push(text(&call(&mut ann, "new_cart", item_costing(300)).await).to_owned());
    }
    let full = call(&mut ann, "new_cart", item_costing(300)).await;
    assert_eq!(error(&full), "the server's state store is full; try again later");
    // Another owner's write was refused, but the state kept is all there.
    let added = call(&mut ann, "add", json!({"item": "z", "handle": handles[2]})).await;
    assert!(error(&added).starts_with("too much state kept"), "{added}");
    assert_eq!(text(&call(&mut ann, "empty", json!({"handle": handles[0]})).await), "emptied");
    let added = call(&mut ann, "new_cart", item_costing(300)).await;
    assert!(text(&added).starts_with("st1."), "the store has room again: {added}");
}

#[tokio::test]
async fn the_bounds_hold_and_free_up_in_memory() {
    the_owners_and_the_stores_bounds_hold_and_free_up(UserStore::memory(tight_limits(Duration::from_secs(60)))).await;
}

#[tokio::test]
async fn the_bounds_hold_and_free_up_in_redis() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let store = mcp_runtime::stores::RedisStore::connect(&redis.url).await.unwrap().prefix("userstate-bounds");
    let users = UserStore::redis(store, tight_limits(Duration::from_secs(60)));
    the_owners_and_the_stores_bounds_hold_and_free_up(users).await;
}

/// State past its TTL is read as never set, and its room, the owner's and
/// the store's, is free again without anyone removing it.
async fn expired_state_is_gone_and_frees_its_room(store: UserStore) {
    let ttl = store.limits().ttl;
    let mut ann = connect(server(store)).await;
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "tea"})).await), "tea");
    let over = call(&mut ann, "add", item_costing(300)).await;
    assert!(error(&over).starts_with("too much state kept"), "the owner is full: {over}");
    let jam = text(&call(&mut ann, "new_cart", json!({"item": "jam"})).await).to_owned();
    for _ in 0..3 {
        text(&call(&mut ann, "new_cart", item_costing(250)).await);
    }
    let full = call(&mut ann, "new_cart", item_costing(250)).await;
    assert_eq!(error(&full), "the server's state store is full; try again later");

    // Every slot was last written before this, so all have expired after it.
    tokio::time::sleep(ttl + Duration::from_millis(200)).await;
    let fresh = call(&mut ann, "add", item_costing(300)).await;
    assert_eq!(text(&fresh).len(), 300 - cost(&[""]), "the owner's room is free, its cart empty: {fresh}");
    assert_eq!(text(&call(&mut ann, "add", json!({"item": "oat", "handle": jam})).await), "oat");
    for _ in 0..2 {
        let added = call(&mut ann, "new_cart", item_costing(250)).await;
        assert!(text(&added).starts_with("st1."), "the store's room is free: {added}");
    }
}

#[tokio::test]
async fn expired_state_is_gone_and_frees_its_room_in_memory() {
    expired_state_is_gone_and_frees_its_room(UserStore::memory(tight_limits(Duration::from_secs(1)))).await;
}

#[tokio::test]
async fn expired_state_is_gone_and_frees_its_room_in_redis() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let store = mcp_runtime::stores::RedisStore::connect(&redis.url).await.unwrap().prefix("userstate-expiry");
    expired_state_is_gone_and_frees_its_room(UserStore::redis(store, tight_limits(Duration::from_secs(1)))).await;
}

/// A Redis put drops at most 100 expired owners from the store's count, so
/// a backlog of them is worked off over several puts, never in one.
#[tokio::test]
async fn a_redis_put_sweeps_at_most_a_hundred_expired_owners() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let store = mcp_runtime::stores::RedisStore::connect(&redis.url).await.unwrap().prefix("userstate-sweep");
    let small = cost(&["a"]);
    let (owners, big) = (150, 120 * small);
    let ttl = Duration::from_secs(3);
    let limits = StateLimits { ttl, max_value_bytes: big, max_owner_bytes: big, max_total_bytes: owners * small };
    let mut ann = connect(server(UserStore::redis(store, limits))).await;
    for _ in 0..owners {
        text(&call(&mut ann, "new_cart", json!({"item": "a"})).await);
    }
    // Full, so none of them had expired and been dropped yet.
    let full = call(&mut ann, "add", json!({"item": "a"})).await;
    assert_eq!(error(&full), "the server's state store is full; try again later", "filled within the TTL");

    tokio::time::sleep(ttl + Duration::from_millis(200)).await;
    // All 150 have expired: 100 are dropped, the other 50 still count.
    let first = call(&mut ann, "add", item_costing(big)).await;
    assert_eq!(error(&first), "the server's state store is full; try again later");
    // The next put drops the rest.
    let second = call(&mut ann, "add", item_costing(big)).await;
    assert_eq!(text(&second).len(), big - cost(&[""]), "{second}");
}

#[tokio::test]
async fn sessions_keep_state_of_their_own_in_memory() {
    sessions_keep_their_own_and_refuse_each_others_handles(UserStore::memory(limits())).await;
}

#[tokio::test]
async fn sessions_keep_state_of_their_own_in_redis() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let store = mcp_runtime::stores::RedisStore::connect(&redis.url).await.unwrap().prefix("userstate-test");
    sessions_keep_their_own_and_refuse_each_others_handles(UserStore::redis(store, limits())).await;
}

/// Serve `server` over HTTP with `options`; its endpoint's URL.
async fn serve(server: Server, options: HttpOptions) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { server.serve_http_on(listener, options).await.unwrap() });
    url
}

/// A 2025-11-25 HTTP session begun at one replica and taken up by another
/// (which never saw its `initialize`) finds the state it kept there; a
/// handle it minted there opens too; another session keeps its own.
async fn a_sessions_state_follows_it_to_another_replica(store: UserStore, options: impl Fn() -> HttpOptions) {
    let a = serve(server(store.clone()), options()).await;
    let b = serve(server(store), options()).await;
    let mut session = Client::new(&a);
    session.initialize().await;
    assert_eq!(text(&session.call("add", json!({"item": "tea"})).await.last()["result"]), "tea");
    let handle = text(&session.call("new_cart", json!({})).await.last()["result"]).to_owned();
    assert_eq!(text(&session.call("add", json!({"item": "rye", "handle": handle})).await.last()["result"]), "rye");

    session.url = b.clone();
    let at_b = session.call("add", json!({"item": "jam"})).await;
    assert_eq!(at_b.status, StatusCode::OK, "{at_b:?}");
    assert_eq!(text(&at_b.last()["result"]), "tea,jam");
    let opened = session.call("add", json!({"item": "oat", "handle": handle})).await;
    assert_eq!(text(&opened.last()["result"]), "rye,oat");

    let mut other = Client::new(&b);
    other.initialize().await;
    assert_eq!(text(&other.call("add", json!({"item": "salt"})).await.last()["result"]), "salt");
    let stolen = other.call("add", json!({"item": "x", "handle": handle})).await;
    assert!(error(&stolen.last()["result"]).contains("belongs to another user"), "{stolen:?}");
}

#[tokio::test]
async fn a_sessions_state_follows_it_to_another_replica_in_memory() {
    let sessions = std::sync::Arc::new(MemorySessionStore::default());
    let options = || HttpOptions::new().session_store(sessions.clone());
    a_sessions_state_follows_it_to_another_replica(UserStore::memory(limits()), options).await;
}

#[tokio::test]
async fn a_sessions_state_follows_it_to_another_replica_in_redis() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let store = mcp_runtime::stores::RedisStore::connect(&redis.url).await.unwrap().prefix("userstate-replicas");
    let users = UserStore::redis(store.clone(), limits());
    a_sessions_state_follows_it_to_another_replica(users, || HttpOptions::new().shared_store(store.clone())).await;
}

#[tokio::test]
async fn without_a_user_only_a_minted_handle_addresses_state() {
    let store = UserStore::memory(limits());
    let mut client = server(store.clone()).connect_in_memory().unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut stateless = async |name: &str, arguments: Value| {
        let params = json!({"name": name, "arguments": arguments, "_meta": meta});
        let answer = client.request("tools/call", params).await.unwrap();
        answer["result"].clone()
    };
    let no_user = stateless("add", json!({"item": "tea"})).await;
    assert!(error(&no_user).starts_with("this request has no user to keep state for"), "{no_user}");
    let handle = text(&stateless("new_cart", json!({})).await).to_owned();
    assert_eq!(text(&stateless("add", json!({"item": "tea", "handle": handle})).await), "tea");
    assert_eq!(text(&stateless("add", json!({"item": "jam", "handle": handle})).await), "tea,jam");
    assert!(error(&stateless("add", json!({"item": "x", "handle": "st1.guess.guess"})).await).contains("refused"));
    // Bound to no user, it opens for no request that has one (a session).
    let mut session = connect(server(store)).await;
    let refused = call(&mut session, "add", json!({"item": "x", "handle": handle})).await;
    assert!(error(&refused).contains("belongs to another user"), "{refused}");
}

#[tokio::test]
async fn a_handshake_era_handle_is_not_a_stateless_one() {
    // A handle minted for a session is bound to it: without that session
    // (a stateless request), it is refused.
    let store = UserStore::memory(limits());
    let mut session = connect_as(server(store.clone()), "2025-06-18").await;
    let handle = text(&call(&mut session, "new_cart", json!({})).await).to_owned();
    let mut other = server(store).connect_in_memory().unwrap();
    let params = json!({"name": "add", "arguments": {"item": "x", "handle": handle}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let answer = other.request("tools/call", params).await.unwrap();
    assert!(error(&answer["result"]).contains("refused"), "{answer}");
}

#[tokio::test]
async fn over_oauth_state_follows_the_subject_in_both_eras_and_refuses_other_users() {
    let key = Key::a();
    let issuer = Issuer::start(&[&key]).await;
    let mcp = Mcp::serving(server(UserStore::memory(limits())), &issuer, |o| o).await;
    let token = |sub: &str| {
        let mut claims = mcp.claims(&issuer, "notes:read");
        claims["sub"] = json!(sub);
        key.sign(&claims)
    };
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut ann = mcp.client(Some(&token("ann")));
    let mut bob = mcp.client(Some(&token("bob")));
    let stateless = |item: &str, handle: Option<&str>| {
        let mut arguments = json!({"item": item});
        if let Some(handle) = handle {
            arguments["handle"] = json!(handle);
        }
        json!({"name": "add", "arguments": arguments, "_meta": meta})
    };
    let first = ann.request("tools/call", stateless("tea", None)).await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    assert_eq!(text(&first.last()["result"]), "tea");
    // No session: the second request finds the first one's state by the subject.
    assert_eq!(text(&ann.request("tools/call", stateless("jam", None)).await.last()["result"]), "tea,jam");
    assert_eq!(text(&bob.request("tools/call", stateless("salt", None)).await.last()["result"]), "salt");

    // A 2025-11-25 session of the same subject sees the same state.
    let mut session = mcp.client(Some(&token("ann")));
    session.initialize().await;
    assert_eq!(text(&session.call("add", json!({"item": "fig"})).await.last()["result"]), "tea,jam,fig");

    let minted = ann.request("tools/call", json!({"name": "new_cart", "arguments": {}, "_meta": meta})).await;
    let handle = text(&minted.last()["result"]).to_owned();
    assert_eq!(text(&ann.request("tools/call", stateless("rye", Some(&handle))).await.last()["result"]), "rye");
    let stolen = bob.request("tools/call", stateless("x", Some(&handle))).await;
    assert!(error(&stolen.last()["result"]).contains("belongs to another user"), "{stolen:?}");
}
