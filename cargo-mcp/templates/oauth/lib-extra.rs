
/// Say who is calling: the subject of the caller's access token. Needs
/// the `profile` scope when the server takes OAuth tokens.
#[tool(scopes = ["profile"])]
fn whoami(claims: Claims) -> String {
    claims.subject().unwrap_or("someone without a subject").to_owned()
}
