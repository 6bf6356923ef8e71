//! Newline-delimited JSON over any byte stream: a child's stdin and stdout,
//! a socket, an in-memory pipe to a server in the same process.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use futures_util::future::BoxFuture;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::Notify;

use super::peek::{Kind, Peek};
use super::{Inbound, Inbox, Outbound, Wire};
use crate::Error;

/// How much of a long line's buffer is kept for the next line: a server's
/// one large answer does not hold its size for the connection's life.
const KEPT_BUFFER: usize = 1 << 20;

/// How many bytes may wait to be written before a sender waits too (a
/// line is always taken when none wait, however long).
const BACKLOG: usize = 256 * 1024;

/// How many bytes of lines the sender writes itself, at once, rather than
/// leave them to the writer task (which runs only once the sender's task
/// yields): a pipelining caller that sends a request for each of a burst
/// of answers gets the server going on the first ones while it handles
/// the rest, with a write per this many bytes rather than per line.
const BURST: usize = 4 * 1024;

/// A wire over a reader and a writer of lines.
pub(crate) struct Lines {
    out: Arc<Out>,
}

/// The writing side, shared by the senders and the task that writes what
/// could not be written at once.
struct Out {
    writing: Mutex<Writing>,
    /// Wakes the writer task: there is a backlog (or the wire closed).
    backlog: Notify,
    /// Wakes senders waiting for the backlog to shrink.
    room: Notify,
}

struct Writing {
    /// `None` once closed: dropping it is what ends a child's input (its
    /// `shutdown` does not).
    io: Option<Pin<Box<dyn AsyncWrite + Send>>>,
    /// What waits to be written, in order, from `written` on.
    backlog: Vec<u8>,
    written: usize,
    /// Written, not yet flushed.
    unflushed: bool,
    /// Why nothing more can be sent, once that is so.
    closed: Option<&'static str>,
    /// The writer task waits for the stream to take more: its waker is
    /// the one the stream wakes, and a stream keeps one, so a sender must
    /// not poll it (with no waker) meanwhile, or the writer task would
    /// never be woken.
    io_waits: bool,
}

/// What became of a line offered to the wire.
enum Offer {
    Taken,
    /// The backlog is full: wait for room.
    Full,
    Closed(&'static str),
}

impl Lines {
    /// Start reading `reader` into `inbox` (lines of up to `max_line`
    /// bytes) and writing to `writer`.
    pub(crate) fn start<R, W>(reader: R, writer: W, inbox: Inbox, max_line: usize) -> Lines
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let writing = Writing {
            io: Some(Box::pin(writer)),
            backlog: Vec::new(),
            written: 0,
            unflushed: false,
            closed: None,
            io_waits: false,
        };
        let out = Arc::new(Out { writing: Mutex::new(writing), backlog: Notify::new(), room: Notify::new() });
        tokio::spawn(write_backlog(out.clone()));
        tokio::spawn(read_lines(BufReader::new(reader), inbox, max_line));
        Lines { out }
    }
}

impl Out {
    /// Take no more lines: the writer task writes what waits, then ends
    /// the stream (a server on stdio sees the end of its input and exits).
    fn end(&self) {
        let mut writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        writing.closed.get_or_insert("the client was closed");
        self.backlog.notify_one();
    }

