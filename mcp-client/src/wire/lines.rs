//! Newline-delimited JSON over any byte stream: a child's stdin and stdout,
//! a socket, an in-memory pipe to a server in the same process.

use std::sync::Mutex;

use futures_util::future::BoxFuture;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::{Inbound, Inbox, Outbound, Wire};
use crate::Error;

/// The longest line read from a server; a longer one is skipped (and
/// logged) without being held in memory.
pub(crate) const MAX_LINE: usize = 64 * 1024 * 1024;

/// A wire over a reader and a writer of lines.
pub(crate) struct Lines {
    /// `None` once closed.
    writer: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
}

impl Lines {
    /// Start reading `reader` into `inbox` and writing to `writer`.
    pub(crate) fn start<R, W>(reader: R, writer: W, inbox: Inbox) -> Lines
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(write_lines(writer, rx));
        tokio::spawn(read_lines(BufReader::new(reader), inbox));
        Lines { writer: Mutex::new(Some(tx)) }
    }
}

impl Wire for Lines {
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), Error>> {
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Box::pin(async move {
            let writer = writer.ok_or_else(|| Error::Closed("the client was closed".into()))?;
            let mut line = message.bytes;
            line.push(b'\n');
            writer.send(line).await.map_err(|_| Error::Closed("the server's input is closed".into()))
        })
    }

    fn try_send(&self, message: Outbound) -> Result<Result<(), Error>, Outbound> {
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let Some(writer) = writer.as_ref() else { return Ok(Err(Error::Closed("the client was closed".into()))) };
        let mut line = message.bytes;
        line.push(b'\n');
        match writer.try_send(line) {
            Ok(()) => Ok(Ok(())),
            Err(mpsc::error::TrySendError::Full(mut line)) => {
                line.pop();
                Err(Outbound { bytes: line, ..message })
            }
            Err(mpsc::error::TrySendError::Closed(_)) => Ok(Err(Error::Closed("the server's input is closed".into()))),
        }
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        // Dropping the sender ends the writer, which closes the stream:
        // a server on stdio sees the end of its input and exits.
        self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        Box::pin(async {})
    }
}

/// The most bytes of queued lines copied into one write; a longer line
/// is written on its own, as it is.
const BATCH: usize = 64 * 1024;

async fn write_lines<W: AsyncWrite + Unpin>(mut writer: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    let mut batch = Vec::new();
    while let Some(first) = lines.recv().await {
        // Everything queued goes in one write: a write per line was most
        // of a pipelining client's time in the kernel.
        let written = async {
            let mut next = Some(first);
            while let Some(line) = next.take() {
                if !batch.is_empty() && batch.len() + line.len() > BATCH {
                    writer.write_all(&batch).await?;
                    batch.clear();
                }
                if batch.is_empty() && line.len() >= BATCH {
                    writer.write_all(&line).await?;
                } else {
                    batch.extend_from_slice(&line);
                }
                next = lines.try_recv().ok();
            }
            writer.write_all(&batch).await?;
            batch.clear();
            writer.flush().await
        };
        if let Err(error) = written.await {
            tracing::debug!(%error, "writing to the server failed");
            return;
        }
    }
    let _ = writer.shutdown().await;
}

async fn read_lines<R: AsyncBufRead + Unpin>(mut reader: R, inbox: Inbox) {
    let mut line = Vec::new();
    let why = loop {
        match read_line(&mut reader, &mut line, MAX_LINE).await {
            Ok(Line::End) => break "the server closed its output".to_owned(),
            Ok(Line::TooLong(size)) => {
                tracing::warn!(size, limit = MAX_LINE, "skipped a message from the server longer than the limit");
            }
            Ok(Line::Read) => {
                let mut open = true;
                super::incoming::each(&line, |item| open = open && inbox.deliver(item));
                if !open {
                    return;
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
    /// Longer than the limit (its size so far); skipped.
    TooLong(usize),
    End,
}

/// Read one line into `line` (without its newline), holding at most
/// `limit` bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, line: &mut Vec<u8>, limit: usize) -> std::io::Result<Line> {
    line.clear();
    let mut skipped = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() && skipped == 0 { Line::End } else { Line::Read });
        }
        let (part, found) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        if skipped > 0 || line.len() + part.len() > limit {
            skipped += line.len() + part.len();
            line.clear();
        } else {
            line.extend_from_slice(part);
        }
        let used = found.unwrap_or(available.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(if skipped > 0 { Line::TooLong(skipped) } else { Line::Read });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn queued_lines_are_written_whole_and_in_order_however_they_are_batched() {
        let lines: Vec<Vec<u8>> = (0..300)
            .map(|i| {
                // Every hundredth line is longer than a batch.
                let size = if i % 100 == 50 { BATCH + 10 } else { 1 + i * 37 % 900 };
                let mut line = vec![b'a' + (i % 26) as u8; size];
                line.push(b'\n');
                line
            })
            .collect();
        let (tx, rx) = mpsc::channel(lines.len());
        for line in &lines {
            tx.send(line.clone()).await.unwrap();
        }
        drop(tx);
        let (writer, mut reader) = tokio::io::duplex(1 << 16);
        let writing = tokio::spawn(write_lines(writer, rx));
        let mut written = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut reader, &mut written).await.unwrap();
        writing.await.unwrap();
        assert_eq!(written, lines.concat());
    }

    #[tokio::test]
    async fn a_message_that_does_not_fit_the_queue_comes_back_to_wait_for_room() {
        let (client, server) = tokio::io::duplex(64);
        let (read, write) = tokio::io::split(client);
        let lines = Lines::start(read, write, Inbox::default());
        let message = |n: usize| Outbound { bytes: n.to_string().into_bytes(), id: None, headers: Vec::new() };
        // Nothing is written while this loop runs (it never yields): the
        // queue fills.
        let mut sent = 0;
        let back = loop {
            match lines.try_send(message(sent)) {
                Ok(result) => result.unwrap(),
                Err(back) => break back,
            }
            sent += 1;
        };
        assert_eq!(back.bytes, sent.to_string().into_bytes());
        let reading = tokio::spawn(async move {
            let mut text = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut tokio::io::split(server).0, &mut text).await.unwrap();
            text
        });
        lines.send(back).await.unwrap();
        lines.close().await;
        let expected: String = (0..=sent).map(|n| format!("{n}\n")).collect();
        assert_eq!(reading.await.unwrap(), expected);
    }

    #[tokio::test]
    async fn lines_longer_than_the_limit_are_skipped_and_the_next_is_read() {
        let input = format!("{}\n{{\"a\":1}}\npartial", "x".repeat(100));
        let mut reader = BufReader::with_capacity(16, input.as_bytes());
        let mut line = Vec::new();
        assert_eq!(read_line(&mut reader, &mut line, 50).await.unwrap(), Line::TooLong(100));
        assert_eq!(read_line(&mut reader, &mut line, 50).await.unwrap(), Line::Read);
        assert_eq!(line, b"{\"a\":1}");
        assert_eq!(read_line(&mut reader, &mut line, 50).await.unwrap(), Line::Read);
        assert_eq!(line, b"partial");
        assert_eq!(read_line(&mut reader, &mut line, 50).await.unwrap(), Line::End);
    }
}
