//! The endpoint's fixed refusals and the JSON-RPC bodies every handler
//! (the OAuth checks among them) answers with.

use axum::http::header::{CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_core::ErrorObject;

use super::guard::Refusal;
use crate::dispatch::reply::Answer;

/// Our code for "no such session" (the implementation-defined range).
const SESSION_NOT_FOUND: i64 = -32001;

pub(super) fn refused(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Forbidden(why) => {
            error_response(StatusCode::FORBIDDEN, ErrorObject::new(-32000, format!("Forbidden: {why}")))
        }
        Refusal::Unauthorized { presented } => {
            let challenge = if presented { r#"Bearer error="invalid_token""# } else { "Bearer" };
            let mut response = error_response(StatusCode::UNAUTHORIZED, ErrorObject::new(-32000, "Unauthorized"));
            response.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
            response
        }
    }
}

/// A request that needs a session came without one; `id` is the
/// request's, when there is one to answer.
pub(super) fn missing_session(id: Option<mcp_core::RequestId>) -> Response {
    let error = ErrorObject::invalid_request("missing Mcp-Session-Id header: start a session with `initialize`");
    json_response(StatusCode::BAD_REQUEST, &Answer::error(id, error))
}

pub(super) fn session_not_found() -> Response {
    let error = ErrorObject::new(
        SESSION_NOT_FOUND,
        "session not found (it ended or never existed): start a new one with `initialize`",
    );
    error_response(StatusCode::NOT_FOUND, error)
}

pub(super) fn too_many_sessions() -> Response {
    let error = ErrorObject::new(-32000, "the server has too many open sessions; retry later");
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, error);
    response.headers_mut().insert("retry-after", HeaderValue::from_static("5"));
    response
}

pub(crate) fn error_response(status: StatusCode, error: ErrorObject) -> Response {
    json_response(status, &Answer::error(None, error))
}

pub(crate) fn json_response(status: StatusCode, message: &impl serde::Serialize) -> Response {
    match serde_json::to_vec(message) {
        Ok(bytes) => (status, [(CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}
