//! Typed output: a request's answer, serialized once from the handler's
//! result struct, with the era's additions (`resultType`, the server's
//! name, cache hints) written beside it rather than patched into a `Value`.

use std::sync::Arc;

use mcp_core::{ErrorObject, JsonObject, Outcome, RequestId, Response, envelope};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::value::RawValue;

/// A result struct a handler returns. Its own `_meta` is taken out so the
/// projection can add the server's entries to it in one object.
pub(crate) trait ResultBody: Serialize {
    /// Its `resultType` in 2026-07-28.
    const RESULT_TYPE: &'static str = "complete";
    /// It carries `resultType` in the handshake versions too (the tasks
    /// extension's results, which clients of either era tell apart by it).
    const TYPED_IN_EVERY_ERA: bool = false;

    /// The result's own `_meta`, taken out of it.
    fn take_meta(&mut self) -> Option<JsonObject> {
        None
    }
}

impl ResultBody for mcp_core::CallToolResult {
    fn take_meta(&mut self) -> Option<JsonObject> {
        self.meta.take()
    }
}

/// A 2026-07-28 request that waits for the client's answers; never
/// cached.
impl ResultBody for mcp_core::InputRequiredResult {
    const RESULT_TYPE: &'static str = "input_required";

    fn take_meta(&mut self) -> Option<JsonObject> {
        self.meta.take()
    }
}

impl ResultBody for mcp_core::InitializeResult {
    fn take_meta(&mut self) -> Option<JsonObject> {
        self.meta.take()
    }
}

/// `{}`: the result of `ping` and `logging/setLevel`.
#[derive(Serialize)]
pub(crate) struct Empty {}

impl ResultBody for Empty {}

/// How results are shaped for one request's era: what 2026-07-28 adds to
/// every result, and the cache hints of cacheable ones. Cheap to clone
/// into a call's future.
#[derive(Clone, Debug, Default)]
pub(crate) struct Projection {
    /// The server, as 2026-07-28 results name it; `None` for the
    /// handshake versions, whose results carry nothing extra.
    server_info: Option<Arc<RawValue>>,
    /// `ttlMs`, on cacheable results in 2026-07-28.
    ttl_ms: Option<u64>,
    /// `cacheScope: "private"` instead of `"public"`: the result depends
    /// on the request's access token.
    private: bool,
}

impl Projection {
    /// A handshake-era projection: results go out as they are.
    pub(crate) fn handshake() -> Projection {
        Projection::default()
    }

    /// A 2026-07-28 projection; `ttl_ms` is set for cacheable methods.
    pub(crate) fn stateless(server_info: Arc<RawValue>, ttl_ms: Option<u64>, private: bool) -> Projection {
        Projection { server_info: Some(server_info), ttl_ms, private }
    }

    /// The answer to request `id` with `body`, serialized once.
    pub(crate) fn answer<T: ResultBody>(&self, id: RequestId, mut body: T) -> Answer {
        let own = body.take_meta();
        let complete = T::RESULT_TYPE == "complete";
        let ttl_ms = self.ttl_ms.filter(|_| complete);
        let stamped = Stamped {
            body,
            result_type: (self.server_info.is_some() || T::TYPED_IN_EVERY_ERA).then_some(T::RESULT_TYPE),
            ttl_ms,
            cache_scope: ttl_ms.map(|_| if self.private { "private" } else { "public" }),
            meta: Meta { own, server_info: self.server_info.as_deref() },
        };
        match serde_json::value::to_raw_value(&stamped) {
            Ok(raw) => Answer { id: Some(id), outcome: Ok(raw) },
            Err(e) => {
                tracing::error!(error = %e, "a result could not be serialized");
                Answer::error(Some(id), ErrorObject::internal_error())
            }
        }
    }
}

#[derive(Serialize)]
struct Stamped<'a, T> {
    #[serde(flatten)]
    body: T,
    #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    cache_scope: Option<&'static str>,
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_empty")]
    meta: Meta<'a>,
}

/// A result's `_meta`: its own entries, then the server's name.
struct Meta<'a> {
    own: Option<JsonObject>,
    server_info: Option<&'a RawValue>,
}

impl Meta<'_> {
    fn is_empty(&self) -> bool {
        self.own.is_none() && self.server_info.is_none()
    }
}

impl Serialize for Meta<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (key, value) in self.own.iter().flatten() {
            if self.server_info.is_none() || key != envelope::SERVER_INFO {
                map.serialize_entry(key, value)?;
            }
        }
        if let Some(info) = self.server_info {
            map.serialize_entry(envelope::SERVER_INFO, info)?;
        }
        map.end()
    }
}

/// One response, ready to send: the result already serialized.
#[derive(Debug)]
pub(crate) struct Answer {
    id: Option<RequestId>,
    outcome: Result<Box<RawValue>, ErrorObject>,
}

impl Answer {
    /// An error answer; `id` is `None` when the request's id is unknown.
    pub(crate) fn error(id: Option<RequestId>, error: ErrorObject) -> Answer {
        Answer { id, outcome: Err(error) }
    }

    /// What this answer carries: a result, or an error.
    pub(crate) fn outcome(&self) -> Result<&RawValue, &ErrorObject> {
        self.outcome.as_deref()
    }

    /// The error this answer carries, if it is one.
    pub(crate) fn error_object(&self) -> Option<&ErrorObject> {
        self.outcome.as_ref().err()
    }
}

impl From<Response> for Answer {
    fn from(response: Response) -> Answer {
        let outcome = match response.outcome {
            Outcome::Result(value) => {
                serde_json::value::to_raw_value(&value).map_err(|_| ErrorObject::internal_error())
            }
            Outcome::Error(error) => Err(error),
        };
        Answer { id: response.id, outcome }
    }
}

impl Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn json_of(answer: &Answer) -> Value {
        serde_json::to_value(answer).unwrap()
    }

    #[test]
    fn handshake_results_go_out_as_they_are() {
        let mut result = mcp_core::CallToolResult::success(vec![mcp_core::Content::text("hi")]);
        result.meta = Some(json!({"com.example/k": 1}).as_object().unwrap().clone());
        let answer = Projection::handshake().answer(RequestId::Number(7), result);
        assert_eq!(
            json_of(&answer),
            json!({"jsonrpc": "2.0", "id": 7, "result": {
                "content": [{"type": "text", "text": "hi"}], "_meta": {"com.example/k": 1}
            }})
        );
    }

    #[test]
    fn stateless_results_are_stamped_once_with_their_own_meta_kept() {
        let info: Arc<RawValue> =
            serde_json::value::to_raw_value(&mcp_core::Implementation::new("s", "1")).unwrap().into();
        let mut result = mcp_core::CallToolResult::success(Vec::new());
        result.meta = Some(json!({"com.example/k": 1}).as_object().unwrap().clone());
        let answer = Projection::stateless(info.clone(), None, false).answer(RequestId::Number(1), result);
        assert_eq!(
            json_of(&answer)["result"],
            json!({"content": [], "resultType": "complete",
                "_meta": {"com.example/k": 1, "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
        );
        let answer = Projection::stateless(info, Some(0), false).answer(RequestId::Number(2), Empty {});
        assert_eq!(
            json_of(&answer)["result"],
            json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
        );
    }
}
