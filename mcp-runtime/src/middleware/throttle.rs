//! The ready layer that limits how often each client may run handlers,
//! among the user's layers (so the layers before it see every call). Its
//! limiter and its refusals are the admission's own
//! ([`crate::tools::limit`]), so a refusal reads the same wherever it
//! comes from.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use super::{Around, ErrorObject, Invocation, Kind, Next, Reply};
use crate::tools::limit::{self, Limiter};
use crate::tools::{BoxFuture, RateLimit};

/// At most `limit` requests per client (a session; over OAuth, a token's
/// subject; stateless requests without a token share one allowance), of
/// the kinds it limits (all by default), and with
/// [`per_name`](Self::per_name) per tool, prompt or resource as well. A
/// refused tool call is an error result that says when to retry, as the
/// `rate_limit` of `#[tool]` answers; other requests get a protocol error.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::{Kind, Throttle};
/// use mcp_runtime::{Server, tools::RateLimit};
///
/// // Each client may call each tool 10 times a minute.
/// let limit = RateLimit::new(10, Duration::from_secs(60));
/// let server = Server::new("app", "1").layer(Throttle::per_client(limit).unwrap().kinds([Kind::Tool]).per_name());
/// # drop(server);
/// ```
#[derive(Clone)]
pub struct Throttle {
    limiter: Arc<Limiter>,
    kinds: Option<Vec<Kind>>,
    per_name: bool,
}

impl Throttle {
    /// Allow each client `limit`; an error if the limit allows no call.
    pub fn per_client(limit: RateLimit) -> Result<Self, crate::Error> {
        Ok(Throttle { limiter: Arc::new(Limiter::new(limit, None)?), kinds: None, per_name: false })
    }

    /// Limit only requests of these kinds.
    pub fn kinds(mut self, kinds: impl IntoIterator<Item = Kind>) -> Self {
        self.kinds = Some(kinds.into_iter().collect());
        self
    }

    /// Give each tool, prompt or resource an allowance of its own.
    pub fn per_name(mut self) -> Self {
        self.per_name = true;
        self
    }

    /// Why `invocation` may not run now, if it may not.
    fn refusal(&self, invocation: &Invocation) -> Option<String> {
        if self.kinds.as_ref().is_some_and(|kinds| !kinds.contains(&invocation.kind())) {
            return None;
        }
        let mut key = DefaultHasher::new();
        match invocation.parts().claims().and_then(|c| c.subject()) {
            Some(subject) => subject.hash(&mut key),
            None => invocation.parts().session_key.hash(&mut key),
        }
        if self.per_name {
            (invocation.kind(), invocation.name()).hash(&mut key);
        }
        self.limiter.check(key.finish()).err()
    }
}

impl Around for Throttle {
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        let Some(why) = self.refusal(&invocation) else {
            return next.run(invocation);
        };
        let what = match invocation.kind() {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
            Kind::Completion => "completion of",
        };
        let text = format!("{what} `{}` {why}", invocation.name());
        Box::pin(std::future::ready(limit::refused(invocation.kind(), text)))
    }
}
