//! Waiting that the user's Ctrl-C cuts short.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Waits `d`, or until `stop` is cancelled.
pub async fn pause(stop: &CancellationToken, d: Duration) {
    tokio::select! {
        _ = tokio::time::sleep(d) => {}
        _ = stop.cancelled() => {}
    }
}
