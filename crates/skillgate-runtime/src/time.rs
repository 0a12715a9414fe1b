//! The Agent Card's HTTP-date (RFC 3339 task timestamps are `skillgate_a2a::timestamp`).

use std::time::SystemTime;

/// Now as an IMF-fixdate (RFC 9110 HTTP-date), e.g. `Wed, 02 Dec 2026 14:55:00 GMT`.
pub(crate) fn now_http_date() -> String {
    httpdate::fmt_http_date(SystemTime::now())
}

#[cfg(test)]
mod tests {
    #[test]
    fn http_dates() {
        use std::time::{Duration, UNIX_EPOCH};
        let at = |s| httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(at(1_795_000_000), "Wed, 18 Nov 2026 11:06:40 GMT");
        assert!(super::now_http_date().ends_with(" GMT"));
    }
}
