//! Tokens of the proxy's own: a short-lived access token (a JWT signed
//! with the proxy's key, `aud` the resource, `sub` the upstream subject,
//! `sid` its grant) and a refresh token that rotates at each use.

use axum::http::StatusCode;
use axum::response::Response;
use jsonwebtoken::{Algorithm, Header};
use serde_json::{Value, json};

use super::crypto;
use super::records::{self, Grant, Refresh};
use super::router::{Proxy, json_answer, unavailable};

/// The token response for `grant`, with a new refresh token; the grant's
/// lifetime starts again.
pub(crate) async fn tokens(proxy: &Proxy, grant_id: &str, grant: &Grant, refresh: bool) -> Response {
    let lifetime = proxy.settings.access_lifetime.as_secs();
    let now = super::now();
    let mut claims = grant.claims.clone();
    let fixed = json!({
        "iss": proxy.settings.issuer,
        "sub": grant.subject,
        "aud": grant.resource,
        "client_id": grant.client_id,
        "iat": now,
        "exp": now + lifetime,
        "jti": crypto::token(),
        "sid": grant_id,
    });
    if let Value::Object(fixed) = fixed {
        claims.extend(fixed);
    }
    if !grant.scope.is_empty() {
        claims.insert("scope".into(), grant.scope.join(" ").into());
    }
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(proxy.keys.kid.clone());
    header.typ = Some("at+jwt".into());
    let Ok(access_token) = jsonwebtoken::encode(&header, &claims, &proxy.keys.signing) else {
        tracing::error!("could not sign an access token");
        return unavailable();
    };
    let mut answer = json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": lifetime,
    });
    // Without a refresh token the grant lives as long as its access token.
    let mut ttl = proxy.settings.access_lifetime;
    if refresh {
        let refresh_token = crypto::token();
        let record = Refresh::Fresh { grant: grant_id.to_owned(), client_id: grant.client_id.clone() };
        ttl = proxy.settings.refresh_lifetime;
        let key = format!("refresh:{}", crypto::hashed(&refresh_token));
        if records::put(&*proxy.store, &key, &record, ttl).await.is_err() {
            return unavailable();
        }
        answer["refresh_token"] = refresh_token.into();
    }
    if records::put(&*proxy.store, &format!("grant:{grant_id}"), grant, ttl).await.is_err() {
        return unavailable();
    }
    if !grant.scope.is_empty() {
        answer["scope"] = grant.scope.join(" ").into();
    }
    json_answer(StatusCode::OK, &answer)
}
