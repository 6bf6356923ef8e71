//! The upstream identity provider: where the proxy sends users to sign
//! in with its one pre-registered client, and the calls it makes there
//! (the code exchange, refresh, the user's identity).

use std::time::Duration;

use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use mcp_core::JsonObject;

/// The identity provider the proxy signs users in at, with the client
/// registered there for the proxy (its redirect URI is the proxy's
/// callback, `{issuer}/oauth/callback` unless
/// [`OAuthProxy::callback_path`](super::OAuthProxy::callback_path) says
/// otherwise). The presets ([`Upstream::github`], [`Upstream::google`],
/// …) fill in a provider's endpoints, scopes and claims; this
/// constructor is for any other OAuth 2.0 provider.
///
/// The user's identity comes from the ID token the token endpoint
/// returns (OpenID Connect; received straight from the provider over
/// TLS, so its issuer, audience and nonce are checked and its signature
/// need not be, OpenID Connect Core §3.1.3.7), then from the userinfo
/// endpoint if one is set. Its `sub` (or [`subject_claim`](Self::subject_claim))
/// becomes the subject of the proxy's tokens, and the claims named in
/// [`claims`](Self::claims) are copied into them, where tools read them
/// through [`Claims`](crate::Claims).
#[derive(Clone)]
pub struct Upstream {
    pub(crate) name: String,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) userinfo_endpoint: Option<String>,
    pub(crate) issuer: Option<String>,
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) subject_claim: String,
    pub(crate) claims: Vec<String>,
    pub(crate) secret_in_body: bool,
    pub(crate) extra_params: Vec<(String, String)>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name)
            .field("authorization_endpoint", &self.authorization_endpoint)
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// A provider by its endpoints and the proxy's client there. The
    /// client secret goes to the token endpoint in HTTP Basic
    /// authentication (`client_secret_basic`) unless
    /// [`secret_in_body`](Self::secret_in_body).
    pub fn new(
        authorization_endpoint: impl Into<String>,
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Upstream {
            name: "the identity provider".into(),
            authorization_endpoint: authorization_endpoint.into(),
            token_endpoint: token_endpoint.into(),
            userinfo_endpoint: None,
            issuer: None,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scopes: Vec::new(),
            subject_claim: "sub".into(),
            claims: vec!["email".into(), "email_verified".into(), "name".into(), "preferred_username".into()],
            secret_in_body: false,
            extra_params: Vec::new(),
        }
    }

    /// The provider's name as the consent page shows it ("Sign in with …").
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The OpenID Connect issuer: the proxy asks for an ID token (`openid`
    /// scope, a `nonce`) and checks its `iss`, `aud` and `nonce`.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Read the user's claims from this endpoint too, with the upstream
    /// access token (GitHub's `/user`, OpenID Connect's userinfo).
    pub fn userinfo_endpoint(mut self, url: impl Into<String>) -> Self {
        self.userinfo_endpoint = Some(url.into());
        self
    }

    /// The scopes asked of the provider (`openid` is added for an OpenID
    /// provider).
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The claim that identifies the user (default `sub`; GitHub's is `id`).
    pub fn subject_claim(mut self, claim: impl Into<String>) -> Self {
        self.subject_claim = claim.into();
        self
    }

    /// The upstream claims copied into the proxy's tokens (default
    /// `email`, `email_verified`, `name`, `preferred_username`). Claims the
    /// proxy sets itself (`iss`, `sub`, `aud`, `exp`, `scope`, …) are never
    /// copied.
    pub fn claims<I, S>(mut self, claims: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.claims = claims.into_iter().map(Into::into).collect();
        self
    }

    /// Send the client secret in the token request's body
    /// (`client_secret_post`) instead of HTTP Basic authentication.
    pub fn secret_in_body(mut self) -> Self {
        self.secret_in_body = true;
        self
    }

    /// One more parameter for the provider's authorization request (e.g.
    /// `prompt=select_account`, `access_type=offline`).
    pub fn authorize_param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra_params.push((name.into(), value.into()));
        self
    }

    /// Check the endpoints: absolute, `https` (plain `http` on loopback only).
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut urls =
            vec![("authorization endpoint", &self.authorization_endpoint), ("token endpoint", &self.token_endpoint)];
        if let Some(url) = &self.userinfo_endpoint {
            urls.push(("userinfo endpoint", url));
        }
        for (what, url) in urls {
            super::super::absolute(&format!("upstream {what}"), url)?;
        }
        if self.client_id.is_empty() {
            return Err("the upstream client id is empty".into());
        }
        Ok(())
    }

    /// Where the user's browser goes to sign in, for one transaction.
    pub(crate) fn authorization_url(&self, redirect_uri: &str, state: &str, challenge: &str, nonce: &str) -> String {
        let mut url = Url::parse(&self.authorization_endpoint).expect("checked when the proxy was built");
        let mut scopes = self.scopes.clone();
        if self.issuer.is_some() && !scopes.iter().any(|s| s == "openid") {
            scopes.insert(0, "openid".into());
        }
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &self.client_id)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("state", state)
                .append_pair("code_challenge", challenge)
                .append_pair("code_challenge_method", "S256");
            if !scopes.is_empty() {
                query.append_pair("scope", &scopes.join(" "));
            }
            if self.issuer.is_some() {
                query.append_pair("nonce", nonce);
            }
            for (name, value) in &self.extra_params {
                query.append_pair(name, value);
            }
        }
        url.to_string()
    }
}

/// The upstream tokens of one grant, as sealed into the store.
#[derive(Serialize, Deserialize, Default)]
pub(crate) struct UpstreamTokens {
    pub(crate) access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) refresh_token: Option<String>,
    /// Seconds since the epoch; `None` when the provider did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expires_at: Option<u64>,
}

