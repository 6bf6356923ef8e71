//! The proxy's public documents: its authorization server metadata
//! (RFC 8414) and the key set its tokens verify with (RFC 7517).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use serde_json::json;

use super::router::{Proxy, json_answer, wrong_method};

/// `GET /.well-known/oauth-authorization-server`.
pub(crate) async fn authorization_server(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return wrong_method("GET, HEAD");
    }
    let mut document = json!({
        "issuer": proxy.settings.issuer,
        "authorization_endpoint": proxy.url("/authorize"),
        "token_endpoint": proxy.url("/token"),
        "revocation_endpoint": proxy.url("/revoke"),
        "jwks_uri": proxy.url("/jwks"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
    });
    if proxy.idps.any() {
        document["grant_types_supported"] = json!(["authorization_code", "refresh_token", super::jag::JWT_BEARER]);
    }
    if proxy.settings.registration {
        document["registration_endpoint"] = proxy.url("/register").into();
    }
    if !proxy.settings.scopes_supported.is_empty() {
        document["scopes_supported"] = json!(proxy.settings.scopes_supported);
    }
    json_answer(StatusCode::OK, &document)
}

/// `GET /jwks`: the public key of the proxy's tokens.
pub(crate) async fn jwks(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return wrong_method("GET, HEAD");
    }
    json_answer(StatusCode::OK, &json!({"keys": [proxy.keys.jwk]}))
}
