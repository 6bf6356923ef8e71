//! Multi-round requests (2026-07-28's MRTR): a handler that asks the
//! client something is stopped at the first poll in which it waits for an
//! answer the request did not bring, and the request is answered with an
//! `InputRequiredResult` listing every question asked in that poll and a
//! sealed `requestState`. The client's retry brings the answers; the
//! handler runs again from the start, and each ask now returns its answer
//! at once.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

use mcp_core::jsonrpc::kind_of;
use mcp_core::{ErrorObject, InputRequest, InputRequiredResult, JsonObject};
use serde_json::Value;

use super::seal::{Binding, Carried, Keys};
use crate::dispatch::Incoming;

/// The params keys that carry a retry's answers and state.
const INPUT_RESPONSES: &str = "inputResponses";
const REQUEST_STATE: &str = "requestState";

/// What a retry of a multi-round request brings in its params: the
/// answers and the state, taken out before the params are read.
#[derive(Default)]
pub(crate) struct Retry {
    responses: Option<Value>,
    state: Option<Value>,
}

impl Retry {
    /// Keep `value` if `key` names one of a retry's members; hand it back
    /// otherwise (for a method that reads its params in one pass).
    pub(crate) fn take_member(&mut self, key: &str, value: Value) -> Option<Value> {
        match key {
            INPUT_RESPONSES => self.responses = Some(value),
            REQUEST_STATE => self.state = Some(value),
            _ => return Some(value),
        }
        None
    }

    /// Whether the request brought neither answers nor a state: a first
    /// round.
    pub(crate) fn is_empty(&self) -> bool {
        self.responses.is_none() && self.state.is_none()
    }

    /// Take `inputResponses` and `requestState` out of `params`.
    pub(crate) fn take(params: &mut JsonObject) -> Retry {
        Retry { responses: params.remove(INPUT_RESPONSES), state: params.remove(REQUEST_STATE) }
    }

    /// The rounds of `request` (to `method` on `target` with `arguments`):
    /// none in the handshake versions, which ask the client directly.
    pub(crate) fn begin(
        self,
        request: &Incoming<'_>,
        method: &'static str,
        target: &str,
        arguments: &JsonObject,
    ) -> Result<Option<Arc<Rounds>>, ErrorObject> {
        if request.version.uses_handshake() {
            return Ok(None);
        }
        Rounds::begin(&request.shared().request_state, method, target, arguments, self).map(|r| Some(Arc::new(r)))
    }
}

/// One request's rounds: the answers it brought, the questions its
/// handler asked, and the values kept across rounds.
#[derive(Debug)]
pub(crate) struct Rounds {
    keys: Arc<Keys>,
    binding: Bound,
    inner: Mutex<Inner>,
}

