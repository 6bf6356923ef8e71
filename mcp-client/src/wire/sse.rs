//! Reading a `text/event-stream` body: events with their data, id and
//! retry, as the HTML living standard parses them (the few lines that need
//! do not warrant a crate).
//!
//! Linear in the stream: each byte is searched for a line end once, the
//! lines of a chunk are dropped from the buffer together, and the buffer
//! never holds more than one unfinished line. An event larger than the
//! limit is reported once and skipped to its end, holding nothing of it.

/// One event.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Event {
    /// The data lines, joined by `\n`.
    pub(crate) data: String,
    /// The `id:` field, if the event had one.
    pub(crate) id: Option<String>,
    /// The `retry:` field in milliseconds, if the event had one.
    pub(crate) retry: Option<u64>,
}

/// What a chunk completes.
#[derive(Debug, PartialEq)]
pub(crate) enum Parsed {
    Event(Event),
    /// An event grew past the limit (this many bytes of it were seen): it
    /// is skipped to its end, and the next one is read.
    TooLarge(usize),
}

/// Events assembled from chunks of a stream, whatever the chunks' edges.
#[derive(Debug)]
pub(crate) struct Parser {
    /// The unfinished line (and before a feed's lines are handled, them).
    buffer: Vec<u8>,
    /// Where the search for a line end resumes: no line end lies before.
    searched: usize,
    state: State,
}

#[derive(Debug)]
struct State {
    event: Event,
    has_data: bool,
    /// The largest event taken, in bytes.
    limit: usize,
    /// The event passed the limit: its lines are dropped until the blank
    /// line that ends it.
    skipping: bool,
    /// The unfinished line passed the limit and was dropped from the
    /// buffer: whatever is left of it, it is not a blank line.
    long_line: bool,
}

impl Parser {
    /// A parser that takes events of up to `limit` bytes.
    pub(crate) fn new(limit: usize) -> Parser {
        let state = State { event: Event::default(), has_data: false, limit, skipping: false, long_line: false };
        Parser { buffer: Vec::new(), searched: 0, state }
    }

    /// Feed a chunk; the events it completes.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<Parsed> {
        self.buffer.extend_from_slice(chunk);
        let mut parsed = Vec::new();
        let mut start = 0;
        loop {
            let Some(offset) = self.buffer[self.searched..].iter().position(|&b| b == b'\n' || b == b'\r') else {
                self.searched = self.buffer.len();
                break;
            };
            let end = self.searched + offset;
            // `\r\n` is one line end; a lone `\r` at the chunk's edge may be
            // the first half of one, so wait for the next byte.
            if self.buffer[end] == b'\r' && end + 1 == self.buffer.len() {
                self.searched = end;
                break;
            }
            let skip = if self.buffer[end] == b'\r' && self.buffer.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
            self.state.line(&self.buffer[start..end], &mut parsed);
            start = end + skip;
            self.searched = start;
        }
        // Once per chunk, and only what follows the last line end moves:
        // no more than the chunk.
        self.buffer.drain(..start);
        self.searched -= start;
        let unfinished = self.buffer.len();
        if unfinished.saturating_add(self.state.event.data.len()) > self.state.limit {
            self.state.too_large(unfinished, &mut parsed);
            self.state.long_line = true;
            // A `\r` waiting for its `\n` stays: it may end the line.
            let keep = usize::from(self.buffer.last() == Some(&b'\r'));
            self.buffer.drain(..self.buffer.len() - keep);
            self.searched = 0;
        }
        parsed
    }
}

impl State {
    fn too_large(&mut self, seen: usize, parsed: &mut Vec<Parsed>) {
        if !self.skipping {
            parsed.push(Parsed::TooLarge(seen.saturating_add(self.event.data.len())));
            self.skipping = true;
        }
        self.event = Event::default();
        self.has_data = false;
    }

    fn line(&mut self, line: &[u8], parsed: &mut Vec<Parsed>) {
        let long = std::mem::take(&mut self.long_line);
        if self.skipping {
            if line.is_empty() && !long {
                self.skipping = false;
            }
            return;
        }
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            // An event without data (a priming event: id and retry only)
            // still tells the reader its id and retry.
            if self.has_data || event.id.is_some() || event.retry.is_some() {
                parsed.push(Parsed::Event(event));
            }
            self.has_data = false;
            return;
        }
        if line.len().saturating_add(self.event.data.len()) > self.limit {
            self.too_large(line.len(), parsed);
            return;
        }
        let line = String::from_utf8_lossy(line);
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (&*line, ""),
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

