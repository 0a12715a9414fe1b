//! Task timestamps (RFC 3339 UTC, millisecond precision) and the Agent Card's HTTP-date, on the
//! `time` and `httpdate` crates so that calendar rules (month lengths, leap years) are checked
//! by code that is tested for them.

use std::time::SystemTime;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn now_rfc3339() -> String {
    format_utc(OffsetDateTime::now_utc())
}

/// Formats milliseconds since the Unix epoch; out-of-range values clamp to the epoch.
#[cfg(test)]
pub(crate) fn format_unix_millis(ms: i64) -> String {
    let t = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format_utc(t)
}

/// Always three fractional digits and `Z`, so timestamps of one server sort as strings.
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
    out.iter().map(|&b| char::from(b)).collect()
}

/// Now as an IMF-fixdate (RFC 9110 HTTP-date), e.g. `Wed, 02 Dec 2026 14:55:00 GMT`.
pub(crate) fn now_http_date() -> String {
    httpdate::fmt_http_date(SystemTime::now())
}

/// Parses an RFC 3339 date-time (`Z` or `±HH:MM` offset, optional fraction) to Unix
/// milliseconds; a date the calendar does not have (`2026-02-31`) is refused.
pub(crate) fn parse_rfc3339_millis(s: &str) -> Option<i64> {
    let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_parsing() {
        use super::{format_unix_millis, parse_rfc3339_millis as p};
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
            // Days the calendar does not have.
            "2026-02-31T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-04-31T12:00:00Z",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn http_dates() {
        use std::time::{Duration, UNIX_EPOCH};
        let at = |s| httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(at(1_795_000_000), "Wed, 18 Nov 2026 11:06:40 GMT");
        assert!(super::now_http_date().ends_with(" GMT"));
    }

    #[test]
    fn known_instants() {
        assert_eq!(super::format_unix_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            super::format_unix_millis(1_795_000_000_123),
            "2026-11-18T11:06:40.123Z"
        );
        assert_eq!(
            super::format_unix_millis(951_782_400_000),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(super::now_rfc3339().len(), 24);
    }
}
