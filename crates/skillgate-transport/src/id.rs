//! Request and message ids.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A process-unique id `PREFIX-<nanos>-<pid>-<n>`: unique across processes (time and pid) and
/// within one (a counter), without a random source, so ids stay readable in logs.
pub fn fresh_id(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{nanos:x}-{:x}-{n}", std::process::id())
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_do_not_repeat() {
        let a = super::fresh_id("msg");
        let b = super::fresh_id("msg");
        assert!(a.starts_with("msg-"));
        assert_ne!(a, b);
    }
}
