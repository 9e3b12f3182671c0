//! UTC timestamps as text: HAR's `startedDateTime` and the vault's and state files' dates. The
//! calendar arithmetic is the `time` crate's; only the layout is ours, so every caller writes the
//! same `YYYY-MM-DDTHH:MM:SS[.mmm]Z`.

use time::{OffsetDateTime, PrimitiveDateTime};

/// Seconds since the Unix epoch as RFC 3339 UTC without a fraction, e.g.
/// `2026-12-01T12:00:00Z`.
///
/// ```
/// assert_eq!(abx_engine::dates::rfc3339_seconds(951_782_400), "2000-02-29T00:00:00Z");
/// ```
pub fn rfc3339_seconds(epoch_seconds: i64) -> String {
    let at = utc(i128::from(epoch_seconds) * 1_000_000_000);
    format!("{}Z", date_time(&at))
}

/// Milliseconds since the Unix epoch as RFC 3339 UTC with milliseconds, e.g.
/// `2026-12-01T12:30:44.242Z`.
///
/// ```
/// assert_eq!(abx_engine::dates::rfc3339_millis(0), "1970-01-01T00:00:00.000Z");
/// ```
pub fn rfc3339_millis(epoch_millis: i64) -> String {
    let at = utc(i128::from(epoch_millis) * 1_000_000);
    format!("{}.{:03}Z", date_time(&at), at.millisecond())
}

/// The instant `nanos` after the epoch, clamped to the years `time` represents (±9999): a file
/// date that far out is garbage either way, and clamping keeps the layout fixed.
fn utc(nanos: i128) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap_or_else(|_| {
        if nanos < 0 {
            PrimitiveDateTime::MIN.assume_utc()
        } else {
            PrimitiveDateTime::MAX.assume_utc()
        }
    })
}

fn date_time(at: &OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_millis_share_one_calendar() {
        assert_eq!(rfc3339_seconds(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_seconds(1_796_128_244), "2026-12-01T12:30:44Z");
        assert_eq!(rfc3339_seconds(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_seconds(-1), "1969-12-31T23:59:59Z");
        assert_eq!(
            rfc3339_millis(1_796_128_244_242),
            "2026-12-01T12:30:44.242Z"
        );
        assert_eq!(
            rfc3339_millis(4_102_444_799_999),
            "2099-12-31T23:59:59.999Z"
        );
    }

    #[test]
    fn dates_beyond_year_9999_are_clamped_not_panics() {
        assert_eq!(rfc3339_seconds(i64::MAX), "9999-12-31T23:59:59Z");
        assert!(rfc3339_seconds(i64::MIN).starts_with("-9999-01-01T00:00:00"));
    }
}
