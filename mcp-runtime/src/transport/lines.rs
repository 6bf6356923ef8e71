//! Newline-delimited framing: a reader that bounds line length (so one
//! enormous line cannot exhaust memory) and a writer that sends every
//! message that is ready in one write.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// One line read from the peer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A complete line, without its newline (or the last bytes before EOF).
    Message,
    /// A line longer than the limit; its bytes were discarded.
    TooLong(usize),
    /// The peer closed its side.
    Eof,
}

/// Read one line into `buf` (cleared first), keeping at most `max` bytes.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Line> {
    buf.clear();
    let mut seen = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match seen {
                0 => Line::Eof,
                n if n > max => Line::TooLong(n),
                _ => Line::Message,
            });
        }
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        seen += chunk.len();
        if seen <= max {
            buf.extend_from_slice(chunk);
        } else {
            buf.clear();
        }
        reader.consume(used);
        if done {
            if seen > max {
                return Ok(Line::TooLong(seen));
            }
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Line::Message);
        }
    }
}

/// Write each queued message followed by a newline. Messages that are
/// already queued when a write starts go out in the same write, so a burst
/// of responses costs one syscall (and one flush), not one each.
pub(crate) async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut queue: mpsc::UnboundedReceiver<Vec<u8>>,
    backlog: Option<std::sync::Arc<crate::dispatch::outgoing::Backlog>>,
) -> io::Result<()> {
    const BATCH_LIMIT: usize = 1 << 20;
    let mut buf = Vec::with_capacity(16 * 1024);
    // An empty message ends the stream: senders can outlive the connection
    // (a tool may keep its `Context` in a task of its own), so waiting for
    // every sender to go could wait forever.
    'stream: while let Some(message) = queue.recv().await {
        let mut done = message.is_empty();
        // The messages' own bytes (as counted when queued; not the newlines).
        let mut payload = message.len();
        if !done {
            buf.extend_from_slice(&message);
            buf.push(b'\n');
        }
        while !done && buf.len() < BATCH_LIMIT {
            match queue.try_recv() {
                Ok(message) if message.is_empty() => done = true,
                Ok(message) => {
                    payload += message.len();
                    buf.extend_from_slice(&message);
                    buf.push(b'\n');
                }
                Err(_) => break,
            }
        }
        if !buf.is_empty() {
            writer.write_all(&buf).await?;
            writer.flush().await?;
            if let Some(backlog) = &backlog {
                backlog.written(payload);
            }
            buf.clear();
        }
        if done {
            break 'stream;
        }
    }
    queue.close();
    writer.shutdown().await.or_else(|e| if e.kind() == io::ErrorKind::BrokenPipe { Ok(()) } else { Err(e) })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<(Line, String)> {
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            let line = read_line(&mut reader, &mut buf, max).await.unwrap();
            let done = line == Line::Eof;
            out.push((line, String::from_utf8(buf.clone()).unwrap()));
            if done {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn long_lines_are_skipped_and_reading_goes_on() {
        let got = lines(b"short\r\nthis line is too long\nok\nlast", 8).await;
        assert_eq!(
            got,
            vec![
                (Line::Message, "short".into()),
                (Line::TooLong(21), String::new()),
                (Line::Message, "ok".into()),
                (Line::Message, "last".into()),
                (Line::Eof, String::new()),
            ]
        );
    }

    #[tokio::test]
    async fn queued_messages_are_written_together() {
        let (tx, rx) = mpsc::unbounded_channel();
        for m in ["a", "b", "c"] {
            tx.send(m.as_bytes().to_vec()).unwrap();
        }
        drop(tx);
        let mut out = Vec::new();
        write_lines(&mut out, rx, None).await.unwrap();
        assert_eq!(out, b"a\nb\nc\n");
    }
}
