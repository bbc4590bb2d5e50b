//! keystorm's one retry loop, the same for both clients: each client makes exactly one
//! attempt per call, and this decides whether a failed attempt is tried again. Keeping
//! it out of the clients (the SDK's own retries are off) means every attempt is one
//! request the target received, and a caller that wants to count attempts hears of
//! each retried one, whichever client ran it.

use std::future::Future;

use keystorm_types::{ErrorClass, OpError};

/// Whether a failed attempt may succeed when tried again: 5xx (501 Not Implemented
/// aside), timeouts and connection failures. A 4xx or a bad response will not change;
/// an object found corrupt or missing is counted as found, never tried again.
pub fn retriable(class: ErrorClass) -> bool {
    match class {
        ErrorClass::SlowDown | ErrorClass::Timeout | ErrorClass::Connection => true,
        ErrorClass::Http(status) => (500..600).contains(&status) && status != 501,
        ErrorClass::Other | ErrorClass::Corrupt | ErrorClass::Missing => false,
    }
}

/// Runs `attempt` until it succeeds, fails for good, or `retries` retries were spent,
/// at once (no back-off: the target's answer is what is measured). `retried` hears the
/// class of every failed attempt that was tried again; the last attempt's result is
/// returned, so an operation's attempts are `1 + ` the calls of `retried`.
pub async fn run<T, F, Fut>(
    retries: u32,
    mut retried: impl FnMut(ErrorClass),
    mut attempt: F,
) -> Result<T, OpError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, OpError>>,
{
    let mut left = retries;
    loop {
        match attempt().await {
            Err(e) if left > 0 && retriable(e.class) => {
                retried(e.class);
                left -= 1;
            }
            result => return result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn retries_retriable_failures_up_to_the_limit_and_reports_each() {
        let mut calls = 0;
        let mut seen = Vec::new();
        let r: Result<(), OpError> = run(
            2,
            |c| seen.push(c),
            || {
                calls += 1;
                async { Err(OpError::new(ErrorClass::SlowDown, "busy")) }
            },
        )
        .await;
        assert_eq!(r.unwrap_err().class, ErrorClass::SlowDown);
        assert_eq!(calls, 3, "one attempt and two retries");
        assert_eq!(seen, [ErrorClass::SlowDown, ErrorClass::SlowDown]);
    }

    #[tokio::test]
    async fn a_success_on_a_retry_is_a_success() {
        let mut calls = 0;
        let mut seen = Vec::new();
        let r = run(
            3,
            |c| seen.push(c),
            || {
                calls += 1;
                let n = calls;
                async move {
                    match n {
                        1 => Err(OpError::new(ErrorClass::Timeout, "slow")),
                        2 => Err(OpError::new(ErrorClass::Http(500), "oops")),
                        _ => Ok(n),
                    }
                }
            },
        )
        .await;
        assert_eq!(r.unwrap(), 3);
        assert_eq!(seen, [ErrorClass::Timeout, ErrorClass::Http(500)]);
    }

    #[tokio::test]
    async fn lasting_failures_and_zero_retries_are_one_attempt() {
        for (retries, class) in [
            (3, ErrorClass::Http(404)),
            (3, ErrorClass::Http(501)),
            (3, ErrorClass::Other),
            (0, ErrorClass::Connection),
        ] {
            let mut calls = 0;
            let r: Result<(), OpError> = run(
                retries,
                |c| panic!("{c} was retried"),
                || {
                    calls += 1;
                    async move { Err(OpError::new(class, "no")) }
                },
            )
            .await;
            assert_eq!(r.unwrap_err().class, class);
            assert_eq!(calls, 1, "{class} with {retries} retries");
        }
    }
}
