//! Middleware written by a user, around an inventory's tools: an audit log
//! of every call, a read-only policy (`--read-only` refuses the tools
//! that change stock), and a small cache in front of a slow price look-up
//! (bounded, with a time to live, emptied when stock changes). None of
//! the tools knows about any of it.
//!
//! ```sh
//! cargo run --example middleware                  # stdio
//! cargo run --example middleware -- --read-only   # refuse changes
//! cargo run --example middleware -- --http 127.0.0.1:8080
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::middleware::{self, ErrorObject, Invocation, Kind, Next, Reply};
use mcp_runtime::prelude::*;

/// Stock counts, by item.
struct Stock(Mutex<BTreeMap<String, u32>>);

/// How many items are in stock.
#[tool(read_only)]
fn count(
    /// The item, e.g. `apple`
    item: String,
    stock: State<Stock>,
) -> u32 {
    stock.0.lock().unwrap().get(&item).copied().unwrap_or(0)
}

/// An item's price in cents, from a slow supplier.
#[tool(read_only)]
async fn price(
    /// The item, e.g. `apple`
    item: String,
) -> Result<u32, ToolError> {
    eprintln!("asking the supplier for the price of {item}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let cents = item.bytes().map(u32::from).sum::<u32>() % 500 + 50;
    Ok(cents)
}

/// Add items to the stock.
#[tool]
fn restock(
    /// The item
    item: String,
    /// How many arrived
    count: u32,
    stock: State<Stock>,
) -> String {
    let mut stock = stock.0.lock().unwrap();
    let now = stock.entry(item.clone()).or_default();
    *now += count;
    format!("{item}: {now} in stock")
}

/// Tools that change the stock, which `--read-only` refuses.
const WRITES: [&str; 1] = ["restock"];

/// A bounded cache of replies by tool and arguments, each kept for a while.
#[derive(Clone, Default)]
struct Cache(Arc<Mutex<HashMap<String, (Instant, Reply)>>>);

impl Cache {
    const CAPACITY: usize = 256;
    const TTL: Duration = Duration::from_secs(30);

    fn get(&self, key: &str) -> Option<Reply> {
        let entries = self.0.lock().unwrap();
        entries.get(key).filter(|(at, _)| at.elapsed() < Self::TTL).map(|(_, reply)| reply.clone())
    }

    fn put(&self, key: String, reply: Reply) {
        let mut entries = self.0.lock().unwrap();
        entries.retain(|_, (at, _)| at.elapsed() < Self::TTL);
        if entries.len() >= Self::CAPACITY {
            // Full of live entries: forget the oldest.
            let oldest = entries.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone());
            entries.remove(&oldest.unwrap_or_default());
        }
        entries.insert(key, (Instant::now(), reply));
    }

    fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

fn main() -> Result<(), mcp_runtime::Error> {
    // `--read-only` is this program's flag: it takes it and hands the rest
    // (`--http ADDR`, `--help`) to `run_blocking`, which refuses a flag it
    // does not know.
    let (read_only, rest): (Vec<String>, Vec<String>) = std::env::args().skip(1).partition(|arg| arg == "--read-only");
    let read_only = !read_only.is_empty();
    let cache = Cache::default();
    let stock = Stock(Mutex::new(BTreeMap::from([("apple".into(), 3), ("pear".into(), 0)])));
    Server::new("inventory", "1.0.0")
        .with_state(stock)
        // The audit log: every call, who made it, and how it ended, on
        // stderr (stdout carries the protocol).
        .layer(middleware::from_fn(|invocation: Invocation, next: Next| async move {
            let (kind, name) = (invocation.kind(), invocation.name().to_owned());
            let arguments = serde_json::Value::Object(invocation.arguments().clone());
            let reply = next.run(invocation).await;
            let outcome = match &reply {
                Ok(Reply::Tool(result)) if result.is_error() => "failed",
                Ok(_) => "ok",
                Err(_) => "refused",
            };
            eprintln!("audit: {} {name} {arguments} -> {outcome}", kind.method());
            reply
        }))
        // The policy: in read-only mode, tools that change stock are refused.
        .layer(middleware::when(
            move |invocation: &Invocation| {
                read_only && invocation.kind() == Kind::Tool && WRITES.contains(&invocation.name())
            },
            middleware::from_fn(|invocation: Invocation, _: Next| async move {
                let why = format!("`{}` changes stock, and this server is read-only", invocation.name());
                Err(ErrorObject::invalid_params(why))
            }),
        ))
        // The cache: prices are looked up once per item and kept; a
        // restock empties it.
        .layer(middleware::from_fn(move |invocation: Invocation, next: Next| {
            let cache = cache.clone();
            async move {
                if invocation.kind() != Kind::Tool {
                    return next.run(invocation).await;
                }
                if WRITES.contains(&invocation.name()) {
                    cache.clear();
                    return next.run(invocation).await;
                }
                if invocation.name() != "price" {
                    return next.run(invocation).await;
                }
                let key = format!("{}{:?}", invocation.name(), invocation.arguments());
                if let Some(reply) = cache.get(&key) {
                    return Ok(reply);
                }
                let reply = next.run(invocation).await?;
                if matches!(&reply, Reply::Tool(result) if !result.is_error()) {
                    cache.put(key, reply.clone());
                }
                Ok(reply)
            }
        }))
        .args(rest)
        .run_blocking()
}
