//! The lifecycle requests that settle the protocol version:
//! `server/discover` (2026-07-28) or `initialize` (a handshake version).

use std::time::Duration;

use mcp_core::{InitializeResult, ProtocolVersion, envelope, methods};
use serde_json::{Value, json};

use crate::params::Params;
use crate::session::{Era, Negotiated, RequestOptions};
use crate::{Client, Error};

/// `server/discover`: the server's versions and capabilities, with no
/// handshake.
pub(crate) async fn discover(client: &Client, timeout: Option<Duration>) -> Result<Negotiated, Error> {
    let version = ProtocolVersion::LATEST.as_str();
    client.session.wire().speak(Some(version));
    let options = || RequestOptions { timeout, ..RequestOptions::default() };
    let discovered = client.session.request(methods::SERVER_DISCOVER.into(), Params::default(), options()).await;
    let result = match discovered {
        // A server that refuses the version while naming it among those
        // it supports (a replica behind on its rollout, say) gets one more
        // try; one that names others is not for this client.
        Err(Error::Server(error)) if error.code == mcp_core::codes::UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = error.data.as_ref().and_then(|d| d.get("supported")).and_then(Value::as_array);
            if !supported.is_some_and(|s| s.iter().any(|v| v.as_str() == Some(version))) {
                return Err(Error::Server(error));
            }
            client.session.request(methods::SERVER_DISCOVER.into(), Params::default(), options()).await?
        }
        other => other?,
    };
    let result = crate::api::value(&result)?;
    let supported = result.get("supportedVersions").and_then(Value::as_array).cloned().unwrap_or_default();
    if !supported.iter().any(|v| v.as_str() == Some(version)) {
        return Err(Error::protocol(format!("the server does not speak {version} (it speaks {supported:?})")));
    }
    let capabilities = serde_json::from_value(result.get("capabilities").cloned().unwrap_or(json!({})))
        .map_err(|e| Error::protocol(format!("server/discover's capabilities: {e}")))?;
    let server_info = result
        .get("_meta")
        .and_then(|m| m.get(envelope::SERVER_INFO))
        .and_then(|info| serde_json::from_value(info.clone()).ok());
    let instructions = result.get("instructions").and_then(Value::as_str).map(str::to_owned);
    Ok(Negotiated { era: Era::Stateless, version: version.to_owned(), server_info, capabilities, instructions })
}

/// `initialize`: a session in a handshake version.
pub(crate) async fn initialize(client: &Client, version: ProtocolVersion) -> Result<Negotiated, Error> {
    client.session.wire().speak(None);
    let params = json!({
        "protocolVersion": version.as_str(),
        "capabilities": client.session.capabilities(),
        "clientInfo": client.session.client_info,
    });
    let params = params.as_object().cloned().unwrap_or_default();
    let result = client.session.request(methods::INITIALIZE.into(), params.into(), RequestOptions::default()).await?;
    let result: InitializeResult =
        serde_json::from_str(result.get()).map_err(|e| Error::protocol(format!("initialize's result: {e}")))?;
    if !result.protocol_version.uses_handshake() {
        return Err(Error::protocol(format!("initialize answered with {}", result.protocol_version.as_str())));
    }
    let version = result.protocol_version.as_str();
    client.session.wire().speak(Some(version));
    Ok(Negotiated {
        era: Era::Handshake,
        version: version.to_owned(),
        server_info: Some(result.server_info),
        capabilities: result.capabilities,
        instructions: result.instructions,
    })
}
