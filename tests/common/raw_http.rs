//! The request side of a hand-written HTTP/1.1 server, for tests whose
//! server must misbehave in ways a real one will not (stall, drip, flood).

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// The body of the next request on `read` (its headers read and dropped,
/// `Content-Length` honoured); `None` once the connection ends.
pub async fn read_body<R: AsyncBufRead + Unpin>(read: &mut R) -> Option<Vec<u8>> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).await.unwrap_or(0) == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    read.read_exact(&mut body).await.ok()?;
    Some(body)
}
