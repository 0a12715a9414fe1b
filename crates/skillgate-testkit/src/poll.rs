//! Waiting for an observable state with a deadline: tests poll what they can see instead of
//! sleeping for a guessed time, so they are neither flaky on a loaded machine nor slow on an
//! idle one.

use std::future::Future;
use std::time::{Duration, Instant};

/// How often [`eventually`] and [`eventually_sync`] probe.
pub const PROBE_INTERVAL: Duration = Duration::from_millis(10);

/// Probes every [`PROBE_INTERVAL`] until `probe` yields `Some`, and returns that value; fails
/// the test once `limit` has passed without it.
pub async fn eventually<T, F, Fut>(limit: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the awaited state did not arrive within {limit:?}"
        );
        tokio::time::sleep(PROBE_INTERVAL).await;
    }
}

/// [`eventually`] for synchronous tests: blocks the thread between probes.
pub fn eventually_sync<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "the awaited state did not arrive within {limit:?}"
        );
        std::thread::sleep(PROBE_INTERVAL);
    }
}
