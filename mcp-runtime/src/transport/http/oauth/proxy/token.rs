//! `POST /token`: an authorization code redeemed once, by its client,
//! with the PKCE verifier and the redirect URI of its request; a refresh
//! token rotated (a reused one revokes its grant); the upstream tokens
//! refreshed when they have expired.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::authorize::same_resource;
use super::crypto;
use super::records::{self, Code, Grant, Refresh};
use super::router::{Proxy, oauth_error, single, unavailable};
use super::upstream::UpstreamTokens;

fn invalid_grant(why: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why)
}

/// `POST /token`.
pub(crate) async fn token(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let (client, form) = match super::clients::authenticated_form(&proxy, request).await {
        Ok(authenticated) => authenticated,
        Err(refused) => return refused,
    };
    let field = |name: &str| single(&form, name);
    let (Ok(grant_type), Ok(resource)) = (field("grant_type"), field("resource")) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "a parameter is repeated");
    };
    if let Some(resource) = resource
        && !same_resource(resource, &proxy.resource)
    {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_target", "the resource is not this server");
    }
    match grant_type {
        Some("authorization_code") => {
            let (Ok(Some(code)), Ok(redirect_uri), Ok(verifier)) =
                (field("code"), field("redirect_uri"), field("code_verifier"))
            else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "send one code");
            };
            redeem(&proxy, &client.client_id, code, redirect_uri, verifier).await
        }
        Some("refresh_token") => {
            let Ok(Some(refresh_token)) = field("refresh_token") else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "send one refresh_token");
            };
            let Ok(scope) = field("scope") else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "a parameter is repeated");
            };
            refresh(&proxy, &client.client_id, refresh_token, scope).await
        }
        Some(super::jag::JWT_BEARER) => {
            let (Ok(Some(assertion)), Ok(scope)) = (field("assertion"), field("scope")) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "send one assertion");
            };
            super::jag::exchange(&proxy, &client, assertion, scope).await
        }
        Some(_) => {
            oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "use authorization_code or refresh_token")
        }
        None => oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "send a grant_type"),
    }
}

async fn redeem(
    proxy: &Proxy,
    client_id: &str,
    code: &str,
    redirect_uri: Option<&str>,
    verifier: Option<&str>,
) -> Response {
    let key = format!("code:{}", crypto::hashed(code));
    // Marked used before anything is checked: a code gets one try.
    let old = records::swap::<_, Code>(&*proxy.store, &key, &Code::Used { grant: String::new() }).await;
    let (grant_id, expected_client, expected_redirect, challenge) = match old {
        Err(_) => return unavailable(),
        Ok(None) => return invalid_grant("the code is unknown or expired"),
        Ok(Some(Code::Used { grant })) => {
            // RFC 6749 §4.1.2: a code used twice revokes what it granted.
            if !grant.is_empty() {
                let _ = proxy.store.remove(&format!("grant:{grant}")).await;
            }
            tracing::warn!("an authorization code was presented twice; its grant is revoked");
            return invalid_grant("the code was already used");
        }
        Ok(Some(Code::Fresh { grant, client_id, redirect_uri, code_challenge })) => {
            (grant, client_id, redirect_uri, code_challenge)
        }
    };
    let _ = records::put(&*proxy.store, &key, &Code::Used { grant: grant_id.clone() }, super::callback::CODE_LIFETIME)
        .await;
    if expected_client != client_id {
        return invalid_grant("the code was issued to another client");
    }
    if redirect_uri != Some(expected_redirect.as_str()) {
        return invalid_grant("the redirect_uri is not the authorization request's");
    }
    let Some(verifier) = verifier.filter(|v| (43..=128).contains(&v.len())) else {
        return invalid_grant("send the PKCE code_verifier");
    };
    if !crypto::same(&crypto::s256(verifier), &challenge) {
        let _ = proxy.store.remove(&format!("grant:{grant_id}")).await;
        return invalid_grant("the code_verifier does not match the code_challenge");
    }
    let Ok(Some(grant)) = records::get::<Grant>(&*proxy.store, &format!("grant:{grant_id}")).await else {
        return invalid_grant("the grant was revoked");
    };
    super::issue::tokens(proxy, &grant_id, &grant, true).await
}

async fn refresh(proxy: &Proxy, client_id: &str, refresh_token: &str, scope: Option<&str>) -> Response {
    let key = format!("refresh:{}", crypto::hashed(refresh_token));
    let old = records::swap::<_, Refresh>(&*proxy.store, &key, &Refresh::Used { grant: String::new() }).await;
    let grant_id = match old {
        Err(_) => return unavailable(),
        Ok(None) => return invalid_grant("the refresh token is unknown, expired or revoked"),
        Ok(Some(Refresh::Used { grant })) => {
            // A rotated-away token used again: it leaked. End the grant,
            // so neither its holder nor the thief can go on (RFC 9700
            // §4.14.2).
            if !grant.is_empty() {
                let _ = proxy.store.remove(&format!("grant:{grant}")).await;
            }
            tracing::warn!("a refresh token was used again after rotation; its grant is revoked");
            return invalid_grant("the refresh token was already used");
        }
        Ok(Some(Refresh::Fresh { grant, client_id: owner })) => {
            let ttl = proxy.settings.refresh_lifetime;
            let _ = records::put(&*proxy.store, &key, &Refresh::Used { grant: grant.clone() }, ttl).await;
            if owner != client_id {
                return invalid_grant("the refresh token was issued to another client");
            }
            grant
        }
    };
    let grant_key = format!("grant:{grant_id}");
    let Ok(Some(mut grant)) = records::get::<Grant>(&*proxy.store, &grant_key).await else {
        return invalid_grant("the grant was revoked");
    };
    if let Some(scope) = scope
        && let Some(extra) = scope.split_ascii_whitespace().find(|s| !grant.scope.iter().any(|g| g == s))
    {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_scope", &format!("{extra:?} was not granted"));
    }
    if let Err(why) = refresh_upstream(proxy, &grant_id, &mut grant).await {
        tracing::info!(%why, "the upstream provider refused to refresh; the grant ends");
        let _ = proxy.store.remove(&grant_key).await;
        return invalid_grant("the sign-in at the identity provider has ended");
    }
    tracing::info!(client = %client_id, "refreshed a grant's tokens");
    super::issue::tokens(proxy, &grant_id, &grant, true).await
}

/// Refresh the grant's upstream tokens when they have expired (or will
/// within a minute) and the provider gave a refresh token.
async fn refresh_upstream(proxy: &Proxy, grant_id: &str, grant: &mut Grant) -> Result<(), String> {
    if grant.upstream.is_empty() {
        // A grant of an ID-JAG: no provider tokens to refresh.
        return Ok(());
    }
    let context = format!("grant:{grant_id}");
    let sealed = STANDARD.decode(&grant.upstream).map_err(|_| "the sealed tokens are not base64")?;
    let plain = proxy.keys.open(&sealed, &context).ok_or("the upstream tokens do not open with this secret")?;
    let tokens: UpstreamTokens = serde_json::from_slice(&plain).map_err(|_| "the upstream tokens are not JSON")?;
    let expiring = tokens.expires_at.is_some_and(|at| at <= super::now() + 60);
    if !expiring || tokens.refresh_token.is_none() {
        return Ok(());
    }
    let fresh = proxy.provider.refresh(&tokens).await?;
    let sealed = proxy.keys.seal(&serde_json::to_vec(&fresh).expect("tokens are JSON"), &context);
    grant.upstream = STANDARD.encode(sealed);
    Ok(())
}