    fn events(parsed: Vec<Parsed>) -> Vec<Event> {
        parsed
            .into_iter()
            .map(|p| match p {
                Parsed::Event(event) => event,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn events_are_assembled_across_chunks_and_line_endings() {
        let mut parser = Parser::new(usize::MAX);
        let stream = b": keep-alive\r\nid: 1.0\r\nretry: 500\r\ndata:\r\n\r\nevent: message\nid: 1.1\ndata: {\"a\":\ndata: 1}\n\n";
        let mut parsed = Vec::new();
        for chunk in stream.chunks(3) {
            parsed.extend(parser.feed(chunk));
        }
        let events = events(parsed);
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0].id.as_deref(), Some("1.0"));
        assert_eq!(events[0].retry, Some(500));
        assert_eq!(events[0].data, "");
        assert_eq!(events[1].data, "{\"a\":\n1}");
        assert_eq!(events[1].id.as_deref(), Some("1.1"));
    }

    /// The standard's algorithm as plainly as it reads, on the whole
    /// stream at once: what the parser must give whatever the chunks.
    fn reference(stream: &[u8]) -> Vec<Event> {
        let mut lines = Vec::new();
        let (mut start, mut i) = (0, 0);
        while i < stream.len() {
            match stream[i] {
                // A `\r` that ends the stream may be half of a `\r\n`.
                b'\r' if i + 1 == stream.len() => break,
                b'\r' | b'\n' => {
                    lines.push(&stream[start..i]);
                    i += if stream[i] == b'\r' && stream.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                    start = i;
                }
                _ => i += 1,
            }
        }
        let mut events = Vec::new();
        let (mut data, mut id, mut retry, mut has_data) = (String::new(), None, None, false);
        for line in lines {
            let line = String::from_utf8_lossy(line);
            if line.is_empty() {
                if has_data || id.is_some() || retry.is_some() {
                    events.push(Event { data: std::mem::take(&mut data), id: id.take(), retry: retry.take() });
                }
                (data, id, retry, has_data) = (String::new(), None, None, false);
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((&line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "data" if has_data => data = format!("{data}\n{value}"),
                "data" => (data, has_data) = (value.to_owned(), true),
                "id" if !value.contains('\0') => id = Some(value.to_owned()),
                "retry" => retry = value.parse().ok().or(retry),
                _ => {}
            }
        }
        events
    }

    /// SplitMix64: a seeded, reproducible source of test cases.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    /// A random stream: fields, comments, values with colons, spaces,
    /// `\0`, non-ASCII and bytes that are not UTF-8, under every line end.
    fn stream(random: &mut Random) -> Vec<u8> {
        let fields = ["data", "data", "data", "id", "retry", "event", "", "dat", "data ", "retry"];
        let values = ["", " ", "x", " {\"a\":1}", ":", "a:b", "12", "-1", "é", "\0", "  two spaces", "9999999999"];
        let ends = ["\n", "\r", "\r\n"];
        let mut out = Vec::new();
        for _ in 0..random.below(40) {
            match random.below(10) {
                0 => out.extend_from_slice(random.pick(&ends).as_bytes()),
                1 => out.extend_from_slice(format!(":{}", random.pick(&values)).as_bytes()),
                2 => out.extend_from_slice(&[0xff, 0xfe, b'x']),
                _ => {
                    out.extend_from_slice(random.pick(&fields).as_bytes());
                    if random.below(5) > 0 {
                        out.push(b':');
                    }
                    out.extend_from_slice(random.pick(&values).as_bytes());
                }
            }
            out.extend_from_slice(random.pick(&ends).as_bytes());
        }
        out
    }

    #[test]
    fn any_chunking_of_any_stream_gives_the_reference_parser_s_events() {
        let cases = std::env::var("MCP_PROPERTY_VALUES").ok().and_then(|n| n.parse().ok()).unwrap_or(5_000u64);
        let seed = std::env::var("MCP_SSE_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or(0x5EED);
        for case in 0..cases {
            let mut random = Random(seed ^ case.wrapping_mul(0x2545_F491_4F6C_DD1D));
            let stream = stream(&mut random);
            let mut parser = Parser::new(usize::MAX);
            let mut parsed = Vec::new();
            let mut rest = &stream[..];
            while !rest.is_empty() {
                let size = 1 + random.below(rest.len().min(9));
                parsed.extend(parser.feed(&rest[..size]));
                rest = &rest[size..];
            }
            let expected = reference(&stream);
            let got = events(parsed);
            assert!(
                got == expected,
                "case {case} (MCP_SSE_SEED={seed}): {:?}\ngot {got:?}\nexpected {expected:?}",
                String::from_utf8_lossy(&stream)
            );
        }
    }

    #[test]
    fn an_event_over_the_limit_is_reported_once_and_the_next_is_read() {
        for chunk in [1, 7, 64, 1 << 20] {
            let mut parser = Parser::new(100);
            let big = "x".repeat(150);
            let stream = format!(
                "data: {big}\ndata: more\nid: lost\n\r\n\
                 data: {}\ndata: {}\n\n\
                 : {big}\n\n\
                 id: 2\ndata: small\n\n",
                "y".repeat(60),
                "z".repeat(60)
            );
            let mut parsed = Vec::new();
            for piece in stream.as_bytes().chunks(chunk) {
                parsed.extend(parser.feed(piece));
            }
            let too_large = parsed.iter().filter(|p| matches!(p, Parsed::TooLarge(_))).count();
            assert_eq!(too_large, 3, "chunks of {chunk}: {parsed:?}");
            let last = parsed.last().unwrap();
            let small = Event { data: "small".into(), id: Some("2".into()), retry: None };
            assert_eq!(*last, Parsed::Event(small), "chunks of {chunk}");
            assert!(parser.buffer.len() <= 100 + chunk, "chunks of {chunk}");
        }
    }

    #[test]
    fn a_32_mb_event_is_read_in_linear_time() {
        // The quadratic reader took 37 s on this (in a release build): a
        // generous bound still tells them apart.
        let data = "x".repeat(32 << 20);
        let stream = format!("id: 1\ndata: {data}\n\n");
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut parser = Parser::new(64 << 20);
            let mut parsed = Vec::new();
            for chunk in stream.as_bytes().chunks(16 << 10) {
                parsed.extend(parser.feed(chunk));
            }
            let _ = done.send(parsed);
        });
        let parsed = finished.recv_timeout(std::time::Duration::from_secs(20)).expect("parsed within 20 s");
        let [Parsed::Event(event)] = &parsed[..] else { panic!("one event") };
        assert_eq!(event.data.len(), 32 << 20);
    }
}
