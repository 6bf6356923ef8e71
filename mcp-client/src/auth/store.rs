//! Where tokens live between connections.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::registration::ClientCredentials;
use crate::Error;

/// Everything needed to use and refresh a server's token without asking
/// the user again: the token, where it came from and for what.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredTokens {
    /// The bearer token sent to the server.
    pub access_token: String,
    /// The token that gets a new access token without the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes asked for.
    #[serde(default)]
    pub requested_scopes: Vec<String>,
    /// The scopes granted, when the authorization server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_scopes: Option<Vec<String>>,
    /// The authorization server that issued the token: a token is only
    /// refreshed there, and a server that moved to another one gets a new
    /// authorization (SEP-2352).
    pub issuer: String,
    /// Where to refresh.
    pub token_endpoint: String,
    /// The `resource` the token was asked for (RFC 8707).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The client's identity at `issuer`, for refreshing and for the next
    /// authorization there.
    pub client: ClientCredentials,
    /// The thumbprint of the DPoP key the token is bound to (`token_type`
    /// DPoP, RFC 9449): it is presented with a proof from that key, and is
    /// useless to any other. The key itself is never stored: an OAuth
    /// client with another key gets new tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_jkt: Option<String>,
}

impl StoredTokens {
    /// The scopes the token is known to carry: the granted ones when the
    /// server said, else the requested ones (RFC 6749 §5.1: an omitted
    /// `scope` means as requested).
    pub fn scopes(&self) -> &[String] {
        self.granted_scopes.as_deref().unwrap_or(&self.requested_scopes)
    }

    /// Whether the access token expires within `margin` seconds of `now`.
    pub(crate) fn expiring(&self, now: u64, margin: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now.saturating_add(margin))
    }
}

impl fmt::Debug for StoredTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredTokens")
            .field("access_token", &"<redacted>")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "<redacted>"))
            .field("expires_at", &self.expires_at)
            .field("requested_scopes", &self.requested_scopes)
            .field("granted_scopes", &self.granted_scopes)
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("resource", &self.resource)
            .field("client", &self.client)
            .field("dpop_jkt", &self.dpop_jkt)
            .finish()
    }
}

/// Keeps tokens so a reconnect, or the next run of the application, does
/// not send the user through the authorization server again. Keyed by
/// the MCP server's URL. Tokens are secrets: a store that writes them
/// somewhere should protect them (a keychain, a file only the user reads).
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens saved for `server`, if any.
    fn load<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<StoredTokens>, Error>>;

    /// Keep `tokens` for `server`, replacing what was there.
    fn save<'a>(&'a self, server: &'a str, tokens: StoredTokens) -> BoxFuture<'a, Result<(), Error>>;

    /// Forget `server`'s tokens (they were refused and could not be
    /// refreshed).
    fn clear<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), Error>>;
}

/// Tokens kept in memory for as long as the store lives: shared (as an
/// `Arc`) by the connections of one process, so reconnecting reuses them.
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, StoredTokens>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> MemoryTokenStore {
        MemoryTokenStore::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, StoredTokens>> {
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTokenStore").field("servers", &self.map().len()).finish()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<StoredTokens>, Error>> {
        let tokens = self.map().get(server).cloned();
        Box::pin(async move { Ok(tokens) })
    }

    fn save<'a>(&'a self, server: &'a str, tokens: StoredTokens) -> BoxFuture<'a, Result<(), Error>> {
        self.map().insert(server.to_owned(), tokens);
        Box::pin(async { Ok(()) })
    }

    fn clear<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        self.map().remove(server);
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> StoredTokens {
        StoredTokens {
            access_token: "secret-access".into(),
            refresh_token: Some("secret-refresh".into()),
            expires_at: Some(100),
            requested_scopes: vec!["a".into()],
            granted_scopes: None,
            issuer: "https://as".into(),
            token_endpoint: "https://as/token".into(),
            resource: None,
            client: ClientCredentials::confidential("id", "secret-client"),
            dpop_jkt: None,
        }
    }

    #[tokio::test]
    async fn memory_store_round_trip() {
        let store = MemoryTokenStore::new();
        assert!(store.load("s").await.unwrap().is_none());
        store.save("s", tokens()).await.unwrap();
        assert_eq!(store.load("s").await.unwrap(), Some(tokens()));
        store.clear("s").await.unwrap();
        assert!(store.load("s").await.unwrap().is_none());
    }

    #[test]
    fn secrets_stay_out_of_debug_output_and_expiry() {
        let text = format!("{:?}", tokens());
        assert!(!text.contains("secret-"), "{text}");
        assert!(tokens().expiring(80, 30) && !tokens().expiring(60, 30));
        assert_eq!(tokens().scopes(), ["a"]);
    }
}