    /// Take `line`, behind what waits: written at once with it when that
    /// makes a burst ([`BURST`]) and the stream takes it, else left to
    /// the writer task.
    fn offer(&self, line: &[u8]) -> Offer {
        let mut writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let writing = &mut *writing;
        let (Some(io), None) = (writing.io.as_mut(), writing.closed) else {
            return Offer::Closed(writing.closed.unwrap_or("the client was closed"));
        };
        let waiting = writing.backlog.len() - writing.written;
        if waiting >= BACKLOG {
            return Offer::Full;
        }
        writing.backlog.extend_from_slice(line);
        if waiting + line.len() < BURST || writing.io_waits {
            self.backlog.notify_one();
            return Offer::Taken;
        }
        // Polled with no waker: a stream that cannot take it all now is
        // the writer task's to wait for.
        let mut cx = Context::from_waker(Waker::noop());
        while writing.written < writing.backlog.len() {
            match io.as_mut().poll_write(&mut cx, &writing.backlog[writing.written..]) {
                Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => {
                    writing.closed = Some("the server's input is closed");
                    self.backlog.notify_one();
                    return Offer::Closed("the server's input is closed");
                }
                Poll::Ready(Ok(n)) => writing.written += n,
                Poll::Pending => {
                    self.backlog.notify_one();
                    return Offer::Taken;
                }
            }
        }
        writing.backlog.clear();
        writing.written = 0;
        match io.as_mut().poll_flush(&mut cx) {
            Poll::Ready(Ok(())) => Offer::Taken,
            Poll::Ready(Err(_)) => {
                writing.closed = Some("the server's input is closed");
                self.backlog.notify_one();
                Offer::Closed("the server's input is closed")
            }
            Poll::Pending => {
                writing.unflushed = true;
                self.backlog.notify_one();
                Offer::Taken
            }
        }
    }
}

impl Wire for Lines {
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async move {
            let mut line = message.bytes;
            line.push(b'\n');
            loop {
                let room = self.out.room.notified();
                tokio::pin!(room);
                room.as_mut().enable();
                match self.out.offer(&line) {
                    Offer::Taken => return Ok(()),
                    Offer::Closed(why) => return Err(Error::Closed(why.into())),
                    Offer::Full => room.await,
                }
            }
        })
    }

    fn try_send(&self, message: Outbound) -> Result<Result<(), Error>, Outbound> {
        let mut line = message.bytes;
        line.push(b'\n');
        match self.out.offer(&line) {
            Offer::Taken => Ok(Ok(())),
            Offer::Closed(why) => Ok(Err(Error::Closed(why.into()))),
            Offer::Full => {
                line.pop();
                Err(Outbound { bytes: line, ..message })
            }
        }
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.out.end();
        Box::pin(async {})
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.out.end();
    }
}

/// Write what senders could not write at once, as it comes (all that
/// waits in one write), and close the stream once the wire is closed.
async fn write_backlog(out: Arc<Out>) {
    loop {
        out.backlog.notified().await;
        let written = std::future::poll_fn(|cx| {
            let mut writing = out.writing.lock().unwrap_or_else(|e| e.into_inner());
            let polled = write_what_waits(&mut writing, cx);
            writing.io_waits = polled.is_pending();
            polled
        })
        .await;
        out.room.notify_waiters();
        match written {
            Ok(false) => {}
            Ok(true) => return,
            Err(error) => {
                tracing::debug!(%error, "writing to the server failed");
                let mut writing = out.writing.lock().unwrap_or_else(|e| e.into_inner());
                writing.closed = Some("the server's input is closed");
                writing.io = None;
                writing.backlog = Vec::new();
                writing.written = 0;
                drop(writing);
                out.room.notify_waiters();
                return;
            }
        }
    }
}

/// Write the backlog, flush it, and end the stream once the wire is
/// closed: `Ok(true)` when it has ended.
fn write_what_waits(writing: &mut Writing, cx: &mut Context<'_>) -> Poll<std::io::Result<bool>> {
    let Some(io) = writing.io.as_mut() else { return Poll::Ready(Ok(true)) };
    while writing.written < writing.backlog.len() {
        match std::task::ready!(io.as_mut().poll_write(cx, &writing.backlog[writing.written..])) {
            Ok(0) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
            Ok(n) => writing.written += n,
            Err(error) => return Poll::Ready(Err(error)),
        }
    }
    writing.backlog.clear();
    writing.written = 0;
    if writing.unflushed {
        std::task::ready!(io.as_mut().poll_flush(cx))?;
        writing.unflushed = false;
    }
    if writing.closed.is_some() {
        std::task::ready!(io.as_mut().poll_shutdown(cx))?;
        writing.io = None;
        return Poll::Ready(Ok(true));
    }
    Poll::Ready(Ok(false))
}

