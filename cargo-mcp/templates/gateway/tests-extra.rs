
/// A mounted server's tools are served under its name.
#[tokio::test]
async fn a_mounted_servers_tools_carry_its_name() {
    let gateway = {{crate}}::server().mount("inner", {{crate}}::server());
    let mut client = TestClient::connect(gateway).await.unwrap();
    let result = client.call_tool("inner_greet", json!({"name": "Ada"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
}
