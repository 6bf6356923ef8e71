//! An axum REST service that also serves its routes as MCP tools, called
//! in process: the handlers are described once with utoipa (`#[utoipa::path]`
//! and its `OpenApiRouter`), which yields the router and its OpenAPI
//! document together; the MCP server calls the router as a tower service,
//! with no socket between them. The REST routes and the MCP endpoint
//! (`/mcp`) share one listener.
//!
//! ```sh
//! cargo run --example axum_api                  # REST and MCP on 127.0.0.1:8080
//! cargo run --example axum_api -- --stdio       # the MCP side over stdio
//! ```

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use mcp_runtime::Server;
use mcp_runtime::openapi::OpenApi;
use mcp_runtime::transport::HttpOptions;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// A thing to do.
#[derive(Clone, Serialize, ToSchema)]
struct Todo {
    id: usize,
    title: String,
    done: bool,
}

/// What a new todo needs.
#[derive(Deserialize, ToSchema)]
struct NewTodo {
    /// What is to be done.
    title: String,
}

/// Every todo.
#[derive(Serialize, ToSchema)]
struct Todos {
    todos: Vec<Todo>,
}

type Store = Arc<Mutex<Vec<Todo>>>;

/// List the todos.
#[utoipa::path(get, path = "/todos", operation_id = "list_todos", responses((status = 200, body = Todos)))]
async fn list_todos(State(store): State<Store>) -> Json<Todos> {
    Json(Todos { todos: store.lock().unwrap().clone() })
}

/// Add a todo.
#[utoipa::path(post, path = "/todos", operation_id = "add_todo", request_body = NewTodo,
    responses((status = 201, body = Todo)))]
async fn add_todo(State(store): State<Store>, Json(new): Json<NewTodo>) -> (StatusCode, Json<Todo>) {
    let mut todos = store.lock().unwrap();
    let todo = Todo { id: todos.len(), title: new.title, done: false };
    todos.push(todo.clone());
    (StatusCode::CREATED, Json(todo))
}

/// Mark a todo done.
#[utoipa::path(post, path = "/todos/{id}/done", operation_id = "finish_todo",
    params(("id" = usize, Path, description = "The todo's id")),
    responses((status = 200, body = Todo), (status = 404, description = "No such todo")))]
async fn finish_todo(State(store): State<Store>, Path(id): Path<usize>) -> Result<Json<Todo>, (StatusCode, String)> {
    let mut todos = store.lock().unwrap();
    let todo = todos.get_mut(id).ok_or((StatusCode::NOT_FOUND, format!("no todo {id}")))?;
    todo.done = true;
    Ok(Json(todo.clone()))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (router, document) = OpenApiRouter::new()
        .routes(routes!(list_todos, add_todo))
        .routes(routes!(finish_todo))
        .with_state(Store::default())
        .split_for_parts();
    // The same router serves REST and, in process, the MCP tools.
    let server = Server::from_openapi(&OpenApi::from_router(router.clone(), &document)?)?;
    if std::env::args().any(|a| a == "--stdio") {
        server.serve_stdio().await?;
        return Ok(());
    }
    let app = router.merge(server.http_router(HttpOptions::new())?);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    eprintln!("REST on http://{0}/todos, MCP on http://{0}/mcp", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}