async fn read_lines<R: AsyncBufRead + Unpin>(mut reader: R, inbox: Inbox, limit: usize) {
    let mut line = Vec::new();
    let why = loop {
        match read_line(&mut reader, &mut line, limit).await {
            Ok(Line::End) => break "the server closed its output".to_owned(),
            Ok(Line::TooLong { size, kind }) => {
                tracing::warn!(size, limit, ?kind, "a message from the server is longer than the limit; skipped");
                // The framing is kept (the line was read to its end), so
                // the connection goes on; what the line was fails at once.
                let error = Error::too_large("a message from the server", size, limit);
                if kind != Kind::Notification && !inbox.deliver(Inbound::Oversized(kind, error)) {
                    return;
                }
            }
            Ok(Line::Read) => {
                let mut open = true;
                super::incoming::each(&line, |item| open = open && inbox.deliver(item));
                if !open {
                    return;
                }
                if line.capacity() > KEPT_BUFFER {
                    line = Vec::new();
                }
            }
            Err(error) => break format!("reading from the server failed: {error}"),
        }
    };
    inbox.deliver(Inbound::Closed(why));
}

/// What one line held.
#[derive(Debug, PartialEq)]
enum Line {
    Read,
    /// Longer than the limit (`size` bytes, read to its end and dropped),
    /// and what it was, as far as a scan of it tells.
    TooLong {
        size: usize,
        kind: Kind,
    },
    End,
}