/// What the request's state is bound to. A first round (no state to open)
/// keeps what the binding is made of and hashes it only when a state is
/// sealed: most requests never ask the client anything, and hashing
/// their arguments would be work for nothing on every call.
#[derive(Debug)]
enum Bound {
    Hashed(Binding),
    Later { method: &'static str, target: String, arguments: JsonObject },
}

impl Bound {
    fn binding(&self) -> Binding {
        match self {
            Bound::Hashed(binding) => binding.clone(),
            Bound::Later { method, target, arguments } => Binding::new(method, target, arguments),
        }
    }
}

#[derive(Debug, Default)]
struct Inner {
    /// Every answer available: the state's, then the retry's.
    answers: JsonObject,
    /// The keys of the answers this run used (only those are carried on).
    used: Vec<String>,
    /// Questions asked and not answered, by key.
    asked: serde_json::Map<String, Value>,
    /// Values kept with `Context::once`.
    kept: JsonObject,
    /// How many default keys were handed out.
    counter: u32,
    /// The round's driver, woken when a question is asked.
    waker: Option<Waker>,
}

impl Rounds {
    /// The rounds of a 2026-07-28 request to `method` on `target` with
    /// `arguments`, from what its retry brought. A state that was altered,
    /// has expired or belongs to another request is refused with
    /// `-32602`, as are answers that are not an object.
    fn begin(
        keys: &Arc<Keys>,
        method: &'static str,
        target: &str,
        arguments: &JsonObject,
        retry: Retry,
    ) -> Result<Rounds, ErrorObject> {
        let responses = match retry.responses {
            None => JsonObject::new(),
            Some(Value::Object(responses)) => responses,
            Some(other) => {
                return Err(ErrorObject::invalid_params(format!(
                    "`{INPUT_RESPONSES}` must be an object of answers keyed like `inputRequests`, not {}",
                    kind_of(&other)
                )));
            }
        };
        let (binding, carried) = match retry.state {
            None => {
                let later = Bound::Later { method, target: target.to_owned(), arguments: arguments.clone() };
                (later, Carried::default())
            }
            Some(Value::String(state)) => {
                let binding = Binding::new(method, target, arguments);
                let carried =
                    keys.open(&state, &binding).map_err(|why| ErrorObject::invalid_params(why.to_string()))?;
                (Bound::Hashed(binding), carried)
            }
            Some(other) => {
                return Err(ErrorObject::invalid_params(format!(
                    "`{REQUEST_STATE}` must be the string the server sent, not {}",
                    kind_of(&other)
                )));
            }
        };
        let Carried { mut answers, kept } = carried;
        answers.extend(responses);
        Ok(Rounds { keys: keys.clone(), binding, inner: Mutex::new(Inner { answers, kept, ..Inner::default() }) })
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A key for the next question that names none: its kind and its place
    /// among the handler's questions, which is the same in every round as
    /// long as the handler asks in the same order.
    pub(crate) fn next_key(&self, kind: &str) -> String {
        let mut inner = self.inner();
        inner.counter += 1;
        format!("{kind}-{}", inner.counter)
    }

    /// The answer to the question `key`, if the request brought one.
    pub(crate) fn answer(&self, key: &str) -> Option<Value> {
        let mut inner = self.inner();
        let answer = inner.answers.get(key).cloned()?;
        if !inner.used.iter().any(|k| k == key) {
            inner.used.push(key.to_owned());
        }
        Some(answer)
    }

    /// Ask `request` under `key` (replacing an answer that did not fit):
    /// the round ends after the handler's current poll.
    pub(crate) fn ask(&self, key: String, request: InputRequest) {
        let mut inner = self.inner();
        inner.used.retain(|k| *k != key);
        inner.answers.remove(&key);
        let request = serde_json::to_value(request).expect("an input request serializes");
        inner.asked.insert(key, request);
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
    }

    /// A value kept under `name` in an earlier round.
    pub(crate) fn kept(&self, name: &str) -> Option<Value> {
        self.inner().kept.get(name).cloned()
    }

    /// Keep `value` under `name` for the rounds to come.
    pub(crate) fn keep(&self, name: &str, value: Value) {
        self.inner().kept.insert(name.to_owned(), value);
    }

    /// The result that ends this round: the questions, and the state that
    /// carries the answers used so far and the kept values.
    fn input_required(&self) -> InputRequiredResult {
        let mut inner = self.inner();
        let inner = &mut *inner;
        let answers = inner.used.iter().filter_map(|k| Some((k.clone(), inner.answers.get(k)?.clone()))).collect();
        let carried = Carried { answers, kept: std::mem::take(&mut inner.kept) };
        InputRequiredResult {
            input_requests: std::mem::take(&mut inner.asked),
            request_state: Some(self.keys.seal(&self.binding.binding(), carried)),
            meta: None,
        }
    }
}

/// How a round ended.
pub(crate) enum Round<T> {
    /// The handler finished.
    Done(T),
    /// The handler waits for the client's answers.
    InputRequired(InputRequiredResult),
}

/// Drive `handler` for one round: to its end, or until a poll leaves it
/// waiting on a question to the client. Without rounds (the handshake
/// versions) it simply runs.
pub(crate) async fn run<F: Future>(rounds: Option<Arc<Rounds>>, handler: F) -> Round<F::Output> {
    let Some(rounds) = rounds else { return Round::Done(handler.await) };
    let mut handler = std::pin::pin!(handler);
    let asked = std::future::poll_fn(|cx| {
        rounds.inner().waker = Some(cx.waker().clone());
        if let Poll::Ready(output) = handler.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        // Every question of this poll is in (`join!` polls all its
        // branches in one poll), so they go out together.
        if rounds.inner().asked.is_empty() { Poll::Pending } else { Poll::Ready(None) }
    })
    .await;
    match asked {
        Some(output) => Round::Done(output),
        None => Round::InputRequired(rounds.input_required()),
    }
}
