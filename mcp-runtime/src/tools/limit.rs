//! Rate limits: how many calls a tool (or a whole server) accepts per
//! period from one session. A call over the limit gets a tool error saying
//! when to retry; it never waits and never reaches the tool.
//!
//! Allowances are kept per session (a stdio connection, an HTTP session),
//! so one busy client cannot use up another's.
//!
//! This is rate limiting's one home: a tool's `#[tool(rate_limit = …)]`
//! and the server-wide limit are checked here at admission (before the
//! rounds, a task and the user's layers, which a refused call never
//! reaches), and the [`Throttle`](crate::middleware::Throttle) layer,
//! placed among the user's layers, uses the same [`Limiter`] and says its
//! refusals with the same [`refused`].

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use mcp_core::{CallToolResult, ErrorObject};

use crate::error::Error;
use crate::middleware::{Kind, Reply};

/// `calls` per `period`, as `#[tool(rate_limit = "10/s")]` or
/// [`Server::rate_limit`](crate::Server::rate_limit) declares it. Calls may
/// come in a burst of up to `calls`; the allowance then refills evenly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// How many calls.
    pub calls: u32,
    /// Per how long.
    pub period: Duration,
}

impl RateLimit {
    /// `calls` per `period`.
    pub fn new(calls: u32, period: Duration) -> Self {
        RateLimit { calls, period }
    }
}

/// A running limiter for one [`RateLimit`], with an allowance per session.
pub(crate) struct Limiter {
    limit: RateLimit,
    limiter: DefaultKeyedRateLimiter<u64>,
}

impl Limiter {
    /// The limiter, or an error for a limit that allows nothing or
    /// refills in no time (`#[tool]` refuses those at compile time; this
    /// covers the builders).
    pub(crate) fn new(limit: RateLimit, tool: Option<&str>) -> Result<Limiter, Error> {
        let invalid = || Error::InvalidRateLimit { tool: tool.map(str::to_owned), limit };
        let calls = NonZeroU32::new(limit.calls).ok_or_else(invalid)?;
        let quota = Quota::with_period(limit.period / limit.calls).ok_or_else(invalid)?.allow_burst(calls);
        Ok(Limiter { limit, limiter: RateLimiter::hashmap(quota) })
    }

    /// Take one call from `session`'s allowance, or say why not (the
    /// caller puts the subject in front: "tool `x` is rate limited …").
    pub(crate) fn check(&self, session: u64) -> Result<(), String> {
        self.limiter.check_key(&session).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let RateLimit { calls, period } = self.limit;
            format!(
                "is rate limited to {calls} calls per {}; retry in {:.1} seconds",
                seconds(period),
                wait.as_secs_f64().max(0.1)
            )
        })
    }
}

impl Limiter {
    /// Drop the allowances that are full again (those of ended sessions
    /// among them), so the table does not grow with every session.
    pub(crate) fn forget_idle(&self) {
        self.limiter.retain_recent();
    }
}

/// A request of `kind` refused by a rate limit, `text` saying why: a tool
/// call's is an error result that says when to retry (the model reads it),
/// any other request's a protocol error.
pub(crate) fn refused(kind: Kind, text: String) -> Result<Reply, ErrorObject> {
    match kind {
        Kind::Tool => Ok(Reply::Tool(CallToolResult::error_text(text))),
        _ => Err(ErrorObject::new(mcp_core::codes::INVALID_REQUEST, text)),
    }
}

fn seconds(period: Duration) -> String {
    match period.as_secs_f64() {
        1.0 => "second".to_owned(),
        60.0 => "minute".to_owned(),
        3600.0 => "hour".to_owned(),
        s => format!("{s} seconds"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_up_to_the_limit_passes_and_the_next_call_is_told_when_to_retry() {
        let limiter = Limiter::new(RateLimit::new(3, Duration::from_secs(60)), None).unwrap();
        for _ in 0..3 {
            assert_eq!(limiter.check(1), Ok(()));
        }
        let refused = limiter.check(1).unwrap_err();
        assert!(refused.starts_with("is rate limited to 3 calls per minute; retry in "), "{refused}");
        // Another session has an allowance of its own.
        assert_eq!(limiter.check(2), Ok(()));
        let err = Limiter::new(RateLimit::new(0, Duration::from_secs(1)), Some("t")).err().unwrap();
        assert_eq!(
            err.to_string(),
            "tool `t`'s rate limit of 0 calls per 1s cannot be met; allow at least one call per non-zero period"
        );
        assert!(Limiter::new(RateLimit::new(5, Duration::ZERO), None).is_err());
    }
}