/// Why a call to the provider failed: its text is for the server's log
/// only, and holds no token.
pub(crate) type Failure = String;

/// The calls to the provider.
pub(crate) struct Provider {
    pub(crate) config: Upstream,
    http: reqwest::Client,
}

/// The largest answer read from the provider.
const MAX_ANSWER: usize = 256 * 1024;

impl Provider {
    pub(crate) fn new(config: Upstream) -> Result<Provider, String> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(15))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(Provider { config, http })
    }

    /// Exchange the code the provider sent back (with the transaction's
    /// PKCE verifier) for its tokens, and the user's claims.
    pub(crate) async fn exchange(
        &self,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
        nonce: &str,
    ) -> Result<(UpstreamTokens, JsonObject), Failure> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ];
        let answer = self.token_request(&form).await?;
        let tokens = tokens_of(&answer, None)?;
        let mut claims = JsonObject::new();
        if let Some(issuer) = &self.config.issuer {
            let id_token = answer.get("id_token").and_then(Value::as_str).ok_or("the provider sent no ID token")?;
            claims = self.id_token_claims(id_token, issuer, nonce)?;
        }
        if let Some(userinfo) = &self.config.userinfo_endpoint {
            let info = self.userinfo(userinfo, &tokens.access_token).await?;
            if let (Some(sub), Some(info_sub)) = (claims.get("sub"), info.get("sub"))
                && sub != info_sub
            {
                return Err("the userinfo's `sub` is not the ID token's".into());
            }
            for (name, value) in info {
                claims.entry(name).or_insert(value);
            }
        }
        Ok((tokens, claims))
    }

    /// New upstream tokens from the refresh token.
    pub(crate) async fn refresh(&self, old: &UpstreamTokens) -> Result<UpstreamTokens, Failure> {
        let refresh_token = old.refresh_token.as_deref().ok_or("no upstream refresh token")?;
        let form = [("grant_type", "refresh_token"), ("refresh_token", refresh_token)];
        let answer = self.token_request(&form).await?;
        tokens_of(&answer, Some(refresh_token))
    }

    async fn token_request(&self, form: &[(&str, &str)]) -> Result<JsonObject, Failure> {
        let config = &self.config;
        let mut request = self.http.post(&config.token_endpoint).header("accept", "application/json");
        let body = {
            let mut body = form_urlencoded::Serializer::new(String::new());
            body.extend_pairs(form);
            if config.secret_in_body {
                body.append_pair("client_id", &config.client_id).append_pair("client_secret", &config.client_secret);
            } else {
                let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                request = request.basic_auth(encode(&config.client_id), Some(encode(&config.client_secret)));
            }
            body.finish()
        };
        let request = request.header("content-type", "application/x-www-form-urlencoded").body(body);
        let response = request.send().await.map_err(|e| format!("the token endpoint: {}", e.without_url()))?;
        let status = response.status();
        let answer = read_json(response).await?;
        if !status.is_success() {
            let error = answer.get("error").and_then(Value::as_str).unwrap_or("no error code");
            return Err(format!("the token endpoint answered {status} ({error})"));
        }
        Ok(answer)
    }

    /// The claims of an ID token straight from the token endpoint.
    fn id_token_claims(&self, id_token: &str, issuer: &str, nonce: &str) -> Result<JsonObject, Failure> {
        use base64::Engine;
        let not_jwt = || "the ID token is not a JWT".to_owned();
        let payload = id_token.split('.').nth(1).ok_or_else(not_jwt)?;
        let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload.trim_end_matches('='))
            .map_err(|_| not_jwt())?;
        let claims: JsonObject = serde_json::from_slice(&payload).map_err(|_| not_jwt())?;
        if claims.get("iss").and_then(Value::as_str) != Some(issuer) {
            return Err("the ID token's issuer is not the provider".into());
        }
        let for_us = match claims.get("aud") {
            Some(Value::String(aud)) => aud == &self.config.client_id,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(&self.config.client_id)),
            _ => false,
        };
        if !for_us {
            return Err("the ID token was not issued to the proxy's client".into());
        }
        if claims.get("nonce").and_then(Value::as_str) != Some(nonce) {
            return Err("the ID token's nonce is not this sign-in's".into());
        }
        Ok(claims)
    }

    async fn userinfo(&self, url: &str, access_token: &str) -> Result<JsonObject, Failure> {
        let response = self
            .http
            .get(url)
            .bearer_auth(access_token)
            .header("accept", "application/json")
            .header("user-agent", "mcp-runtime-oauth-proxy")
            .send()
            .await
            .map_err(|e| format!("the userinfo endpoint: {}", e.without_url()))?;
        if !response.status().is_success() {
            return Err(format!("the userinfo endpoint answered {}", response.status()));
        }
        read_json(response).await
    }
}

/// A JSON object of at most [`MAX_ANSWER`] bytes.
async fn read_json(mut response: reqwest::Response) -> Result<JsonObject, Failure> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading the answer: {}", e.without_url()))? {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(format!("the answer is larger than {MAX_ANSWER} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|_| "the answer is not a JSON object".to_owned())
}

/// The tokens of a token response; a refresh that returns no new refresh
/// token keeps the old one.
fn tokens_of(answer: &JsonObject, old_refresh: Option<&str>) -> Result<UpstreamTokens, Failure> {
    let access_token = answer.get("access_token").and_then(Value::as_str).ok_or("the answer has no access token")?;
    let refresh_token = answer.get("refresh_token").and_then(Value::as_str).or(old_refresh).map(str::to_owned);
    let expires_at = answer.get("expires_in").and_then(Value::as_u64).map(|seconds| super::now() + seconds);
    Ok(UpstreamTokens { access_token: access_token.to_owned(), refresh_token, expires_at })
}
