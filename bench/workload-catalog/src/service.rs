//! The catalog service's HTTP routes, answering as `api-service/main.go`
//! does: the same paths, defaults, arithmetic and JSON (Go's encoder: keys
//! in field order, numbers in Go's shortest form, a newline after the
//! value), and the same 404 and 400 texts.

use std::io;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use serde::Deserialize;
use tokio::net::TcpListener;

use crate::catalog::{Catalog, round_cents};
use crate::format::{go_f64, go_string};

/// Serve the catalog on `listener` until the process ends. Connections
/// get `TCP_NODELAY`, as Go's listeners give every connection.
pub async fn serve(listener: TcpListener, catalog: Arc<Catalog>) -> io::Result<()> {
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router(catalog)).await
}

/// The four routes, and Go's `404 page not found` for any other path.
pub fn router(catalog: Arc<Catalog>) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/products/search", get(search))
        .route("/products/{id}", get(product))
        .route("/cart/calculate", post(cart))
        .fallback(not_found)
        .with_state(catalog)
}

/// A JSON value as Go's `json.Encoder` sends it: the value, then a newline.
fn json(mut body: String) -> Response {
    body.push('\n');
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Go's `http.Error`: a plain-text line.
fn text_error(status: StatusCode, text: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8"), (header::X_CONTENT_TYPE_OPTIONS, "nosniff")], text)
        .into_response()
}

async fn not_found() -> Response {
    text_error(StatusCode::NOT_FOUND, "404 page not found\n")
}

async fn health() -> Response {
    // Go writes a map's keys sorted.
    json(r#"{"server_type":"api-service","status":"ok"}"#.to_owned())
}

/// `GET /products/search?category=&min_price=&max_price=&limit=`, with
/// Go's reading of each: a missing or unreadable number is 0, a
/// `max_price` of 0 is no maximum, a `limit` outside 1..=1000 is 10.
async fn search(State(catalog): State<Arc<Catalog>>, RawQuery(query): RawQuery) -> Response {
    let query = query.unwrap_or_default();
    // `url.Values.Get`: the first value of a key.
    let first = |key: &str| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    let mut category = first("category");
    if category.is_empty() {
        category = "Electronics".to_owned();
    }
    let min = first("min_price").parse::<f64>().unwrap_or(0.0);
    let mut max = first("max_price").parse::<f64>().unwrap_or(0.0);
    if max == 0.0 {
        max = f64::MAX;
    }
    let limit = first("limit").parse::<i64>().ok().filter(|l| (1..=1000).contains(l)).unwrap_or(10);
    let head = format!("{{\"category\":{},\"total_found\":", go_string(&category));
    let Some(found) = catalog.search(&category, min, max, limit as usize) else {
        return json(head + "0,\"products\":[]}");
    };
    let mut body = head + &found.total.to_string() + ",\"products\":";
    match found.products {
        None => body.push_str("null"),
        Some(products) => {
            body.push('[');
            for (at, product) in products.iter().enumerate() {
                if at > 0 {
                    body.push(',');
                }
                body.push_str(&product.json);
            }
            body.push(']');
        }
    }
    body.push('}');
    json(body)
}

/// `GET /products/{id}`: the product, or 404 for anything but 1 to 100,000.
async fn product(State(catalog): State<Arc<Catalog>>, Path(id): Path<String>) -> Response {
    match id.parse::<i64>().ok().and_then(|id| catalog.product(id)) {
        Some(product) => json(product.json.to_string()),
        None => not_found().await,
    }
}

/// The cart as Go decodes it: missing or `null` members are zero values,
/// unknown members are ignored.
#[derive(Deserialize, Default)]
#[serde(default)]
struct CartRequest {
    user_id: Option<String>,
    items: Option<Vec<Option<CartItem>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CartItem {
    product_id: Option<i64>,
    quantity: Option<i64>,
}

/// `POST /cart/calculate`: the order's subtotal, 8.5% tax, shipping (5.99,
/// free from 100.00, which also gets 10% off) and total, each in cents.
async fn cart(State(catalog): State<Arc<Catalog>>, body: Bytes) -> Response {
    // `json.Decoder.Decode`: the first JSON value; what follows is not read.
    let request = match serde_json::Deserializer::from_slice(&body).into_iter::<CartRequest>().next() {
        Some(Ok(request)) => request,
        _ => return text_error(StatusCode::BAD_REQUEST, "bad request\n"),
    };
    let items = request.items.unwrap_or_default();
    let mut subtotal = 0.0;
    for item in items.iter().flatten() {
        let Some(price) = catalog.price(item.product_id.unwrap_or(0)) else { continue };
        subtotal += price * item.quantity.unwrap_or(0) as f64;
    }
    let subtotal = round_cents(subtotal);
    let tax = round_cents(subtotal * 0.085);
    let (mut shipping, mut discount) = (5.99, 0.0);
    if subtotal >= 100.0 {
        discount = round_cents(subtotal * 0.10);
        shipping = 0.0;
    }
    let total = round_cents(subtotal + tax + shipping - discount);
    let user_id = request.user_id.unwrap_or_default();
    let order_id = format!("ORD-{}-{}", user_id.replace('-', ""), items.len());
    json(format!(
        "{{\"order_id\":{},\"user_id\":{},\"subtotal\":{},\"tax\":{},\"shipping\":{},\"discount\":{},\"total\":{},\
         \"items_count\":{}}}",
        go_string(&order_id),
        go_string(&user_id),
        go_f64(subtotal),
        go_f64(tax),
        go_f64(shipping),
        go_f64(discount),
        go_f64(total),
        items.len()
    ))
}
