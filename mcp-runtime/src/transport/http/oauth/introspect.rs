//! Opaque access tokens checked at the authorization server's token
//! introspection endpoint (RFC 7662), with a bounded cache of the answers.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use mcp_core::JsonObject;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

use super::{OAuth, Refused, absolute};
use crate::error::Error;
use crate::request::claims::Claims;

/// The most bytes of an introspection answer read (RFC 7662 answers are a
/// few hundred bytes; a larger one is refused, not buffered).
const MAX_ANSWER: usize = 64 * 1024;

/// The most introspection calls in flight at once: tokens nobody has seen
/// cannot make the server open unbounded connections to the issuer.
const MAX_IN_FLIGHT: usize = 32;

/// Check access tokens by asking the authorization server about them (RFC
/// 7662 token introspection) instead of verifying them as JWTs: for
/// authorization servers that issue opaque tokens, and gateways in front
/// of them. Give it to [`OAuth::introspection`].
///
/// - **The call.** `POST` to the endpoint with `token` and
///   `token_type_hint=access_token`, the resource server authenticating
///   as a client of the authorization server with HTTP Basic (the default,
///   `client_secret_basic`) or in the form ([`client_secret_post`](Self::client_secret_post)).
///   No redirect is followed; a call takes at most [`timeout`](Self::timeout)
///   (default 5 seconds) and an answer over 64 KiB is refused; at most 32
///   calls are in flight at once.
/// - **The answer.** Only `"active": true` lets a request through, and
///   only if the answer's `exp` (when given) has not passed, its `iss`
///   (when given) is the issuer and its `aud` (when given) names this
///   resource. The answer's members (`sub`, `scope`, `client_id`, any
///   other) are the request's [`Claims`], so per-tool scopes work as with
///   JWTs. `"active": false`, an error status, an unreadable answer, a
///   timeout or an unreachable endpoint: 401 `invalid_token`, never a
///   grant.
/// - **The cache.** Active answers are kept, under a hash of the token
///   (never the token itself), until the answer's `exp` and at most
///   [`cache_max_age`](Self::cache_max_age) (default 60 seconds: how long
///   a revoked token may still pass), for at most
///   [`max_cached`](Self::max_cached) tokens (default 10,000; when full,
///   the entry closest to its end goes first). Inactive answers are not
///   kept: a token that is refused costs its sender a request as much as
///   it costs us a call, while caching them would let made-up tokens push
///   out the good ones.
#[derive(Clone)]
pub struct Introspection {
    url: String,
    client_id: String,
    client_secret: String,
    post: bool,
    max_cached: usize,
    max_age: Duration,
    timeout: Duration,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspection")
            .field("url", &self.url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("post", &self.post)
            .finish_non_exhaustive()
    }
}

impl Introspection {
    /// Ask the introspection endpoint at `url`, authenticating as
    /// `client_id` with `client_secret`.
    pub fn new(url: impl Into<String>, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Introspection {
            url: url.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            post: false,
            max_cached: 10_000,
            max_age: Duration::from_secs(60),
            timeout: Duration::from_secs(5),
        }
    }

    /// Send the client's credentials in the form (`client_secret_post`)
    /// instead of HTTP Basic.
    pub fn client_secret_post(mut self) -> Self {
        self.post = true;
        self
    }

    /// How many tokens' answers are kept at most (default 10,000; 0 keeps
    /// none, asking for every request).
    pub fn max_cached(mut self, tokens: usize) -> Self {
        self.max_cached = tokens;
        self
    }

    /// How long an active answer is trusted at most (default 60 seconds),
    /// however far off its `exp`: a token revoked at the authorization
    /// server stops working here within it.
    pub fn cache_max_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }

    /// How long one introspection call may take, connecting included
    /// (default 5 seconds).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl OAuth {
    /// Check tokens at the authorization server's introspection endpoint
    /// (RFC 7662) instead of verifying them as JWTs (see
    /// [`Introspection`]). The issuer's keys are then never fetched.
    pub fn introspection(mut self, introspection: Introspection) -> Self {
        self.introspection = Some(introspection);
        self
    }
}

/// One kept answer.
struct Entry {
    claims: Claims,
    until: Instant,
}

/// The introspection of one endpoint: its settings, HTTP client and cache.
pub(super) struct Introspector {
    settings: Introspection,
    /// `Authorization: Basic …`, made once (RFC 6749 §2.3.1: each part
    /// form-encoded first).
    basic: String,
    client: reqwest::Client,
    cache: Mutex<HashMap<[u8; 32], Entry>>,
    in_flight: Semaphore,
}

