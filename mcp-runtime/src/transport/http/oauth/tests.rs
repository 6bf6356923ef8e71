//! Tests of the resource server's settings, metadata and URL rules.

use super::*;

#[test]
fn audiences_compare_in_canonical_form() {
    assert_eq!(canonical("HTTPS://MCP.Example.com:443/mcp/").as_deref(), Some("https://mcp.example.com/mcp"));
    assert_eq!(canonical("https://mcp.example.com:8443").as_deref(), Some("https://mcp.example.com:8443"));
    assert_eq!(canonical("urn:example:notes"), None, "no host: compared exactly");
}

#[test]
fn urls_must_be_https_except_on_loopback() {
    assert!(absolute("issuer", "https://auth.example.com").is_ok());
    assert!(absolute("issuer", "http://127.0.0.1:9000").is_ok());
    assert!(absolute("issuer", "http://localhost/x").is_ok());
    assert!(absolute("issuer", "http://auth.example.com").is_err());
    assert!(absolute("resource", "https://mcp.example.com/mcp#x").is_err());
    assert!(absolute("resource", "mcp.example.com").is_err());
}

#[test]
fn metadata_is_served_at_the_root_and_after_the_resource_path() {
    let oauth = OAuth::new("https://mcp.example.com/tenant/mcp", "https://auth.example.com")
        .scopes_supported(["a", "b"])
        .resource_name("Notes");
    let verifier = Verifier::new(oauth, "/mcp").unwrap();
    assert_eq!(
        verifier.metadata_paths,
        [WELL_KNOWN.to_owned(), format!("{WELL_KNOWN}/tenant/mcp"), format!("{WELL_KNOWN}/mcp")]
    );
    assert_eq!(verifier.metadata_url, "https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp");
    let document: Value = serde_json::from_slice(&verifier.metadata).unwrap();
    assert_eq!(
        document,
        json!({
            "resource": "https://mcp.example.com/tenant/mcp",
            "authorization_servers": ["https://auth.example.com"],
            "scopes_supported": ["a", "b"],
            "bearer_methods_supported": ["header"],
            "resource_name": "Notes",
        })
    );
    assert!(
        Verifier::new(OAuth::new("https://m.example", "https://a.example").scopes_supported(["a b"]), "/mcp").is_err()
    );
}
