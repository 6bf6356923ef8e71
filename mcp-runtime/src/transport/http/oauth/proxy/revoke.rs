//! `POST /revoke` (RFC 7009): a refresh token or an access token of the
//! proxy ends its whole grant, so every token of that sign-in stops
//! working at once (the resource server checks the grant on each
//! request).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Value, json};

use super::crypto;
use super::records::{self, Refresh};
use super::router::{Proxy, json_answer, oauth_error, single, unavailable};

/// `POST /revoke`.
pub(crate) async fn revoke(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let (client, form) = match super::clients::authenticated_form(&proxy, request).await {
        Ok(authenticated) => authenticated,
        Err(refused) => return refused,
    };
    let Ok(Some(token)) = single(&form, "token") else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "send one token");
    };
    let grant = match records::get::<Refresh>(&*proxy.store, &format!("refresh:{}", crypto::hashed(token))).await {
        Err(_) => return unavailable(),
        Ok(Some(Refresh::Fresh { grant, client_id })) => Some((grant, Some(client_id))),
        Ok(Some(Refresh::Used { grant })) => Some((grant, None)),
        Ok(None) => access_token_grant(&proxy, token),
    };
    if let Some((grant, owner)) = grant {
        let key = format!("grant:{grant}");
        let owner = match owner {
            Some(owner) => Some(owner),
            None => records::get::<records::Grant>(&*proxy.store, &key).await.ok().flatten().map(|g| g.client_id),
        };
        // RFC 7009 §2.1: only the client a token was issued to may revoke it.
        if owner.is_some_and(|owner| owner != client.client_id) {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unauthorized_client",
                "the token was issued to another client",
            );
        }
        if proxy.store.remove(&key).await.is_err() {
            return unavailable();
        }
        tracing::info!(client = %client.client_id, "a grant was revoked");
    }
    // An unknown or already invalid token: nothing to do, and the client
    // learns nothing (RFC 7009 §2.2).
    json_answer(StatusCode::OK, &json!({}))
}

/// The grant and client of an access token the proxy signed (expired ones
/// too: revoking one still ends its grant).
fn access_token_grant(proxy: &Proxy, token: &str) -> Option<(String, Option<String>)> {
    let mut validation = Validation::new(Algorithm::EdDSA);
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.set_required_spec_claims::<&str>(&[]);
    validation.set_issuer(&[&proxy.settings.issuer]);
    let claims =
        jsonwebtoken::decode::<serde_json::Map<String, Value>>(token, &proxy.keys.verifying, &validation).ok()?.claims;
    let grant = claims.get("sid")?.as_str()?.to_owned();
    let client = claims.get("client_id").and_then(Value::as_str).map(str::to_owned);
    Some((grant, client))
}
