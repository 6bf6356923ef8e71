//! Talking to the MCP Registry: a client with deadlines, and answers read
//! up to a bound, so a registry that hangs or sends without end cannot
//! hold the command.

use std::time::Duration;

use crate::failure::Failure;

/// The most of an answer read: a `server.json` is a few kilobytes.
const MAX_ANSWER: usize = 1024 * 1024;

/// A client that gives up on a registry after 30 seconds.
pub fn client() -> Result<reqwest::Client, Failure> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| Failure::new(format!("cannot make an HTTP client: {e}")))
}

/// The answer's body, or an error once it passes [`MAX_ANSWER`].
pub async fn body(mut response: reqwest::Response) -> Result<Vec<u8>, Failure> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| Failure::new(format!("reading the answer: {e}")))? {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(Failure::new(format!("the registry's answer is longer than {MAX_ANSWER} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `text` as one path segment of a URL.
pub fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_name_is_one_segment() {
        assert_eq!(super::segment("io.github.o/w x?"), "io.github.o%2Fw%20x%3F");
    }
}
