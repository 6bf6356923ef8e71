//! [`Upstream`] presets for the providers users name: their endpoints,
//! the scopes asked for, the claim that names the user and the claims
//! copied into the proxy's tokens. Each provider's client must list the
//! proxy's callback (`{issuer}/oauth/callback`) as a redirect URI.

use std::time::Duration;

use serde_json::Value;

use super::upstream::Upstream;
use crate::error::Error;

impl Upstream {
    /// GitHub (an OAuth App or a GitHub App's user authorization). Asks
    /// for `read:user user:email`; the user is GitHub's numeric `id`;
    /// tokens carry `login`, `name`, `email` and `avatar_url` (from
    /// `GET /user`). GitHub is not an OpenID provider: no ID token.
    pub fn github(client_id: impl Into<String>, client_secret: impl Into<String>) -> Upstream {
        Upstream::new(
            "https://github.com/login/oauth/authorize",
            "https://github.com/login/oauth/access_token",
            client_id,
            client_secret,
        )
        .name("GitHub")
        .userinfo_endpoint("https://api.github.com/user")
        .scopes(["read:user", "user:email"])
        .subject_claim("id")
        .claims(["login", "name", "email", "avatar_url"])
        .secret_in_body()
    }

    /// Google (an OAuth client of type "Web application"). Asks for
    /// `openid email profile` and offline access (a refresh token); the
    /// user is Google's `sub`; tokens carry `email`, `email_verified`,
    /// `name`, `picture` and `hd` (the Workspace domain: check it to admit
    /// one company only).
    pub fn google(client_id: impl Into<String>, client_secret: impl Into<String>) -> Upstream {
        Upstream::new(
            "https://accounts.google.com/o/oauth2/v2/auth",
            "https://oauth2.googleapis.com/token",
            client_id,
            client_secret,
        )
        .name("Google")
        .issuer("https://accounts.google.com")
        .scopes(["openid", "email", "profile"])
        .authorize_param("access_type", "offline")
        .claims(["email", "email_verified", "name", "picture", "hd"])
    }

    /// Microsoft Entra ID, one tenant (its id or domain; `common` and
    /// `organizations` issue ID tokens of each user's own tenant, which
    /// the issuer check refuses). Asks for `openid profile email
    /// offline_access`; the user is the object id `oid` (the same in
    /// every application of the tenant); tokens carry `name`,
    /// `preferred_username`, `email` and `tid`.
    pub fn entra(tenant: &str, client_id: impl Into<String>, client_secret: impl Into<String>) -> Upstream {
        let base = format!("https://login.microsoftonline.com/{tenant}");
        Upstream::new(
            format!("{base}/oauth2/v2.0/authorize"),
            format!("{base}/oauth2/v2.0/token"),
            client_id,
            client_secret,
        )
        .name("Microsoft")
        .issuer(format!("{base}/v2.0"))
        .scopes(["openid", "profile", "email", "offline_access"])
        .subject_claim("oid")
        .claims(["name", "preferred_username", "email", "tid"])
        .secret_in_body()
    }

    /// Auth0, by the tenant's domain (`example.us.auth0.com` or a custom
    /// one). Asks for `openid profile email offline_access`; the user is
    /// `sub`; tokens carry `email`, `email_verified`, `name` and
    /// `nickname`.
    pub fn auth0(domain: &str, client_id: impl Into<String>, client_secret: impl Into<String>) -> Upstream {
        let base = format!("https://{domain}");
        Upstream::new(format!("{base}/authorize"), format!("{base}/oauth/token"), client_id, client_secret)
            .name("Auth0")
            .issuer(format!("{base}/"))
            .userinfo_endpoint(format!("{base}/userinfo"))
            .scopes(["openid", "profile", "email", "offline_access"])
            .claims(["email", "email_verified", "name", "nickname"])
    }

    /// Okta, by the org's domain (`example.okta.com`) with its `default`
    /// authorization server. Asks for `openid profile email
    /// offline_access`; the user is `sub`; tokens carry `email`,
    /// `email_verified`, `name` and `preferred_username`.
    pub fn okta(domain: &str, client_id: impl Into<String>, client_secret: impl Into<String>) -> Upstream {
        let base = format!("https://{domain}/oauth2/default");
        Upstream::new(format!("{base}/v1/authorize"), format!("{base}/v1/token"), client_id, client_secret)
            .name("Okta")
            .issuer(base.clone())
            .userinfo_endpoint(format!("{base}/v1/userinfo"))
            .scopes(["openid", "profile", "email", "offline_access"])
    }

    /// Keycloak, by its base URL (`https://sso.example.com`) and realm.
    /// Asks for `openid profile email`; the user is `sub`; tokens carry
    /// `email`, `email_verified`, `name` and `preferred_username`.
    pub fn keycloak(
        base_url: &str,
        realm: &str,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Upstream {
        let issuer = format!("{}/realms/{realm}", base_url.trim_end_matches('/'));
        let oidc = format!("{issuer}/protocol/openid-connect");
        Upstream::new(format!("{oidc}/auth"), format!("{oidc}/token"), client_id, client_secret)
            .name("Keycloak")
            .issuer(issuer)
            .userinfo_endpoint(format!("{oidc}/userinfo"))
            .scopes(["openid", "profile", "email"])
    }

    /// Any OpenID provider, by its issuer: the endpoints are read from its
    /// discovery document (`{issuer}/.well-known/openid-configuration`,
    /// whose `issuer` must be `issuer` exactly). Asks for `openid profile
    /// email`; the user is `sub`; tokens carry the default claims.
    pub async fn discover(
        issuer: &str,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Result<Upstream, Error> {
        let invalid = |why: String| Error::InvalidOAuth(format!("OpenID discovery of {issuer}: {why}"));
        super::super::absolute("issuer", issuer).map_err(invalid)?;
        let url = format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/'));
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| invalid(e.to_string()))?;
        let response = http.get(&url).send().await.map_err(|e| invalid(e.to_string()))?;
        if !response.status().is_success() {
            return Err(invalid(format!("{url} answered {}", response.status())));
        }
        let document: Value = response.json().await.map_err(|e| invalid(e.to_string()))?;
        if document.get("issuer").and_then(Value::as_str) != Some(issuer) {
            return Err(invalid("the document names another issuer".into()));
        }
        let text = |name: &str| document.get(name).and_then(Value::as_str).map(str::to_owned);
        let (Some(authorize), Some(token)) = (text("authorization_endpoint"), text("token_endpoint")) else {
            return Err(invalid("the document lacks an authorization or token endpoint".into()));
        };
        let mut upstream = Upstream::new(authorize, token, client_id, client_secret)
            .issuer(issuer)
            .scopes(["openid", "profile", "email"]);
        if let Some(userinfo) = text("userinfo_endpoint") {
            upstream = upstream.userinfo_endpoint(userinfo);
        }
        let methods = document.get("token_endpoint_auth_methods_supported").and_then(Value::as_array);
        let basic = methods.is_none_or(|m| m.iter().any(|m| m == "client_secret_basic"));
        if !basic {
            upstream = upstream.secret_in_body();
        }
        upstream.check().map_err(invalid)?;
        Ok(upstream)
    }
}
