//! The upstream provider's redirect back: the sign-in found by its state
//! (once: a replayed or forged state finds nothing) and checked to come
//! from the browser that began it, the provider's code exchanged with the
//! sign-in's PKCE verifier, the grant recorded with the provider's tokens
//! sealed, and the client sent its own code.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::authorize::client_redirect;
use super::crypto;
use super::pages;
use super::records::{self, Code, Grant, Transaction};
use super::router::{Proxy, pairs, redirect, single, wrong_method};

/// How long the client has to redeem its code.
pub(crate) const CODE_LIFETIME: Duration = Duration::from_secs(120);

/// `GET {callback_path}`.
pub(crate) async fn callback(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    if request.method() != Method::GET {
        return wrong_method("GET");
    }
    let query = pairs(request.uri().query().unwrap_or("").as_bytes());
    let unknown = || {
        pages::error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "this sign-in is unknown, expired or already completed",
        )
    };
    let Ok(Some(state)) = single(&query, "state") else { return unknown() };
    let key = format!("upstream:{}", crypto::hashed(state));
    let transaction = match records::remove::<Transaction>(&*proxy.store, &key).await {
        Ok(Some(transaction)) => transaction,
        Ok(None) => {
            tracing::info!("refused a sign-in callback with an unknown or used state");
            return unknown();
        }
        Err(_) => return pages::error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "retry later"),
    };
    let browser = pages::browser_of(request.headers());
    if !browser.as_deref().is_some_and(|b| crypto::same(b, &transaction.browser)) {
        tracing::info!("refused a sign-in callback in another browser than the one that began it");
        return pages::error(StatusCode::FORBIDDEN, "access_denied", "this sign-in was begun in another browser");
    }
    if transaction.expires_at <= super::now() {
        return unknown();
    }
    let back = |params: &[(&str, &str)]| {
        redirect(&client_redirect(&proxy, &transaction.redirect_uri, params, transaction.state.as_deref()))
    };
    let Ok(Some(code)) = single(&query, "code") else {
        let error = single(&query, "error").ok().flatten().unwrap_or("no code");
        tracing::info!(error, "the upstream provider did not sign the user in");
        return back(&[
            ("error", "access_denied"),
            ("error_description", "the sign-in at the identity provider failed"),
        ]);
    };
    let redirect_uri = proxy.url(&proxy.settings.callback_path);
    let exchanged =
        proxy.provider.exchange(code, &redirect_uri, &transaction.upstream_verifier, &transaction.nonce).await;
    let (tokens, claims) = match exchanged {
        Ok(done) => done,
        Err(why) => {
            tracing::warn!(%why, "could not complete the sign-in at the upstream provider");
            return back(&[
                ("error", "server_error"),
                ("error_description", "the identity provider's answer was refused"),
            ]);
        }
    };
    let subject = match claims.get(&proxy.settings.upstream.subject_claim) {
        Some(Value::String(subject)) if !subject.is_empty() => subject.clone(),
        Some(Value::Number(number)) => number.to_string(),
        _ => {
            tracing::warn!(claim = %proxy.settings.upstream.subject_claim, "the provider named no subject");
            return back(&[("error", "server_error"), ("error_description", "the identity provider named no user")]);
        }
    };
    let grant_id = crypto::token();
    let sealed = proxy.keys.seal(&serde_json::to_vec(&tokens).expect("tokens are JSON"), &format!("grant:{grant_id}"));
    let grant = Grant {
        client_id: transaction.client_id.clone(),
        subject,
        claims: copied_claims(&proxy.settings.upstream.claims, &claims),
        scope: transaction.scope.clone(),
        resource: transaction.resource.clone(),
        upstream: STANDARD.encode(sealed),
    };
    let our_code = crypto::token();
    let record = Code::Fresh {
        grant: grant_id.clone(),
        client_id: transaction.client_id.clone(),
        redirect_uri: transaction.redirect_uri.clone(),
        code_challenge: transaction.code_challenge.clone(),
    };
    let stored =
        records::put(&*proxy.store, &format!("grant:{grant_id}"), &grant, proxy.settings.refresh_lifetime).await;
    let code_key = format!("code:{}", crypto::hashed(&our_code));
    if stored.is_err() || records::put(&*proxy.store, &code_key, &record, CODE_LIFETIME).await.is_err() {
        return back(&[("error", "temporarily_unavailable"), ("error_description", "retry later")]);
    }
    tracing::info!(client = %transaction.client_id, "a user signed in through the upstream provider");
    back(&[("code", &our_code)])
}

/// Claims the proxy sets itself: never taken from upstream.
const RESERVED: [&str; 12] =
    ["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "scope", "scp", "client_id", "azp", "sid"];

/// The upstream claims named in `wanted`, but none the proxy sets itself.
fn copied_claims(wanted: &[String], claims: &mcp_core::JsonObject) -> mcp_core::JsonObject {
    wanted
        .iter()
        .filter(|name| !RESERVED.contains(&name.as_str()))
        .filter_map(|name| claims.get(name).map(|value| (name.clone(), value.clone())))
        .collect()
}
