//! What the proxy keeps in its store, one type per kind of record, and
//! the typed reads and writes of them.

use std::time::Duration;

use mcp_core::JsonObject;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::store::ProxyStore;

/// A registered client (dynamically, pre-registered, or from its
/// metadata document, kept for a while).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct Client {
    pub(crate) client_id: String,
    pub(crate) redirect_uris: Vec<String>,
    #[serde(default)]
    pub(crate) client_name: Option<String>,
    /// The hash of its secret, for a confidential client.
    #[serde(default)]
    pub(crate) secret_hash: Option<String>,
    /// From a client ID metadata document (shown as its host).
    #[serde(default)]
    pub(crate) metadata_document: bool,
}

/// One sign-in, from `/authorize` to the provider's callback.
#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct Transaction {
    pub(crate) client_id: String,
    pub(crate) redirect_uri: String,
    pub(crate) state: Option<String>,
    pub(crate) code_challenge: String,
    pub(crate) scope: Vec<String>,
    pub(crate) resource: String,
    /// The form's anti-forgery token.
    pub(crate) csrf: String,
    /// The browser's binding cookie: the consent form and the callback
    /// must come from the browser that began.
    pub(crate) browser: String,
    /// The PKCE verifier and nonce of the upstream request, once consented.
    #[serde(default)]
    pub(crate) upstream_verifier: String,
    #[serde(default)]
    pub(crate) nonce: String,
    pub(crate) expires_at: u64,
}

/// An authorization code: fresh, or used (a second use revokes the
/// grant it made, RFC 6749 §4.1.2).
#[derive(Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum Code {
    Fresh { grant: String, client_id: String, redirect_uri: String, code_challenge: String },
    Used { grant: String },
}

/// A refresh token: fresh, or rotated away (presenting it again is reuse:
/// the grant is revoked, RFC 9700 §4.14.2).
#[derive(Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum Refresh {
    Fresh { grant: String, client_id: String },
    Used { grant: String },
}

/// What a user allowed a client: the identity, scopes and resource its
/// tokens carry, and the provider's tokens, sealed.
#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct Grant {
    pub(crate) client_id: String,
    pub(crate) subject: String,
    pub(crate) claims: JsonObject,
    pub(crate) scope: Vec<String>,
    pub(crate) resource: String,
    /// base64 of the sealed [`UpstreamTokens`](super::upstream::UpstreamTokens).
    pub(crate) upstream: String,
}

/// Why the store could not be used: the request is answered "temporarily
/// unavailable", and the reason logged.
pub(crate) struct Unavailable;

pub(crate) async fn put<T: Serialize>(
    store: &dyn ProxyStore,
    key: &str,
    value: &T,
    ttl: Duration,
) -> Result<(), Unavailable> {
    let bytes = serde_json::to_vec(value).expect("records are JSON");
    store.put(key, &bytes, ttl).await.map_err(logged)
}

pub(crate) async fn get<T: DeserializeOwned>(store: &dyn ProxyStore, key: &str) -> Result<Option<T>, Unavailable> {
    Ok(store.get(key).await.map_err(logged)?.and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

pub(crate) async fn remove<T: DeserializeOwned>(store: &dyn ProxyStore, key: &str) -> Result<Option<T>, Unavailable> {
    Ok(store.remove(key).await.map_err(logged)?.and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

pub(crate) async fn swap<T: Serialize, O: DeserializeOwned>(
    store: &dyn ProxyStore,
    key: &str,
    value: &T,
) -> Result<Option<O>, Unavailable> {
    let bytes = serde_json::to_vec(value).expect("records are JSON");
    Ok(store.swap(key, &bytes).await.map_err(logged)?.and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

fn logged(error: super::super::super::store::StoreError) -> Unavailable {
    tracing::warn!(%error, "the OAuth proxy's store failed");
    Unavailable
}
