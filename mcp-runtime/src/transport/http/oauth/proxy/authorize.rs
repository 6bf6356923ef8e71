//! `/authorize` and the consent form: the client's request checked (its
//! redirect URI exactly, PKCE S256, the resource, the scopes), the user
//! asked whether this client may act for them, and on approval sent to
//! the upstream provider with a state, a PKCE verifier and a nonce of
//! this sign-in's own.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use reqwest::Url;

use super::crypto;
use super::pages::{self, Consent};
use super::records::{self, Client, Transaction};
use super::router::{Proxy, pairs, redirect, single, wrong_method};

/// `GET /authorize`.
pub(crate) async fn authorize(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    if request.method() != Method::GET {
        return wrong_method("GET");
    }
    let query = pairs(request.uri().query().unwrap_or("").as_bytes());
    // Until the client and its redirect URI are known good, errors are
    // shown, never redirected (RFC 6749 §4.1.2.1: no open redirector).
    let bad = |why: &str| pages::error(StatusCode::BAD_REQUEST, "invalid_request", why);
    let client_id = match single(&query, "client_id") {
        Ok(Some(id)) => id,
        Ok(None) => return bad("the request names no client_id"),
        Err(why) => return bad(&why),
    };
    let client = match super::clients::find(&proxy, client_id).await {
        Err(unavailable) => return unavailable,
        Ok(None) => {
            return pages::error(StatusCode::BAD_REQUEST, "invalid_client", "the client is not registered here");
        }
        Ok(Some(client)) => client,
    };
    let redirect_uri = match single(&query, "redirect_uri") {
        Ok(Some(uri)) if super::clients::redirect_matches(&client, uri) => uri.to_owned(),
        Ok(Some(_)) => return bad("the redirect_uri is not one the client registered"),
        Ok(None) if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        Ok(None) => return bad("the request names no redirect_uri"),
        Err(why) => return bad(&why),
    };
    let state = single(&query, "state").ok().flatten().map(str::to_owned);
    let back = |error: &str, description: &str| {
        redirect(&client_redirect(
            &proxy,
            &redirect_uri,
            &[("error", error), ("error_description", description)],
            state.as_deref(),
        ))
    };
    let field = |name: &str| single(&query, name);
    let (Ok(response_type), Ok(challenge), Ok(method), Ok(resource), Ok(scope), Ok(_)) = (
        field("response_type"),
        field("code_challenge"),
        field("code_challenge_method"),
        field("resource"),
        field("scope"),
        field("state"),
    ) else {
        return back("invalid_request", "a parameter is repeated");
    };
    if response_type != Some("code") {
        return back("unsupported_response_type", "only the code response type is supported");
    }
    let Some(challenge) = challenge.filter(|c| (43..=128).contains(&c.len())) else {
        return back("invalid_request", "PKCE is required: send a code_challenge (S256)");
    };
    if method != Some("S256") {
        return back("invalid_request", "the code_challenge_method must be S256");
    }
    if let Some(resource) = resource
        && !same_resource(resource, &proxy.resource)
    {
        return back("invalid_target", "the resource is not this server");
    }
    let scope = match granted_scopes(&proxy.settings.scopes_supported, scope) {
        Ok(scope) => scope,
        Err(why) => return back("invalid_scope", &why),
    };
    let browser = pages::browser_of(request.headers()).unwrap_or_else(crypto::token);
    let lifetime = proxy.settings.transaction_lifetime;
    let transaction = Transaction {
        client_id: client.client_id.clone(),
        redirect_uri: redirect_uri.clone(),
        state,
        code_challenge: challenge.to_owned(),
        scope,
        resource: proxy.resource.clone(),
        csrf: crypto::token(),
        browser: browser.clone(),
        upstream_verifier: String::new(),
        nonce: String::new(),
        expires_at: super::now() + lifetime.as_secs(),
    };
    let id = crypto::token();
    if records::put(&*proxy.store, &format!("tx:{}", crypto::hashed(&id)), &transaction, lifetime).await.is_err() {
        return pages::error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "retry later");
    }
    let redirect_host = Url::parse(&redirect_uri).ok().and_then(|u| u.host_str().map(str::to_owned));
    let page = Consent {
        client: &display_name(&client),
        client_id: &client.client_id,
        redirect_host: redirect_host.as_deref().unwrap_or(&redirect_uri),
        scopes: &transaction.scope,
        provider: &proxy.settings.upstream.name,
        action: &proxy.path("/oauth/consent"),
        transaction: &id,
        csrf: &transaction.csrf,
    };
    pages::consent(&page, &pages::browser_cookie(&browser, proxy.secure(), lifetime.as_secs()))
}