impl Introspector {
    pub(super) fn new(settings: Introspection) -> Result<Introspector, Error> {
        absolute("introspection endpoint", &settings.url).map_err(Error::InvalidOAuth)?;
        let client = reqwest::Client::builder()
            .connect_timeout(settings.timeout)
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::InvalidOAuth(format!("cannot make an HTTP client: {e}")))?;
        let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let pair = format!("{}:{}", encode(&settings.client_id), encode(&settings.client_secret));
        let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair));
        Ok(Introspector {
            settings,
            basic,
            client,
            cache: Mutex::new(HashMap::new()),
            in_flight: Semaphore::new(MAX_IN_FLIGHT),
        })
    }

    /// The claims of an active token, from the cache or the endpoint;
    /// `check` vets an answer's `iss` and `aud`.
    pub(super) async fn verify(
        &self,
        token: &str,
        leeway: u64,
        check: impl Fn(&JsonObject) -> Result<(), Refused>,
    ) -> Result<Claims, Refused> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(claims) = self.cached(&key) {
            return Ok(claims);
        }
        let mut answer = self.ask(token).await.map_err(|why| {
            tracing::debug!(%why, "token introspection failed");
            Refused::Unauthorized(Some("the token cannot be checked"))
        })?;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(Refused::Unauthorized(Some("the token is not active")));
        }
        answer.remove("active");
        let now = unix_now();
        let exp = answer.get("exp").map(|exp| exp.as_u64().ok_or(Refused::Unauthorized(Some("the token is invalid"))));
        let exp = exp.transpose()?;
        if exp.is_some_and(|exp| exp.saturating_add(leeway) <= now) {
            return Err(Refused::Unauthorized(Some("the token has expired")));
        }
        check(&answer)?;
        let claims = Claims::new(answer);
        let mut age = self.settings.max_age;
        if let Some(exp) = exp {
            age = age.min(Duration::from_secs(exp.saturating_sub(now)));
        }
        self.keep(key, claims.clone(), age);
        Ok(claims)
    }

    fn cached(&self, key: &[u8; 32]) -> Option<Claims> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        match cache.get(key) {
            Some(entry) if entry.until > Instant::now() => Some(entry.claims.clone()),
            Some(_) => {
                cache.remove(key);
                None
            }
            None => None,
        }
    }

    fn keep(&self, key: [u8; 32], claims: Claims, age: Duration) {
        if self.settings.max_cached == 0 || age.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= self.settings.max_cached && !cache.contains_key(&key) {
            cache.retain(|_, entry| entry.until > now);
        }
        while cache.len() >= self.settings.max_cached && !cache.contains_key(&key) {
            let Some(first) = cache.iter().min_by_key(|(_, entry)| entry.until).map(|(key, _)| *key) else { break };
            cache.remove(&first);
        }
        cache.insert(key, Entry { claims, until: now + age });
    }

    /// The endpoint's answer about `token`, as a JSON object.
    async fn ask(&self, token: &str) -> Result<JsonObject, String> {
        let _permit = tokio::time::timeout(self.settings.timeout, self.in_flight.acquire())
            .await
            .map_err(|_| "too many introspection calls in flight".to_owned())?
            .map_err(|_| "closed".to_owned())?;
        // The serializer is not `Send`: done with before the first await.
        let body = {
            let mut form = form_urlencoded::Serializer::new(String::new());
            form.append_pair("token", token).append_pair("token_type_hint", "access_token");
            if self.settings.post {
                form.append_pair("client_id", &self.settings.client_id)
                    .append_pair("client_secret", &self.settings.client_secret);
            }
            form.finish()
        };
        let mut request = self.client.post(&self.settings.url).header("accept", "application/json");
        if !self.settings.post {
            request = request.header("authorization", &self.basic);
        }
        let mut response = request
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| format!("calling the endpoint: {}", e.without_url()))?;
        if !response.status().is_success() {
            return Err(format!("the endpoint answered {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) =
            response.chunk().await.map_err(|e| format!("reading the answer: {}", e.without_url()))?
        {
            if body.len() + chunk.len() > MAX_ANSWER {
                return Err(format!("the answer is over {MAX_ANSWER} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("the answer is not a JSON object: {e}"))
    }
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}
