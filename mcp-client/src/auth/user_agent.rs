//! The user's part: the authorization URL shown to them, the redirect
//! back read, and that redirect checked (state, RFC 9207 `iss`).

use futures_util::future::BoxFuture;
use reqwest::Url;

use super::fetch::{failed, invalid};
use crate::Error;

/// Takes the user to the authorization server and brings back its answer.
/// A desktop application opens a browser and listens on its redirect URI;
/// a test drives the server headlessly. Only the application knows how.
pub trait UserAgent: Send + Sync + 'static {
    /// Send the user to `authorization_url`, wait for the authorization
    /// server's redirect to the client's redirect URI, and return that
    /// redirect's query (`code=…&state=…&iss=…`), or the whole redirect
    /// URL.
    fn authorize<'a>(&'a self, authorization_url: &'a str) -> BoxFuture<'a, Result<String, Error>>;
}

/// The authorization response's parameters (RFC 6749 §4.1.2, RFC 9207).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Callback {
    pub(crate) code: Option<String>,
    pub(crate) state: Option<String>,
    pub(crate) iss: Option<String>,
    pub(crate) error: Option<String>,
    pub(crate) error_description: Option<String>,
}

impl Callback {
    /// The parameters of `answer`: a redirect URL or its query.
    pub(crate) fn parse(answer: &str) -> Callback {
        let query = match Url::parse(answer) {
            Ok(url) if url.query().is_some() => url.query().unwrap_or("").to_owned(),
            _ => answer.trim_start_matches('?').to_owned(),
        };
        let mut scratch = Url::parse("http://localhost/").unwrap_or_else(|_| unreachable!("a constant URL"));
        scratch.set_query(Some(&query));
        let mut callback = Callback::default();
        for (name, value) in scratch.query_pairs() {
            let slot = match name.as_ref() {
                "code" => &mut callback.code,
                "state" => &mut callback.state,
                "iss" => &mut callback.iss,
                "error" => &mut callback.error,
                "error_description" => &mut callback.error_description,
                _ => continue,
            };
            // A repeated parameter is suspicious; the first one counts.
            slot.get_or_insert_with(|| value.into_owned());
        }
        callback
    }

    /// The code, once the response is known to be the answer to this
    /// request (`state`) from this authorization server (`iss`).
    pub(crate) fn code(self, state: &str, issuer: &str, iss_advertised: bool) -> Result<String, Error> {
        if let Some(error) = &self.error {
            let description = self.error_description.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
            return Err(failed(format!("the authorization server refused: {error}{description}")));
        }
        check_iss(self.iss.as_deref(), issuer, iss_advertised)?;
        if self.state.as_deref() != Some(state) {
            return Err(invalid("the authorization response's state is not this request's"));
        }
        self.code.filter(|c| !c.is_empty()).ok_or_else(|| invalid("the authorization response has no code"))
    }
}

/// RFC 9207 §2.4: an `iss` must be the recorded issuer, compared as
/// strings (no normalization); a server that advertises `iss` must send
/// it. Defends against mix-up attacks, where one server's code is sent to
/// another.
pub(crate) fn check_iss(iss: Option<&str>, issuer: &str, advertised: bool) -> Result<(), Error> {
    match iss {
        Some(iss) if iss == issuer => Ok(()),
        Some(iss) => Err(invalid(format!(
            "the authorization response comes from issuer `{iss}`, not `{issuer}` (RFC 9207): refusing its code"
        ))),
        None if advertised => Err(invalid(format!(
            "`{issuer}` advertises the `iss` parameter but its authorization response has none (RFC 9207): \
             refusing its code"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUER: &str = "http://localhost:3000";

    #[test]
    fn iss_is_compared_exactly() {
        assert!(check_iss(Some(ISSUER), ISSUER, true).is_ok());
        assert!(check_iss(Some(ISSUER), ISSUER, false).is_ok());
        assert!(check_iss(None, ISSUER, false).is_ok());
        assert!(check_iss(None, ISSUER, true).is_err());
        assert!(check_iss(Some("https://evil.example.com"), ISSUER, true).is_err());
        assert!(check_iss(Some("https://evil.example.com"), ISSUER, false).is_err());
        assert!(check_iss(Some("http://localhost:3000/"), ISSUER, true).is_err());
        assert!(check_iss(Some("HTTP://localhost:3000"), ISSUER, true).is_err());
    }

    #[test]
    fn callbacks_from_a_url_or_a_query() {
        let c =
            Callback::parse("http://localhost:3000/callback?code=abc&state=s%20t&iss=http%3A%2F%2Flocalhost%3A3000");
        assert_eq!(c.code.as_deref(), Some("abc"));
        assert_eq!(c.state.as_deref(), Some("s t"));
        assert_eq!(c.iss.as_deref(), Some(ISSUER));
        assert_eq!(Callback::parse("?code=abc&code=evil").code.as_deref(), Some("abc"));
        assert_eq!(Callback::parse("code=abc&state=s").code("s", ISSUER, false).unwrap(), "abc");
        assert!(Callback::parse("code=abc&state=other").code("s", ISSUER, false).is_err());
        assert!(Callback::parse("code=abc").code("s", ISSUER, false).is_err());
        assert!(Callback::parse("state=s").code("s", ISSUER, false).is_err());
        let refused = Callback::parse("error=access_denied&error_description=no&state=s").code("s", ISSUER, false);
        assert!(refused.unwrap_err().to_string().contains("access_denied: no"));
        assert!(Callback::parse("code=abc&state=s").code("s", ISSUER, true).is_err());
        let _ = Callback::parse("%%%&&==?#");
    }
}
