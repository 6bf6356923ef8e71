//! Reading a `text/event-stream` body: events with their data, id and
//! retry, as the HTML living standard parses them (the few lines that need
//! do not warrant a crate).

/// One event.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Event {
    /// The data lines, joined by `\n`.
    pub(crate) data: String,
    /// The `id:` field, if the event had one.
    pub(crate) id: Option<String>,
    /// The `retry:` field in milliseconds, if the event had one.
    pub(crate) retry: Option<u64>,
}

/// Events assembled from chunks of a stream, whatever the chunks' edges.
#[derive(Debug, Default)]
pub(crate) struct Parser {
    buffer: Vec<u8>,
    event: Event,
    has_data: bool,
}

impl Parser {
    /// Feed a chunk; the events it completes.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<Event> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n' || b == b'\r') {
            // `\r\n` is one line end; a lone `\r` at the chunk's edge may be
            // the first half of one, so wait for the next byte.
            if self.buffer[end] == b'\r' && end + 1 == self.buffer.len() {
                break;
            }
            let skip = if self.buffer[end] == b'\r' && self.buffer.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
            let line: Vec<u8> = self.buffer.drain(..end + skip).take(end).collect();
            self.line(&String::from_utf8_lossy(&line), &mut events);
        }
        events
    }

    fn line(&mut self, line: &str, events: &mut Vec<Event>) {
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            // An event without data (a priming event: id and retry only)
            // still tells the reader its id and retry.
            if self.has_data || event.id.is_some() || event.retry.is_some() {
                events.push(event);
            }
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.event.data.push('\n');
                }
                self.event.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.event.id = Some(value.to_owned()),
            "retry" => self.event.retry = value.parse().ok().or(self.event.retry),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_assembled_across_chunks_and_line_endings() {
        let mut parser = Parser::default();
        let stream = b": keep-alive\r\nid: 1.0\r\nretry: 500\r\ndata:\r\n\r\nevent: message\nid: 1.1\ndata: {\"a\":\ndata: 1}\n\n";
        let mut events = Vec::new();
        for chunk in stream.chunks(3) {
            events.extend(parser.feed(chunk));
        }
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0].id.as_deref(), Some("1.0"));
        assert_eq!(events[0].retry, Some(500));
        assert_eq!(events[0].data, "");
        assert_eq!(events[1].data, "{\"a\":\n1}");
        assert_eq!(events[1].id.as_deref(), Some("1.1"));
    }
}
