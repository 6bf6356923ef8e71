//! Serve one connection over any [`Transport`]: read, parse, hand each
//! message to dispatch and its running calls, write. The same loop serves
//! stdio, in-memory clients and any transport of a user's own.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use mcp_core::jsonrpc::Text;
use mcp_core::{ErrorObject, Message};
use serde_json::Value;
use tokio::sync::mpsc;

use super::message::{ReadMessages, Received, Transport, WriteMessages};
use crate::dispatch::Session;
use crate::dispatch::arrival::Arrival;
use crate::dispatch::calls::{Calls, Ids, Submitted};
use crate::dispatch::frame::Frame;
use crate::dispatch::outgoing::{Backlog, Outgoing};
use crate::dispatch::reply::Answer;
use crate::server::Shared;

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
    /// Ping a handshake-era client this often, and end the connection if
    /// it does not answer within the deadline (`Server::keep_alive`).
    pub(crate) keep_alive: Option<super::keepalive::KeepAlive>,
}

/// Serve one client over `transport` until it closes its side (or the
/// output breaks), then let running calls finish within the grace period
/// and flush every answer. `network` names the transport in each
/// request's span (`pipe` for stdio).
pub(crate) async fn serve<T: Transport>(
    transport: T,
    network: Option<&'static str>,
    shared: Arc<Shared>,
    limits: Limits,
) -> io::Result<()> {
    let (mut reader, writer) = transport.split();
    let (queue, written) = mpsc::unbounded_channel::<Frame>();
    let backlog = Backlog::new(limits.max_queued_output);
    let writer = tokio::spawn(pump(writer, written, backlog.clone()));
    let out = Outgoing::counted(queue, backlog.clone());
    let mut session = Session::new(shared, out.clone());
    if let Some(network) = network {
        session = session.over(network);
    }
    let mut message = Vec::new();
    let calls = Calls::new(limits.max_running_calls, Ids::Shared);
    let mut silent = Box::pin(super::keepalive::watch(limits.keep_alive, &session));

    loop {
        // Backpressure: read nothing more while the client leaves our
        // output unread, or while as many calls run as the limit allows.
        // Either way memory stays bounded whatever the client sends.
        backlog.settled().await;
        calls.admit().await;
        // A client that closed our output is gone: stop at once rather
        // than at its next message (which may never come).
        let read = tokio::select! {
            read = reader.read(&mut message, limits.max_message_size) => read,
            () = out.tx.closed() => {
                tracing::info!("the client closed the server's output; ending the connection");
                break;
            }
            () = &mut silent => break,
        };
        let parsed = match read {
            Ok(Received::Message) => parse(&message),
            Ok(Received::TooLarge(size)) => Parsed::Reply(Answer::error(
                None,
                ErrorObject::invalid_request(format!(
                    "message of {size} bytes exceeds the limit of {} bytes",
                    limits.max_message_size
                )),
            )),
            Ok(Received::Closed) => break,
            Err(e) => {
                tracing::error!(error = %e, "reading the transport failed");
                break;
            }
        };
        match parsed {
            Parsed::Blank => {}
            Parsed::Reply(answer) => out.answer(&answer),
            Parsed::Batch(items) => {
                if let Err(refusal) = calls.submit_batch(&session, items, &out).await {
                    out.answer(&refusal);
                }
            }
            Parsed::Message(message) => {
                // A call that runs answers on `out` itself when it ends.
                if let Submitted::Answered(answer) =
                    calls.submit(&session, message, &out, Arrival::default(), false).await
                {
                    out.answer(&answer);
                }
            }
        }
        if out.is_closed() {
            break;
        }
    }

    drop(silent);
    calls.drain(limits.shutdown_grace).await;
    // The end-of-stream marker; everything sent before it is written first.
    out.end();
    drop((out, session));
    match writer.await {
        // A client that stopped reading is a normal end, not a failure.
        Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Ok(result) => result,
        Err(e) => Err(io::Error::other(e)),
    }
}

/// Hand the queued messages to the transport's writer: every message that
/// is queued when a write starts goes in the same write (up to a limit), so
/// a burst of answers costs one write, not one each. Stops at
/// [`Frame::End`]: senders can outlive the connection (a tool may keep its
/// `Context` in a task of its own), so waiting for every sender to go
/// could wait forever.
async fn pump<W: WriteMessages>(
    mut writer: W,
    mut queue: mpsc::UnboundedReceiver<Frame>,
    backlog: Arc<Backlog>,
) -> io::Result<()> {
    const BATCH_LIMIT: usize = 1 << 20;
    while let Some(first) = queue.recv().await {
        let mut batch = Vec::new();
        // The messages' own bytes, as counted when queued.
        let mut payload = 0;
        let mut done = false;
        let mut next = Some(first);
        while let Some(frame) = next.take() {
            match frame {
                Frame::Answer { bytes, .. } | Frame::Message(bytes) => {
                    payload += bytes.len();
                    batch.push(bytes);
                }
                // A connection the client cannot resume is never asked
                // to close.
                Frame::CloseConnection => {}
                Frame::End => {
                    done = true;
                    break;
                }
            }
            if payload < BATCH_LIMIT {
                next = queue.try_recv().ok();
            }
        }
        if !batch.is_empty() {
            let written = writer.write(batch).await;
            backlog.written(payload);
            written?;
        }
        if done {
            break;
        }
    }
    queue.close();
    writer.close().await
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

fn parse(line: &[u8]) -> Parsed {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Blank;
    }
    match Message::parse(line) {
        Text::Message(message) => Parsed::Message(message),
        Text::NotJson(e) => Parsed::Reply(Answer::error(None, ErrorObject::parse_error(e))),
        Text::Batch(items) => Parsed::Batch(items),
        Text::Invalid(invalid) if invalid.notification => {
            tracing::debug!(reason = %invalid.reason, "ignoring a malformed notification (notifications get no answer)");
            Parsed::Blank
        }
        Text::Invalid(invalid) => Parsed::Reply(invalid.into_response().into()),
    }
}
