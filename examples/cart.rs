//! A shop cart kept for each user between calls, with no session to keep
//! it in: the state lives in the server's user store, owned by the
//! caller's token subject, or its 2025-11-25 session, or (for a 2026-07-28
//! client without a token) a handle the server mints and the client
//! passes back. A handle opens only for the caller it was minted for.
//!
//! ```sh
//! cargo run --example cart                          # stdio
//! cargo run --example cart -- --http 127.0.0.1:8080 # Streamable HTTP
//! ```

use mcp_runtime::prelude::*;
use mcp_runtime::userstate::{StateHandle, StateLimits, UserState, UserStore};

/// The items in a cart.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Cart(Vec<String>);

/// The cart at `handle`, or the caller's own.
fn which(state: UserState<Cart>, handle: Option<StateHandle>) -> Result<UserState<Cart>, ToolError> {
    Ok(match handle {
        Some(handle) => state.open(&handle)?,
        None => state,
    })
}

/// Add an item to your cart (or to the cart at `cart`, a handle `new_cart`
/// gave you); returns what the cart holds.
#[tool]
async fn add_to_cart(
    /// What to add
    item: String,
    /// The cart's handle, if `new_cart` gave you one
    cart: Option<StateHandle>,
    state: UserState<Cart>,
) -> Result<String, ToolError> {
    let cart = which(state, cart)?;
    Ok(cart
        .update(|c| {
            c.0.push(item);
            c.0.join(", ")
        })
        .await?)
}

/// What your cart (or the cart at `cart`) holds.
#[tool(read_only)]
async fn show_cart(
    /// The cart's handle, if `new_cart` gave you one
    cart: Option<StateHandle>,
    state: UserState<Cart>,
) -> Result<String, ToolError> {
    let cart = which(state, cart)?.get().await?.unwrap_or_default();
    Ok(if cart.0.is_empty() { "the cart is empty".to_owned() } else { cart.0.join(", ") })
}

/// A new, empty cart: returns its handle, to pass as `cart` from now on
/// (the way to keep a cart where the server knows no user).
#[tool]
fn new_cart(state: UserState<Cart>) -> String {
    state.mint().to_string()
}

fn main() -> Result<(), mcp_runtime::Error> {
    Server::empty("cart", env!("CARGO_PKG_VERSION"))
        .tool(add_to_cart::Tool)
        .tool(show_cart::Tool)
        .tool(new_cart::Tool)
        .user_state(UserStore::memory(StateLimits::default()))
        .run_blocking()
}
