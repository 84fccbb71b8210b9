//! The cap day: daily caps run from midnight to midnight in the configured time zone.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

/// The day a moment belongs to, and when that day ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapDay {
    /// The calendar date in the configured zone.
    pub date: NaiveDate,
    /// The next midnight in that zone, when the daily counters reset.
    pub resets_at: DateTime<Utc>,
}

impl CapDay {
    /// The cap day of `now` in `zone`.
    pub fn of(now: DateTime<Utc>, zone: Tz) -> Self {
        let date = now.with_timezone(&zone).date_naive();
        Self {
            date,
            resets_at: start_of(date.succ_opt().unwrap_or(date), zone),
        }
    }
}

/// The first moment of `date` in `zone`: its midnight, or, where a clock change skips
/// midnight, the first local time that exists after it.
fn start_of(date: NaiveDate, zone: Tz) -> DateTime<Utc> {
    let midnight = date.and_time(chrono::NaiveTime::MIN);
    let mut local = midnight;
    // Gaps are at most a few hours long; step through them a quarter hour at a time.
    for _ in 0..=24 * 4 {
        if let Some(moment) = zone.from_local_datetime(&local).earliest() {
            return moment.with_timezone(&Utc);
        }
        local += Duration::minutes(15);
    }
    // Unreachable for real zones; fall back to UTC midnight.
    Utc.from_utc_datetime(&midnight)
}

/// Today's counters given the stored ones: counters of an earlier day read as zero.
pub fn counters_on(
    today: NaiveDate,
    stored_day: Option<NaiveDate>,
    won_silver: i64,
    lost_silver: i64,
) -> (i64, i64) {
    if stored_day == Some(today) {
        (won_silver, lost_silver)
    } else {
        (0, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn shanghai_days_end_at_16_utc() {
        let zone: Tz = "Asia/Shanghai".parse().unwrap();
        let before = CapDay::of(utc("2025-03-01T15:59:59Z"), zone);
        assert_eq!(before.date, NaiveDate::from_ymd_opt(2025, 3, 1).unwrap());
        assert_eq!(before.resets_at, utc("2025-03-01T16:00:00Z"));
        let after = CapDay::of(utc("2025-03-01T16:00:00Z"), zone);
        assert_eq!(after.date, NaiveDate::from_ymd_opt(2025, 3, 2).unwrap());
        assert_eq!(after.resets_at, utc("2025-03-02T16:00:00Z"));
    }

    #[test]
    fn a_skipped_midnight_resets_at_the_first_real_moment() {
        // Santiago skipped from 2024-09-08 00:00 to 01:00 local (UTC-4 to UTC-3).
        let zone: Tz = "America/Santiago".parse().unwrap();
        let day = CapDay::of(utc("2024-09-07T12:00:00Z"), zone);
        assert_eq!(day.resets_at, utc("2024-09-08T04:00:00Z"));
    }

    #[test]
    fn yesterdays_counters_read_as_zero() {
        let today = NaiveDate::from_ymd_opt(2025, 3, 2).unwrap();
        let yesterday = today.pred_opt().unwrap();
        assert_eq!(counters_on(today, Some(today), 5, 7), (5, 7));
        assert_eq!(counters_on(today, Some(yesterday), 5, 7), (0, 0));
        assert_eq!(counters_on(today, None, 0, 0), (0, 0));
    }
}
