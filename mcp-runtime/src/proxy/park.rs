//! Calls that wait across rounds: a 2026-07-28 client's call to an
//! upstream that keeps sessions. Such an upstream asks its question as a
//! request on its session and waits for the answer; the client gets the
//! question as an input-required result and answers with a retry, which
//! may come much later. In between, the upstream call is parked here,
//! keyed by an id kept in the request's sealed state (`Context::once`).
//! The retry finds it, asks again the questions of earlier rounds (their
//! answers come with the retry), hands the upstream the new answer, and
//! waits for the next question or the result. The upstream call runs
//! once, however many rounds the client takes.
//!
//! A retry that reaches a process without the parked call (another
//! replica, or after it expired) starts the call afresh, as a tool
//! written for 2026-07-28 runs again each round.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_core::{ErrorObject, JsonObject};
use mcp_runtime_client::{Client, Error as ClientError};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::link::{Conn, ask};
use crate::request::Context;

/// How many calls may wait for their clients at once.
const MAX_PARKED: usize = 1024;
/// How long a parked call waits for its client's retry.
const LIFETIME: Duration = Duration::from_secs(15 * 60);

/// One of the upstream's questions, and where its answer goes.
pub(crate) struct Question {
    pub(crate) method: String,
    pub(crate) params: Option<JsonObject>,
    pub(crate) reply: oneshot::Sender<Result<Value, ErrorObject>>,
}

/// One parked call.
struct Parked {
    state: tokio::sync::Mutex<State>,
    created: Instant,
    task: tokio::task::AbortHandle,
}

struct State {
    questions: mpsc::Receiver<Question>,
    /// Every question asked so far, in order.
    asked: Vec<(String, Option<JsonObject>)>,
    /// Where the answer to the last question goes, until it is given.
    pending: Option<oneshot::Sender<Result<Value, ErrorObject>>>,
    result: oneshot::Receiver<Result<Value, ClientError>>,
}

impl Drop for Parked {
    fn drop(&mut self) {
        // A call no client came back for is cancelled upstream.
        self.task.abort();
    }
}

/// The parked calls of one mount.
pub(crate) struct Parking {
    calls: Mutex<HashMap<String, Arc<Parked>>>,
    next: AtomicU64,
    /// Tells this process's ids from another's.
    nonce: u64,
}

impl Default for Parking {
    fn default() -> Self {
        let mut bytes = [0; 8];
        let _ = getrandom::fill(&mut bytes);
        Parking { calls: Mutex::default(), next: AtomicU64::new(0), nonce: u64::from_le_bytes(bytes) }
    }
}

impl Parking {
    /// Forward `method` with `params` for `ctx`'s request on `conn`, or
    /// go on with the call an earlier round of it parked.
    pub(crate) async fn forward(
        &self,
        ctx: &Context,
        conn: &Arc<Conn>,
        client: Client,
        method: &str,
        params: JsonObject,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let fresh = async { format!("{:x}-{}", self.nonce, self.next.fetch_add(1, Ordering::Relaxed)) };
        let key: String = ctx.once("mcp-runtime/parked-call", fresh).await;
        let parked = self.find_or_start(&key, conn, client, method, params, timeout)?;
        let mut state = parked.state.lock().await;
        let State { questions, asked, pending, result } = &mut *state;
        // The questions of earlier rounds, in order: their answers came
        // with this retry, and the last one's is what the upstream awaits.
        let history = asked.clone();
        for (at, (method, params)) in history.into_iter().enumerate() {
            let answer = ask(ctx, &method, params).await;
            if at + 1 == asked.len()
                && let Some(reply) = pending.take()
            {
                let _ = reply.send(answer);
            }
        }
        let mut open = true;
        loop {
            tokio::select! {
                question = questions.recv(), if open => match question {
                    Some(Question { method, params, reply }) => {
                        asked.push((method.clone(), params.clone()));
                        *pending = Some(reply);
                        // In 2026-07-28 this ends the round unless the
                        // retry brought the answer.
                        let answer = ask(ctx, &method, params).await;
                        if let Some(reply) = pending.take() {
                            let _ = reply.send(answer);
                        }
                    }
                    None => open = false,
                },
                done = &mut *result => {
                    drop(state);
                    self.calls.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
                    return done.unwrap_or_else(|_| Err(ClientError::Closed("the upstream call was stopped".into())));
                }
            }
        }
    }

    fn find_or_start(
        &self,
        key: &str,
        conn: &Arc<Conn>,
        client: Client,
        method: &str,
        params: JsonObject,
        timeout: Duration,
    ) -> Result<Arc<Parked>, ClientError> {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.retain(|_, parked| parked.created.elapsed() < LIFETIME);
        if let Some(parked) = calls.get(key) {
            return Ok(parked.clone());
        }
        if calls.len() >= MAX_PARKED {
            return Err(ClientError::Server(ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                "too many calls are waiting for their clients' answers; try again later",
            )));
        }
        let (asking, questions) = mpsc::channel(4);
        let (done, result) = oneshot::channel();
        let entered = conn.enter_parked(asking);
        let method = method.to_owned();
        let task = tokio::spawn(async move {
            let _entered = entered;
            let _ = done.send(client.forward(&method, params).timeout(timeout).await);
        });
        let state = State { questions, asked: Vec::new(), pending: None, result };
        let parked = Arc::new(Parked {
            state: tokio::sync::Mutex::new(state),
            created: Instant::now(),
            task: task.abort_handle(),
        });
        calls.insert(key.to_owned(), parked.clone());
        Ok(parked)
    }
}
