//! Serve one connection over a byte stream of newline-delimited JSON-RPC:
//! read, dispatch, run each tool call as its own task, write.

use std::collections::HashMap;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_core::{ErrorObject, Message, RequestId};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};

use super::lines::{Line, read_line, write_lines};
use crate::dispatch::outgoing::{Backlog, Outgoing};
use crate::dispatch::reply::Answer;
use crate::dispatch::{Action, Session};
use crate::request::context::Cancellation;
use crate::server::Shared;
use crate::tools::BoxFuture;

/// Limits of one connection.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) max_message_size: usize,
    pub(crate) shutdown_grace: Duration,
    /// Calls running at once; at the limit the connection reads no more
    /// until one ends (`Server::max_running_calls`).
    pub(crate) max_running_calls: usize,
    /// Bytes queued for the client and not yet written; past it the
    /// connection reads no more until the client reads
    /// (`Server::max_queued_output`).
    pub(crate) max_queued_output: usize,
}

/// Serve until the peer closes its side (or the output breaks), then let
/// running calls finish within the grace period and flush every response.
pub(crate) async fn serve<R, W>(shared: Arc<Shared>, reader: R, writer: W, limits: Limits) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_over(None, shared, reader, writer, limits).await
}

/// [`serve`] a client known to be on the other end of `transport` (its
/// requests' spans say so: `pipe` for stdio).
pub(crate) async fn serve_over<R, W>(
    transport: Option<&'static str>,
    shared: Arc<Shared>,
    reader: R,
    writer: W,
    limits: Limits,
) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (queue, written) = mpsc::unbounded_channel::<Vec<u8>>();
    let backlog = Backlog::new(limits.max_queued_output);
    let writer = tokio::spawn(write_lines(writer, written, Some(backlog.clone())));
    let outgoing = Outgoing::counted(queue, backlog.clone());
    let out = outgoing.clone();
    let mut session = Session::new(shared, outgoing.clone());
    if let Some(transport) = transport {
        session = session.over(transport);
    }
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut line = Vec::new();
    let mut calls = JoinSet::new();
    // Running calls and open subscriptions (`true`), by request id.
    let mut running: HashMap<RequestId, (AbortHandle, Cancellation, bool)> = HashMap::new();

    loop {
        // Backpressure: read nothing more while the client leaves our
        // output unread, or while as many calls run as the limit allows.
        // Either way memory stays bounded whatever the client sends.
        backlog.settled().await;
        while let Some(done) = calls.try_join_next() {
            forget(&mut running, done);
        }
        while running.values().filter(|(_, _, subscription)| !subscription).count() >= limits.max_running_calls {
            let Some(done) = calls.join_next().await else { break };
            forget(&mut running, done);
        }
        // A client that closed our output is gone: stop at once rather
        // than at its next line (which may never come).
        let read = tokio::select! {
            read = read_line(&mut reader, &mut line, limits.max_message_size) => read,
            () = out.tx.closed() => {
                tracing::info!("the client closed the server's output; ending the connection");
                break;
            }
        };
        let parsed = match read {
            Ok(Line::Message) => parse_line(&line),
            Ok(Line::TooLong(size)) => Parsed::Reply(Answer::error(
                None,
                ErrorObject::invalid_request(format!(
                    "message of {size} bytes exceeds the limit of {} bytes",
                    limits.max_message_size
                )),
            )),
            Ok(Line::Eof) => break,
            Err(e) => {
                tracing::error!(error = %e, "reading the transport failed");
                break;
            }
        };
        let message = match parsed {
            Parsed::Message(message) => message,
            Parsed::Blank => continue,
            Parsed::Batch(items) => {
                match session.batch(items, &outgoing) {
                    Ok((cancels, answers)) => {
                        for id in cancels {
                            if let Some((handle, cancellation, _)) = running.remove(&id) {
                                handle.abort();
                                cancellation.cancel();
                            }
                        }
                        let out = out.clone();
                        // A batch's calls are answered together and are
                        // not cancellable one by one.
                        calls.spawn(async move {
                            let responses = answers.await;
                            if !responses.is_empty() {
                                out.send(&responses);
                            }
                            None
                        });
                    }
                    Err(error) => out.send(&Answer::error(None, error)),
                }
                continue;
            }
            Parsed::Reply(answer) => {
                out.send(&answer);
                continue;
            }
        };
        // An id still in use is refused before its request does anything
        // (a subscription would otherwise be acknowledged, then refused);
        // calls that ended while the line was read free theirs first.
        while let Some(done) = calls.try_join_next() {
            forget(&mut running, done);
        }
        if let Message::Request(request) = &message
            && running.get(&request.id).is_some_and(|(handle, _, _)| !handle.is_finished())
        {
            let id = request.id.clone();
            let error = ErrorObject::invalid_request(format!("request id {id} is already in use by a running request"));
            out.send(&Answer::error(Some(id), error));
            continue;
        }
        let action = session.handle(message, &outgoing);
        let subscription = matches!(action, Action::Listen(..));
        match action {
            Action::None => {}
            Action::Reply(answer) => out.send(&answer),
            Action::Call(id, mut future, cancellation) | Action::Listen(id, mut future, cancellation) => {
                // A call that completes at once (most tools) is answered
                // here: a task of its own would only hand its answer back
                // across threads. One that waits goes on as its own task.
                if !subscription && let std::task::Poll::Ready(answer) = first_poll(&mut future).await {
                    out.send(&answer);
                    continue;
                }
                let out = out.clone();
                let task_id = id.clone();
                let handle = calls.spawn(async move {
                    out.send(&future.await);
                    Some(task_id)
                });
                running.insert(id, (handle, cancellation, subscription));
            }
            Action::Cancel(id) => {
                // Dropping the future stops the tool at its next `.await`;
                // the spec sends no response for a cancelled request.
                // Aborted before the signal, so a subscription cannot send
                // its closing answer after all.
                if let Some((handle, cancellation, _)) = running.remove(&id) {
                    handle.abort();
                    cancellation.cancel();
                }
            }
        }
        if out.is_closed() {
            break;
        }
    }

    // Subscriptions never end on their own: close them gracefully (each
    // answers its `subscriptions/listen`) so only real calls are waited for.
    running
        .values()
        .filter(|(_, _, subscription)| *subscription)
        .for_each(|(_, cancellation, _)| cancellation.cancel());
    if !calls.is_empty() {
        let drained =
            tokio::time::timeout(limits.shutdown_grace, async { while calls.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            tracing::warn!(
                running = calls.len(),
                grace = ?limits.shutdown_grace,
                "input closed; cancelling calls still running after the grace period"
            );
            running.values().for_each(|(_, cancellation, _)| cancellation.cancel());
            calls.shutdown().await;
        }
    }
    // The end-of-stream marker; everything sent before it is written first.
    out.end();
    drop((out, outgoing));
    match writer.await {
        // A client that stopped reading is a normal end, not a failure.
        Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Ok(result) => result,
        Err(e) => Err(io::Error::other(e)),
    }
}