/// Read one line into `line` (without its newline), holding at most
/// `limit` bytes of it: a longer one is scanned as it passes
/// ([`Peek`]) and dropped.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, line: &mut Vec<u8>, limit: usize) -> std::io::Result<Line> {
    line.clear();
    let mut skipped = 0;
    let mut peek: Option<Peek> = None;
    let done = |peek: Option<Peek>, skipped| match peek {
        Some(peek) => Line::TooLong { size: skipped, kind: peek.kind() },
        None => Line::Read,
    };
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() && peek.is_none() { Line::End } else { done(peek, skipped) });
        }
        let (part, found) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        match &mut peek {
            Some(peek) => {
                peek.feed(part);
                skipped += part.len();
            }
            None if line.len() + part.len() > limit => {
                let mut scan = Peek::default();
                scan.feed(line);
                scan.feed(part);
                skipped = line.len() + part.len();
                peek = Some(scan);
                line.clear();
                line.shrink_to(KEPT_BUFFER);
            }
            None => line.extend_from_slice(part),
        }
        let used = found.unwrap_or(available.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(done(peek, skipped));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines over an in-memory pipe that holds 64 bytes: most writes wait
    /// for the reader, whose end reads everything written into a string.
    fn narrow() -> (Lines, tokio::task::JoinHandle<String>) {
        let (client, server) = tokio::io::duplex(64);
        let (read, write) = tokio::io::split(client);
        let lines = Lines::start(read, write, Inbox::default(), 1 << 20);
        let reading = tokio::spawn(async move {
            let mut text = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut tokio::io::split(server).0, &mut text).await.unwrap();
            text
        });
        (lines, reading)
    }

    fn message(text: String) -> Outbound {
        Outbound { bytes: text.into_bytes(), id: None, headers: Vec::new() }
    }

    #[tokio::test]
    async fn lines_are_written_whole_and_in_order_however_slowly_the_stream_takes_them() {
        let (lines, reading) = narrow();
        let texts: Vec<String> = (0..300)
            .map(|i| {
                // Every hundredth line is longer than the backlog.
                let size = if i % 100 == 50 { BACKLOG + 10 } else { 1 + i * 37 % 900 };
                char::from(b'a' + (i % 26) as u8).to_string().repeat(size)
            })
            .collect();
        for (i, text) in texts.iter().enumerate() {
            if i % 2 == 0 {
                lines.send(message(text.clone())).await.unwrap();
            } else if let Err(back) = lines.try_send(message(text.clone())) {
                lines.send(back).await.unwrap();
            }
        }
        lines.close().await;
        let expected: String = texts.iter().map(|text| format!("{text}\n")).collect();
        assert!(reading.await.unwrap() == expected, "the lines arrived changed");
        let closed = lines.try_send(message("late".into())).map(|sent| sent.map_err(|e| e.to_string()));
        assert!(matches!(closed, Ok(Err(why)) if why.contains("the client was closed")));
    }

    #[tokio::test]
    async fn a_message_behind_a_full_backlog_comes_back_to_wait_for_room() {
        let (lines, reading) = narrow();
        // Nothing is read while this loop runs (it never yields): the
        // backlog fills.
        let mut sent = 0;
        let back = loop {
            match lines.try_send(message(format!("{sent:0>99}"))) {
                Ok(result) => result.unwrap(),
                Err(back) => break back,
            }
            sent += 1;
        };
        assert!(sent * 100 >= BACKLOG);
        assert_eq!(back.bytes, format!("{sent:0>99}").into_bytes());
        lines.send(back).await.unwrap();
        lines.close().await;
        let expected: String = (0..=sent).map(|n| format!("{n:0>99}\n")).collect();
        assert!(reading.await.unwrap() == expected, "the lines arrived changed");
    }

    #[tokio::test]
    async fn a_sender_never_polls_the_stream_while_the_writer_task_waits_on_it() {
        // A stream wakes one waker: the one its last pending write left.
        let (client, server) = tokio::io::duplex(64);
        let (read, write) = tokio::io::split(client);
        let lines = Lines::start(read, write, Inbox::default(), 1 << 20);
        // A burst longer than the pipe: 64 bytes go, the rest waits.
        lines.send(message("a".repeat(BURST))).await.unwrap();
        // The writer task takes it up and waits for the stream.
        tokio::task::yield_now().await;
        // Another burst meanwhile: left to the writer task, whose waker
        // must still be the stream's.
        lines.send(message("b".repeat(BURST))).await.unwrap();
        let mut written = vec![0; 2 * (BURST + 1)];
        let mut server = tokio::io::split(server).0;
        let read = tokio::io::AsyncReadExt::read_exact(&mut server, &mut written);
        tokio::time::timeout(std::time::Duration::from_secs(10), read)
            .await
            .expect("the writer task was woken for all that waited")
            .unwrap();
        let expected = format!("{}\n{}\n", "a".repeat(BURST), "b".repeat(BURST));
        assert!(written == expected.into_bytes(), "the lines arrived changed");
    }

    #[tokio::test]
    async fn dropped_lines_end_the_stream_after_what_waits() {
        let (lines, reading) = narrow();
        let text = "x".repeat(1000);
        lines.send(message(text.clone())).await.unwrap();
        drop(lines);
        assert!(reading.await.unwrap() == format!("{text}\n"));
    }

    #[tokio::test]
    async fn lines_longer_than_the_limit_are_skipped_and_the_next_is_read() {
        let input =
            format!("{}\n{{\"a\":1}}\n{{\"id\":4,\"result\":\"{}\"}}\npartial", "x".repeat(100), "y".repeat(60));
        let mut reader = BufReader::with_capacity(16, input.as_bytes());
        let mut line = Vec::new();
        let read = read_line(&mut reader, &mut line, 50).await.unwrap();
        assert_eq!(read, Line::TooLong { size: 100, kind: Kind::Unknown });
        assert_eq!(read_line(&mut reader, &mut line, 50).await.unwrap(), Line::Read);
        assert_eq!(line, b"{\"a\":1}");
        let read = read_line(&mut reader, &mut line, 50).await.unwrap();
        assert_eq!(read, Line::TooLong { size: 80, kind: Kind::Answer(mcp_core::RequestId::Number(4)) });
        assert_eq!(read_line(&mut reader, &mut line, 50).await.unwrap(), Line::Read);
        assert_eq!(line, b"partial");
        assert_eq!(read_line(&mut reader, &mut line, 50).await.unwrap(), Line::End);
    }
}
