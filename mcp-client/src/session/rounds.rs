//! 2026-07-28's input-required rounds: a result that asks for input is
//! answered (by the request's own handler or the client's) and the
//! request sent again with the answers, until it completes.

use std::borrow::Cow;
use std::sync::Arc;

use mcp_core::JsonObject;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{RequestOptions, Session};
use crate::Error;
use crate::params::Params;

/// How many rounds of input one request may ask for before the client
/// gives up (a server that asks forever is broken).
const MAX_ROUNDS: usize = 16;

impl Session {
    /// [`request`](Self::request) in the session as it is.
    pub(super) async fn request_rounds(
        self: &Arc<Self>,
        method: &str,
        params: &mut Params,
        options: &RequestOptions,
    ) -> Result<Box<RawValue>, Error> {
        for _ in 0..MAX_ROUNDS {
            let result = self.request_once(method, params, options).await?;
            if !asks_for_input(&result) {
                return Ok(result);
            }
            // Boxed: the rounds' state would otherwise weigh on every
            // request's future, and few requests have rounds.
            Box::pin(self.give_input(&result, params.members(), options)).await?;
        }
        Err(Error::protocol(format!("the server asked for input more than {MAX_ROUNDS} times in a row")))
    }

    /// Answer the input requests of `result` (an `input_required` one)
    /// and put the answers, and the state to send back, in the retry's
    /// `params`.
    async fn give_input(
        &self,
        result: &RawValue,
        params: &mut JsonObject,
        options: &RequestOptions,
    ) -> Result<(), Error> {
        let result: Value = serde_json::from_str(result.get()).map_err(|e| Error::protocol(e.to_string()))?;
        let mut responses = Map::new();
        let requests = result.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
        for (key, request) in requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
            let asked = request.get("params").and_then(Value::as_object).cloned();
            let answer = match &options.answers {
                Some(answers) => answers(method.clone(), asked).await,
                None => self.handlers.answer(&method, asked).await,
            };
            let answer = answer.map_err(|error| {
                Error::protocol(format!("the server asked for input ({method}) the client cannot give: {error}"))
            })?;
            responses.insert(key, answer);
        }
        params.insert("inputResponses".into(), Value::Object(responses));
        match result.get("requestState") {
            Some(state) => params.insert("requestState".into(), state.clone()),
            None => params.remove("requestState"),
        };
        Ok(())
    }
}

/// Whether `result` asks for input before it can complete (2026-07-28's
/// `resultType: "input_required"`).
fn asks_for_input(result: &RawValue) -> bool {
    /// A result's type, the rest of it skipped.
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "resultType", default, borrow)]
        result_type: Option<Cow<'a, str>>,
    }
    // The key is in the text as written, or escaped with `\u`: a text
    // with neither (a handshake server's results) is not read again.
    let text = result.get();
    if !text.contains("resultType") && !text.contains("\\u") {
        return false;
    }
    let input_required = |kind: Option<&str>| kind == Some("input_required");
    match serde_json::from_str::<Kind>(text) {
        Ok(kind) => input_required(kind.result_type.as_deref()),
        // A member twice, a type that is not a string: as a value reads it.
        Err(_) => serde_json::from_str::<Value>(text)
            .is_ok_and(|result| input_required(result.get("resultType").and_then(Value::as_str))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_asks_for_input_as_its_value_would_say() {
        let cases = [
            (r#"{"content":[{"type":"text","text":"6"}]}"#, false),
            (r#"{"resultType":"complete","content":[]}"#, false),
            (r#"{"inputRequests":{},"resultType":"input_required"}"#, true),
            (r#"{"result\u0054ype":"input_required"}"#, true),
            (r#"{"resultType":"complete","resultType":"input_required"}"#, true),
            (r#"{"resultType":7}"#, false),
            (r#"{"structuredContent":{"resultType":"input_required"}}"#, false),
            (r#"["resultType"]"#, false),
        ];
        for (text, asks) in cases {
            let result = RawValue::from_string(text.to_owned()).unwrap();
            assert_eq!(asks_for_input(&result), asks, "{text}");
        }
    }
}
