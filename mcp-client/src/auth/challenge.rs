//! The server's `WWW-Authenticate` header (RFC 9110 §11.6.1): the
//! parameters of its `Bearer` or `DPoP` challenge (RFC 6750 §3, RFC 9728
//! §5.1, RFC 9449 §7.1).

/// What a `Bearer` (or `DPoP`) challenge tells the client.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// Where the protected resource metadata is (RFC 9728).
    pub(crate) resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated.
    pub(crate) scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// The `Bearer` or `DPoP` challenge of a header value (the first one's
    /// parameters win); empty if there is none (another scheme's
    /// parameters are ignored).
    pub(crate) fn parse(header: &str) -> Challenge {
        let mut challenge = Challenge::default();
        let mut bearer = false;
        let mut rest = header;
        loop {
            rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
            if rest.is_empty() {
                break;
            }
            let end = rest.find(|c: char| c == ',' || c == '=' || c.is_whitespace()).unwrap_or(rest.len());
            let token = &rest[..end];
            rest = &rest[end..];
            let after = rest.trim_start();
            if token.is_empty() {
                // A stray `=`: skip it.
                rest = &rest[1.min(rest.len())..];
                continue;
            }
            if let Some(value) = after.strip_prefix('=') {
                let value = value.trim_start();
                if value.is_empty() || value.starts_with(',') || value.starts_with('=') {
                    // token68 (`abc==`): no parameter.
                    rest = value.trim_start_matches('=');
                    continue;
                }
                let (parsed, remaining) = param_value(value);
                rest = remaining;
                if bearer {
                    let slot = match token.to_ascii_lowercase().as_str() {
                        "resource_metadata" => &mut challenge.resource_metadata,
                        "scope" => &mut challenge.scope,
                        "error" => &mut challenge.error,
                        _ => continue,
                    };
                    slot.get_or_insert(parsed);
                }
            } else {
                // A new challenge's scheme.
                bearer = token.eq_ignore_ascii_case("bearer") || token.eq_ignore_ascii_case("dpop");
            }
        }
        challenge
    }

    /// The scopes of `scope`, one by one.
    pub(crate) fn scopes(&self) -> Vec<String> {
        self.scope.as_deref().map(super::scope::split).unwrap_or_default()
    }
}

/// A parameter's value (a quoted string with `\` escapes, or a token),
/// and what follows it.
fn param_value(input: &str) -> (String, &str) {
    if let Some(quoted) = input.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                _ => value.push(c),
            }
        }
        // Unterminated: take what there is.
        (value, "")
    } else {
        let end = input.find(|c: char| c == ',' || c.is_whitespace()).unwrap_or(input.len());
        (input[..end].to_owned(), &input[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters() {
        let c = Challenge::parse(
            r#"Bearer scope="mcp:basic mcp:write", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp", error="insufficient_scope""#,
        );
        assert_eq!(c.scope.as_deref(), Some("mcp:basic mcp:write"));
        assert_eq!(c.scopes(), ["mcp:basic", "mcp:write"]);
        assert_eq!(c.resource_metadata.as_deref(), Some("http://localhost:1/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
    }

    #[test]
    fn tokens_escapes_case_and_other_schemes() {
        let c = Challenge::parse(
            r#"Basic realm="a, b", Negotiate abc==, bearer Error=invalid_token,realm="say \"hi\"" , SCOPE="x""#,
        );
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.scope.as_deref(), Some("x"));
        assert_eq!(c.resource_metadata, None);
        // Parameters of another scheme are not the Bearer challenge's.
        let c = Challenge::parse(r#"Basic scope="nope", Bearer"#);
        assert_eq!(c, Challenge::default());
        let c = Challenge::parse(r#"DPoP error="use_dpop_nonce", resource_metadata="http://x/prm", algs="ES256""#);
        assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://x/prm"));
    }

    #[test]
    fn garbage_does_not_panic() {
        for header in
            ["", "=", "Bearer =", "Bearer scope=\"unterminated", "Bearer ,,, = \" ", "Bearer scope=", "é=\"ü\""]
        {
            let _ = Challenge::parse(header);
        }
        assert_eq!(Challenge::parse("Bearer scope=\"unterminated").scope.as_deref(), Some("unterminated"));
    }

    /// Every string of up to five characters from the ones that matter
    /// to the grammar: none panics.
    #[test]
    fn no_short_input_panics() {
        let alphabet = ['"', '\\', '=', ',', ' ', 'b', 'é'];
        let mut input = String::new();
        fn walk(input: &mut String, alphabet: &[char], depth: usize) {
            let _ = Challenge::parse(&format!("Bearer {input}"));
            let _ = Challenge::parse(input);
            if depth == 0 {
                return;
            }
            for &c in alphabet {
                input.push(c);
                walk(input, alphabet, depth - 1);
                input.pop();
            }
        }
        walk(&mut input, &alphabet, 5);
    }
}