/// Poll a call once where its request was read (see
/// [`poll_once`](crate::dispatch::poll_once)). Until it first waits, the
/// connection reads nothing: a first poll longer than [`SLOW_FIRST_POLL`]
/// (a synchronous tool doing slow work) is logged once, with what to do.
async fn first_poll(future: &mut BoxFuture<'static, Answer>) -> std::task::Poll<Answer> {
    static WARNED: AtomicBool = AtomicBool::new(false);
    let started = Instant::now();
    let polled = crate::dispatch::poll_once(future).await;
    let took = started.elapsed();
    if took > SLOW_FIRST_POLL && !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "a call ran {took:?} before it first waited, and the connection read nothing meanwhile: make slow \
             tools `async` and move blocking work into `tokio::task::spawn_blocking` (logged once)"
        );
    }
    polled
}

/// How long a call may run before it first waits without a warning.
const SLOW_FIRST_POLL: Duration = Duration::from_millis(50);

/// A call or subscription that ended: its id is free again.
fn forget(
    running: &mut HashMap<RequestId, (AbortHandle, Cancellation, bool)>,
    done: Result<Option<RequestId>, tokio::task::JoinError>,
) {
    if let Ok(Some(id)) = done {
        running.remove(&id);
    }
}

/// What one line holds.
enum Parsed {
    Message(Message),
    /// A blank line, ignored.
    Blank,
    /// A JSON array: a batch, if the session takes them.
    Batch(Vec<Value>),
    /// Not a message: the error answer it deserves.
    Reply(Answer),
}

fn parse_line(line: &[u8]) -> Parsed {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Blank;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => return Parsed::Reply(Answer::error(None, ErrorObject::parse_error(e))),
    };
    if let Value::Array(items) = value {
        return Parsed::Batch(items);
    }
    match Message::from_value(value) {
        Ok(message) => Parsed::Message(message),
        Err(invalid) if invalid.notification => {
            tracing::debug!(reason = %invalid.reason, "ignoring a malformed notification (notifications get no answer)");
            Parsed::Blank
        }
        Err(invalid) => Parsed::Reply(invalid.into_response().into()),
    }
}
