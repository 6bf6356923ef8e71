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
    let Ok(bytes) = serde_json::to_vec(message) else { return StatusCode::INTERNAL_SERVER_ERROR.into_response() };
    // Built in place (every answer comes through here): a static header
    // value is not parsed again for each one.
    let mut response = Response::new(axum::body::Body::from(bytes));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// The status, the value of `header` and the JSON body of a refusal.
    async fn read(response: Response, header: &str) -> (StatusCode, Option<String>, Value) {
        let status = response.status();
        let content_type = response.headers().get(CONTENT_TYPE).cloned();
        assert_eq!(content_type, Some(HeaderValue::from_static("application/json")), "every refusal is JSON");
        let header = response.headers().get(header).map(|v| v.to_str().unwrap().to_owned());
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, header, serde_json::from_slice(&body).unwrap())
    }

    #[tokio::test]
    async fn a_forbidden_request_is_a_403_naming_the_check_and_no_challenge() {
        let (status, challenge, body) = read(refused(Refusal::Forbidden("origin")), "www-authenticate").await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert_eq!(challenge, None);
        assert_eq!(
            body,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Forbidden: origin"}})
        );
    }

    #[tokio::test]
    async fn a_missing_token_is_challenged_plainly_and_a_wrong_one_as_invalid() {
        let missing = read(refused(Refusal::Unauthorized { presented: false }), "www-authenticate").await;
        assert_eq!((missing.0, missing.1.as_deref()), (StatusCode::UNAUTHORIZED, Some("Bearer")));
        let wrong = read(refused(Refusal::Unauthorized { presented: true }), "www-authenticate").await;
        assert_eq!((wrong.0, wrong.1.as_deref()), (StatusCode::UNAUTHORIZED, Some(r#"Bearer error="invalid_token""#)));
        assert_eq!(wrong.2["error"]["message"], "Unauthorized");
    }

    #[tokio::test]
    async fn a_request_without_a_session_is_answered_under_its_own_id() {
        let (status, _, body) = read(missing_session(Some(mcp_core::RequestId::Number(7))), "retry-after").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["id"], 7);
        assert_eq!(body["error"]["code"], mcp_core::codes::INVALID_REQUEST);
        let (_, _, body) = read(missing_session(None), "retry-after").await;
        assert_eq!(body["id"], Value::Null);
    }

    #[tokio::test]
    async fn an_unknown_session_is_a_404_with_our_code_and_a_full_server_asks_for_a_retry() {
        let (status, retry, body) = read(session_not_found(), "retry-after").await;
        assert_eq!((status, retry), (StatusCode::NOT_FOUND, None), "an ended session does not come back");
        assert_eq!(body["error"]["code"], -32001, "the code clients know it by");
        let (status, retry, _) = read(too_many_sessions(), "retry-after").await;
        assert_eq!((status, retry.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, Some("5")));
    }
}
