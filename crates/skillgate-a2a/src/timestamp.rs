//! RFC 3339 UTC timestamps as A2A objects carry them (`TaskStatus.timestamp`, ListTasks'
//! `statusTimestampAfter`) and as skills report observation times: millisecond precision,
//! always three fractional digits and `Z`, so the timestamps of one server sort as strings.
//! Calendar rules (month lengths, leap years) are left to the `time` crate.

use std::time::{SystemTime, UNIX_EPOCH};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn now_rfc3339() -> String {
    format_utc(OffsetDateTime::now_utc())
}

/// `t` as `YYYY-MM-DDTHH:MM:SS.mmmZ`. Times before 1970 (a badly set clock) clamp to the
/// epoch, so the result is always a valid timestamp.
pub fn rfc3339_utc(t: SystemTime) -> String {
    let t = if t < UNIX_EPOCH { UNIX_EPOCH } else { t };
    format_utc(OffsetDateTime::from(t))
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`; out-of-range values
/// clamp to the epoch.
pub fn format_unix_millis(ms: i64) -> String {
    let t = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format_utc(t)
}

/// Parses an RFC 3339 date-time (`Z` or `±HH:MM` offset, optional fraction) to Unix
/// milliseconds; a date the calendar does not have (`2026-02-31`) is refused.
pub fn parse_rfc3339_millis(s: &str) -> Option<i64> {
    let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
}

/// Written digit by digit: every task write stamps its status, and `format!` with padded
/// fields cost ~2,500 instructions a call (callgrind), a tenth of the HTTP exchange.
fn format_utc(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    // Years outside 0..=9999 cannot come from the clock of a running server; clamp rather
    // than write a string that is not RFC 3339.
    let year = t.year().clamp(0, 9999) as u32;
    let mut out = [0u8; 24];
    let mut put = |at: usize, width: usize, mut v: u32| {
        for i in (0..width).rev() {
            out[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, u32::from(u8::from(t.month())));
    put(8, 2, u32::from(t.day()));
    put(11, 2, u32::from(t.hour()));
    put(14, 2, u32::from(t.minute()));
    put(17, 2, u32::from(t.second()));
    put(20, 3, u32::from(t.millisecond()));
    for (at, sep) in [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
        (23, b'Z'),
    ] {
        out[at] = sep;
    }
    // Only ASCII digits and separators were written: one copy, no per-char pushes.
    String::from_utf8_lossy(&out).into_owned()
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
        // The draft's Appendix B observation time.
        assert_eq!(at(1_786_449_601, 0), "2026-08-11T12:00:01.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
        assert_eq!(at(1_709_251_199, 0), "2024-02-29T23:59:59.000Z");
        assert_eq!(
            format_unix_millis(1_795_000_000_123),
            "2026-11-18T11:06:40.123Z"
        );
        assert_eq!(now_rfc3339().len(), 24);
        assert_eq!(
            rfc3339_utc(UNIX_EPOCH - Duration::from_secs(10)),
            "1970-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn parsing_round_trips_and_checks_the_calendar() {
        let p = parse_rfc3339_millis;
        for ms in [0, 1_795_000_000_123, 951_782_400_000, -86_400_000] {
            assert_eq!(p(&format_unix_millis(ms)), Some(ms));
        }
        assert_eq!(p("2026-11-18T11:06:40Z"), Some(1_795_000_000_000));
        assert_eq!(p("2026-11-18T12:06:40.5+01:00"), Some(1_795_000_000_500));
        assert_eq!(p("2026-11-18T11:06:40.123456Z"), Some(1_795_000_000_123));
        assert_eq!(p("2024-02-29T00:00:00Z"), Some(1_709_164_800_000));
        for bad in [
            "",
            "2026-11-18",
            "2026-13-18T11:06:40Z",
            "2026-11-18T11:06:40",
            "2026-11-18T11:06:40.Z",
            "x026-11-18T11:06:40Z",
            "2026-02-31T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-04-31T12:00:00Z",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }
}
