//! RFC 3339 UTC timestamps: the agent only ever formats a reading's wall time, and leaves the
//! calendar arithmetic to the `time` crate.

use std::time::{SystemTime, UNIX_EPOCH};
use time::OffsetDateTime;

/// Formats a time as RFC 3339 UTC with millisecond precision, e.g. `2026-08-11T12:00:01.000Z`.
/// Times before 1970 (a badly set clock) are clamped to the epoch so the result stays valid.
pub fn rfc3339_utc(t: SystemTime) -> String {
    let t = if t < UNIX_EPOCH { UNIX_EPOCH } else { t };
    let t = OffsetDateTime::from(t);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// The current time, formatted by [`rfc3339_utc`].
pub fn now_rfc3339() -> String {
    rfc3339_utc(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64, millis: u64) -> String {
        rfc3339_utc(UNIX_EPOCH + Duration::from_millis(secs * 1000 + millis))
    }

    #[test]
    fn known_instants() {
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        // The Appendix B observation time.
        assert_eq!(at(1_786_449_601, 0), "2026-08-11T12:00:01.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
        assert_eq!(at(1_709_251_199, 0), "2024-02-29T23:59:59.000Z");
    }

    #[test]
    fn before_epoch_clamps() {
        assert_eq!(
            rfc3339_utc(UNIX_EPOCH - Duration::from_secs(10)),
            "1970-01-01T00:00:00.000Z"
        );
    }
}
