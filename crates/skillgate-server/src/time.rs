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

/// Parses an RFC 3339 date-time (`Z` or `±HH:MM` offset, optional fraction) to Unix milliseconds.
pub(crate) fn parse_rfc3339_millis(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let frac = s.get(start..i.min(start + 3))?;
        millis = frac.parse::<i64>().ok()? * 10i64.pow(3 - frac.len() as u32);
    }
    let offset_min = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let m = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if *sign == b'-' {
                -m
            } else {
                m
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo as u32, d as u32);
    Some(((days * 86_400 + h * 3600 + mi * 60 + sec) - offset_min * 60) * 1000 + millis)
}

// Howard Hinnant's days-from-civil (inverse of civil_from_days).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
    fn rfc3339_parsing() {
        use super::{format_unix_millis, parse_rfc3339_millis as p};
        for ms in [0, 1_795_000_000_123, 951_782_400_000, -86_400_000] {
            assert_eq!(p(&format_unix_millis(ms)), Some(ms));
        }
        assert_eq!(p("2026-11-18T11:06:40Z"), Some(1_795_000_000_000));
        assert_eq!(p("2026-11-18T12:06:40.5+01:00"), Some(1_795_000_000_500));
        assert_eq!(p("2026-11-18T11:06:40.123456Z"), Some(1_795_000_000_123));
        for bad in [
            "",
            "2026-11-18",
            "2026-13-18T11:06:40Z",
            "2026-11-18T11:06:40",
            "2026-11-18T11:06:40.Z",
            "x026-11-18T11:06:40Z",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

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