/// `POST /oauth/consent`: the user's answer.
pub(crate) async fn consent(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let browser = pages::browser_of(request.headers());
    let form = match super::router::form_body(request).await {
        Ok(form) => form,
        Err(refused) => return refused,
    };
    let gone =
        || pages::error(StatusCode::BAD_REQUEST, "invalid_request", "this sign-in has expired or was already answered");
    let (Ok(Some(id)), Ok(Some(csrf)), Ok(decision)) =
        (single(&form, "transaction"), single(&form, "csrf"), single(&form, "decision"))
    else {
        return gone();
    };
    // Taken, so a form is answered once.
    let key = format!("tx:{}", crypto::hashed(id));
    let Ok(Some(mut transaction)) = records::remove::<Transaction>(&*proxy.store, &key).await else { return gone() };
    let same_browser = browser.as_deref().is_some_and(|b| crypto::same(b, &transaction.browser));
    if !same_browser || !crypto::same(csrf, &transaction.csrf) || transaction.expires_at <= super::now() {
        tracing::info!("refused a consent form from another browser, or forged");
        return pages::error(
            StatusCode::FORBIDDEN,
            "access_denied",
            "this form does not belong to this browser's sign-in",
        );
    }
    if decision != Some("approve") {
        let denied = [("error", "access_denied"), ("error_description", "the user denied the request")];
        return redirect(&client_redirect(&proxy, &transaction.redirect_uri, &denied, transaction.state.as_deref()));
    }
    let upstream_state = crypto::token();
    transaction.upstream_verifier = crypto::token();
    transaction.nonce = crypto::token();
    let left = Duration::from_secs(transaction.expires_at.saturating_sub(super::now()));
    let key = format!("upstream:{}", crypto::hashed(&upstream_state));
    if records::put(&*proxy.store, &key, &transaction, left).await.is_err() {
        return pages::error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "retry later");
    }
    let url = proxy.settings.upstream.authorization_url(
        &proxy.url(&proxy.settings.callback_path),
        &upstream_state,
        &crypto::s256(&transaction.upstream_verifier),
        &transaction.nonce,
    );
    redirect(&url)
}

/// The client's redirect URI with `params`, its `state` and our `iss`
/// (RFC 9207) added.
pub(crate) fn client_redirect(
    proxy: &Proxy,
    redirect_uri: &str,
    params: &[(&str, &str)],
    state: Option<&str>,
) -> String {
    let Ok(mut url) = Url::parse(redirect_uri) else { return redirect_uri.to_owned() };
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in params {
            query.append_pair(name, value);
        }
        if let Some(state) = state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", &proxy.settings.issuer);
    }
    url.to_string()
}

/// The name the consent page shows: the client's own, and for a metadata
/// document its host, which the client cannot choose freely.
fn display_name(client: &Client) -> String {
    let host = Url::parse(&client.client_id).ok().and_then(|u| u.host_str().map(str::to_owned));
    match (&client.client_name, client.metadata_document.then_some(host).flatten()) {
        (Some(name), Some(host)) => format!("{name} ({host})"),
        (None, Some(host)) => host,
        (Some(name), None) => format!("{name} (unverified)"),
        (None, None) => "an unnamed client".into(),
    }
}

/// Whether `asked` names `ours` (compared in canonical form: case of
/// scheme and host, default port and a trailing slash do not matter).
pub(crate) fn same_resource(asked: &str, ours: &str) -> bool {
    asked == ours || super::super::canonical(asked).is_some_and(|a| Some(a) == super::super::canonical(ours))
}

/// The scopes a request gets: those it asks for that this server
/// supports (others, such as `offline_access`, are left out, as RFC 6749
/// §3.3 lets an authorization server do); all supported ones if it asks
/// for none.
fn granted_scopes(supported: &[String], asked: Option<&str>) -> Result<Vec<String>, String> {
    let Some(asked) = asked else { return Ok(supported.to_vec()) };
    let mut scopes: Vec<String> = Vec::new();
    for scope in asked.split_ascii_whitespace() {
        if crate::request::claims::scope_problem(scope).is_some() {
            return Err(format!("{scope:?} is not a valid scope"));
        }
        if supported.iter().any(|s| s == scope) && !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
    Ok(scopes)
}
