//! RFC 3339 UTC timestamps with millisecond precision, without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn now_rfc3339() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_unix_millis(d.as_millis() as i64)
}

/// Formats milliseconds since the Unix epoch.
pub(crate) fn format_unix_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

/// Now as an IMF-fixdate (RFC 9110 HTTP-date), e.g. `Wed, 02 Dec 2026 14:55:00 GMT`.
pub(crate) fn now_http_date() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs() as i64;
    format_http_date(secs)
}

/// Formats seconds since the Unix epoch as an IMF-fixdate.
pub(crate) fn format_http_date(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{}, {d:02} {} {y:04} {:02}:{:02}:{:02} GMT",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(m - 1) as usize],
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn http_dates() {
        assert_eq!(super::format_http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(
            super::format_http_date(1_795_000_000),
            "Wed, 18 Nov 2026 11:06:40 GMT"
        );
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
    }
}
