//! What a message too large to read is, told without reading it: a scan
//! of its bytes as they stream past, keeping only the top-level members'
//! names it needs and the `id`'s text. The client can then fail the call
//! it answers at once, rather than leave it waiting for its timeout.
//!
//! The scan holds a few bytes whatever the message's size, and looks at
//! each byte once (the insides of strings and nested values are skipped
//! a search at a time).

use mcp_core::RequestId;

/// What an over-long message was.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// An answer (a top-level `result` or `error`, no `method`) to the
    /// request with this id.
    Answer(RequestId),
    /// A request of the server's (`method` and an id).
    Request(RequestId),
    /// A notification (`method`, no id).
    Notification,
    /// Not a JSON object, or an answer whose id cannot be read (`null`,
    /// written with escapes, or of no id type).
    Unknown,
}

/// The longest member name kept: the names looked for are shorter.
const NAME: usize = 8;
/// The longest id text kept: the client's own ids are numbers.
const ID: usize = 256;

/// A scan of one message's bytes.
#[derive(Debug, Default)]
pub(crate) struct Peek {
    /// How deep in arrays and objects (1: the message's own members).
    depth: u32,
    string: bool,
    escaped: bool,
    /// Not an object: nothing more to learn.
    broken: bool,
    /// The message's object closed.
    closed: bool,
    /// At depth 1, the next string is a member's name.
    expect_name: bool,
    reading_name: bool,
    name: Vec<u8>,
    /// The value being scanned is the top-level `id`'s.
    in_id: bool,
    id: Vec<u8>,
    method: bool,
    answer: bool,
}

impl Peek {
    /// Scan the next bytes of the message.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.broken || self.closed {
                return;
            }
            let watched = self.reading_name || (self.in_id && self.depth == 1);
            if self.string && !self.escaped && !watched {
                match bytes[i..].iter().position(|&b| b == b'"' || b == b'\\') {
                    Some(at) => i += at,
                    None => return,
                }
            } else if !self.string && self.depth > 1 {
                match bytes[i..].iter().position(|&b| matches!(b, b'"' | b'{' | b'}' | b'[' | b']')) {
                    Some(at) => i += at,
                    None => return,
                }
            }
            self.byte(bytes[i]);
            i += 1;
        }
    }

    fn byte(&mut self, b: u8) {
        if self.string {
            let ends = !self.escaped && b == b'"';
            self.escaped = !self.escaped && b == b'\\';
            if self.reading_name {
                if ends {
                    self.reading_name = false;
                } else if self.name.len() <= NAME {
                    self.name.push(b);
                }
            } else if self.in_id && self.depth == 1 {
                self.keep_id(b);
            }
            self.string = !ends;
            return;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'{' if self.depth == 0 => {
                self.depth = 1;
                self.expect_name = true;
            }
            _ if self.depth == 0 => self.broken = true,
            b'"' => {
                self.string = true;
                if self.depth == 1 && self.expect_name {
                    self.reading_name = true;
                    self.name.clear();
                } else if self.in_id && self.depth == 1 {
                    self.keep_id(b);
                }
            }
            b'{' | b'[' => {
                if self.in_id && self.depth == 1 {
                    // An id is never structured: its text will not read.
                    self.keep_id(b);
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.closed = true;
                    self.in_id = false;
                }
            }
            b':' if self.depth == 1 => {
                self.expect_name = false;
                match self.name.as_slice() {
                    b"id" => {
                        self.in_id = true;
                        self.id.clear();
                    }
                    b"method" => self.method = true,
                    b"result" | b"error" => self.answer = true,
                    _ => {}
                }
            }
            b',' if self.depth == 1 => {
                self.expect_name = true;
                self.in_id = false;
            }
            _ if self.in_id && self.depth == 1 => self.keep_id(b),
            _ => {}
        }
    }

    fn keep_id(&mut self, b: u8) {
        // Past the bound the text is cut, and a cut text reads as no id.
        if self.id.len() <= ID {
            self.id.push(b);
        }
    }

    /// What the bytes scanned so far say the message is.
    pub(crate) fn kind(&self) -> Kind {
        if self.broken || self.depth == 0 && !self.closed {
            return Kind::Unknown;
        }
        let id = if self.id.len() <= ID { serde_json::from_slice::<RequestId>(&self.id).ok() } else { None };
        match (self.method, self.answer, id) {
            (true, _, Some(id)) => Kind::Request(id),
            (true, _, None) => Kind::Notification,
            (false, true, Some(id)) => Kind::Answer(id),
            _ => Kind::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Kind {
        let mut whole = Peek::default();
        whole.feed(text.as_bytes());
        // Any split gives the same.
        for at in 0..=text.len() {
            let mut split = Peek::default();
            split.feed(&text.as_bytes()[..at]);
            split.feed(&text.as_bytes()[at..]);
            assert_eq!(split.kind(), whole.kind(), "split at {at}: {text}");
        }
        whole.kind()
    }

    #[test]
    fn answers_requests_and_notifications_are_told_apart_wherever_the_id_is() {
        let n = RequestId::Number;
        let cases = [
            (r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"\"id\":9 }"}]}}"#, Kind::Answer(n(7))),
            (r#"{"result":{"id":1,"x":[1,{"id":2}]},"jsonrpc":"2.0","id":42}"#, Kind::Answer(n(42))),
            (r#" { "id" : "a b\"" , "error" : {"code":1} } "#, Kind::Answer(RequestId::String("a b\"".into()))),
            (r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}"#, Kind::Request(n(3))),
            (r#"{"method":"notifications/message","params":{"id":4,"result":1}}"#, Kind::Notification),
            (r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}"#, Kind::Unknown),
            (r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#, Kind::Unknown),
            (r#"{"jsonrpc":"2.0","id":[1],"result":{}}"#, Kind::Unknown),
            (r#"{"jsonrpc":"2.0","\u0069d":1,"result":{}}"#, Kind::Unknown),
            (r#"{"jsonrpc":"2.0","idx":1,"result":{}}"#, Kind::Unknown),
            (r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#, Kind::Unknown),
            ("not json", Kind::Unknown),
            ("", Kind::Unknown),
            // Cut short (the rest was never sent): what was seen counts.
            (r#"{"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"xxxx"#, Kind::Answer(n(12))),
        ];
        for (text, expected) in cases {
            assert_eq!(kind(text), expected, "{text}");
        }
    }

    #[test]
    fn an_endless_id_is_not_kept() {
        let mut peek = Peek::default();
        peek.feed(br#"{"result":{},"id":""#);
        for _ in 0..1000 {
            peek.feed(&[b'x'; 1000]);
        }
        peek.feed(br#""}"#);
        assert!(peek.id.len() <= ID + 1);
        assert_eq!(peek.kind(), Kind::Unknown);
    }
}
