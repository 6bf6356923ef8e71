use super::*;

#[test]
fn urls_in_text_lose_their_credentials_query_and_fragment() {
    assert_eq!(
        redact_urls("error sending request for url (http://u@h/mcp?k=SECRET): refused; see https://x.y/?q=1."),
        "error sending request for url (http://h/mcp): refused; see https://x.y/"
    );
    assert_eq!(redact_urls("no url here"), "no url here");
    assert_eq!(Upstream::command("/usr/bin/tool", ["--token=SECRET"]).label(), "tool");
    let with_env = Upstream::command_with_env("tool", ["--token=SECRET"], [("API_KEY", "SECRET")]);
    assert_eq!(with_env.label(), "tool");
    assert!(!format!("{with_env:?}").contains("SECRET"));
    let with_headers = Upstream::url_with_headers("http://h/mcp?k=SECRET", [("Authorization", "SECRET")]);
    assert_eq!(with_headers.label(), "http://h/mcp");
    assert!(!format!("{with_headers:?}").contains("SECRET"));
}
