//! What dispatch hands a transport: each message already serialized and
//! labelled with what it is, or a signal about the stream. A transport
//! writes the bytes and obeys the signals; none reads a message back to
//! learn what the server itself just said.

/// One item on the way to a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// The answer to a request of the client (or a batch's answers), with
    /// its error code when it is one error: HTTP takes its status from it,
    /// and a call stream ends with it.
    Answer { bytes: Vec<u8>, error: Option<i64> },
    /// A notification or a request to the client.
    Message(Vec<u8>),
    /// End the connection this stream is read on, after what came before;
    /// the client reconnects for the rest (a resumable HTTP stream only).
    CloseConnection,
    /// Nothing more comes on this stream.
    End,
}

impl Frame {
    /// The message's bytes; `None` for a signal.
    pub(crate) fn bytes(&self) -> Option<&[u8]> {
        match self {
            Frame::Answer { bytes, .. } | Frame::Message(bytes) => Some(bytes),
            Frame::CloseConnection | Frame::End => None,
        }
    }

    /// The bytes it counts for in a queue's backlog.
    pub(crate) fn size(&self) -> usize {
        self.bytes().map_or(0, <[u8]>::len)
    }
}
