//! Newline-delimited framing as a [`Transport`]: a reader that bounds line
//! length (so one enormous line cannot exhaust memory) and a writer that
//! sends every message that is ready in one write.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use super::message::{ReadMessages, Received, Transport, WriteMessages};

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

/// A byte stream of newline-delimited JSON-RPC (stdio, a pipe, a socket)
/// as a [`Transport`]: one message a line, lines of any length read with a
/// bounded buffer, and every message that is ready sent in one write.
#[derive(Debug)]
pub struct Lines<R, W> {
    reader: R,
    writer: W,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Messages read from `reader` and written to `writer`.
    pub fn new(reader: R, writer: W) -> Self {
        Lines { reader, writer }
    }
}

impl<R, W> Transport for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Reader = LineReader<R>;
    type Writer = LineWriter<W>;

    fn split(self) -> (LineReader<R>, LineWriter<W>) {
        let reader = LineReader(BufReader::with_capacity(64 * 1024, self.reader));
        (reader, LineWriter { writer: self.writer, buf: Vec::with_capacity(16 * 1024) })
    }
}

/// The reading half of [`Lines`].
#[derive(Debug)]
pub struct LineReader<R>(BufReader<R>);

impl<R: AsyncRead + Unpin + Send> ReadMessages for LineReader<R> {
    async fn read(&mut self, message: &mut Vec<u8>, limit: usize) -> io::Result<Received> {
        Ok(match read_line(&mut self.0, message, limit).await? {
            Line::Message => Received::Message,
            Line::TooLong(size) => Received::TooLarge(size),
            Line::Eof => Received::Closed,
        })
    }
}

/// The writing half of [`Lines`].
#[derive(Debug)]
pub struct LineWriter<W> {
    writer: W,
    buf: Vec<u8>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> WriteMessages for LineWriter<W> {
    async fn write(&mut self, messages: Vec<Vec<u8>>) -> io::Result<()> {
        for message in &messages {
            self.buf.extend_from_slice(message);
            self.buf.push(b'\n');
        }
        let written = self.writer.write_all(&self.buf).await;
        self.buf.clear();
        written?;
        self.writer.flush().await
    }

    async fn close(&mut self) -> io::Result<()> {
        // A client that stopped reading is a normal end, not a failure.
        self.writer.shutdown().await.or_else(|e| if e.kind() == io::ErrorKind::BrokenPipe { Ok(()) } else { Err(e) })
    }
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
    async fn messages_ready_together_are_one_write_of_lines() {
        let (_, mut writer) = Lines::new(tokio::io::empty(), Vec::new()).split();
        writer.write(vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]).await.unwrap();
        writer.write(vec![b"d".to_vec()]).await.unwrap();
        assert_eq!(writer.writer, b"a\nb\nc\nd\n");
    }

    #[tokio::test]
    async fn a_line_is_a_message_and_a_long_one_is_reported() {
        let (mut reader, _) = Lines::new(&b"one\ntoo long\n"[..], Vec::new()).split();
        let mut message = Vec::new();
        assert_eq!(reader.read(&mut message, 4).await.unwrap(), Received::Message);
        assert_eq!(message, b"one");
        assert_eq!(reader.read(&mut message, 4).await.unwrap(), Received::TooLarge(8));
        assert_eq!(reader.read(&mut message, 4).await.unwrap(), Received::Closed);
    }
}
