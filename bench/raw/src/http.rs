//! The HTTP floor: hyper's HTTP/1.1 server answering each POSTed JSON-RPC
//! message, with no MCP logic: `initialize` gets a result and a fixed
//! `Mcp-Session-Id`, a notification gets 202, a `calculator` call gets the
//! same JSON result as every peer's. TCP_NODELAY is on.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

pub fn serve(addr: &str) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        eprintln!("bench-raw: serving at http://{}/mcp", listener.local_addr()?);
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            tokio::spawn(async move {
                let service = hyper::service::service_fn(answer);
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    })
}

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(status(StatusCode::BAD_REQUEST)),
    };
    let Ok(message) = serde_json::from_slice::<Value>(&body) else { return Ok(status(StatusCode::BAD_REQUEST)) };
    let Some(id) = message.get("id") else { return Ok(status(StatusCode::ACCEPTED)) };
    let params = &message["params"];
    let (result, session) = match message["method"].as_str().unwrap_or_default() {
        "initialize" => (
            json!({"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "bench-raw", "version": "1.0.0"}}),
            true,
        ),
        "tools/call" => (super::call(params), false),
        _ => (json!({}), false),
    };
    let bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap_or_default();
    let mut response = Response::builder().header("content-type", "application/json");
    if session {
        response = response.header("mcp-session-id", "raw");
    }
    Ok(response.body(Full::new(Bytes::from(bytes))).unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR)))
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}
