//! Waiting for an observable state with a deadline: tests poll what they can see instead of
//! sleeping for a guessed time, so they are neither flaky on a loaded machine nor slow on an
//! idle one.

use std::fmt::Display;
use std::future::Future;
use std::time::{Duration, Instant};

/// How often [`eventually`], [`until`] and [`eventually_sync`] probe.
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

/// Checks the synchronous `condition` every [`PROBE_INTERVAL`] (yielding to the runtime in
/// between) until it holds; fails the test, naming `what` was awaited, once `limit` has passed
/// without it.
pub async fn until(limit: Duration, what: impl Display, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + limit;
    while !condition() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not so within {limit:?}"
        );
        tokio::time::sleep(PROBE_INTERVAL).await;
    }
}

/// [`eventually`] for synchronous tests: blocks the thread between probes.
pub fn eventually_sync<T>(limit: Duration, probe: impl FnMut() -> Option<T>) -> T {
    eventually_sync_every(limit, PROBE_INTERVAL, probe)
}

/// [`eventually_sync`] probing every `interval` instead of [`PROBE_INTERVAL`], for a test that
/// must act within a short window once the state arrives (a signal during start-up, say).
pub fn eventually_sync_every<T>(
    limit: Duration,
    interval: Duration,
    probe: impl FnMut() -> Option<T>,
) -> T {
    within_sync(limit, interval, probe)
        .unwrap_or_else(|| panic!("the awaited state did not arrive within {limit:?}"))
}

/// Probes every `interval` until `probe` yields `Some` and returns it, or `None` once `limit`
/// has passed without it: for a test that must clean up (kill a child, say) before failing.
pub fn within_sync<T>(
    limit: Duration,
    interval: Duration,
    mut probe: impl FnMut() -> Option<T>,
) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(interval);
    }
}
