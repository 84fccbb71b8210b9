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

    /// Zones with no clock changes, with changes away from midnight, and with a
    /// midnight that is skipped (Santiago, Havana) or repeated (Santiago).
    const ZONES: [&str; 7] = [
        "Asia/Shanghai",
        "UTC",
        "America/New_York",
        "Europe/London",
        "America/Santiago",
        "America/Havana",
        "Australia/Lord_Howe",
    ];

    /// Clock changes, in Unix seconds, each with its zone.
    const CLOCK_CHANGES: [(&str, i64); 6] = [
        ("America/Santiago", 1_725_768_000), // 2024-09-08T04:00Z: skips 00:00-01:00
        ("America/Santiago", 1_712_458_800), // 2024-04-07T03:00Z: repeats 23:00-24:00
        ("America/Havana", 1_710_046_800),   // 2024-03-10T05:00Z: skips 00:00-01:00
        ("America/New_York", 1_710_054_000), // 2024-03-10T07:00Z: skips 02:00-03:00
        ("Europe/London", 1_711_846_800),    // 2024-03-31T01:00Z: skips 01:00-02:00
        ("Australia/Lord_Howe", 1_728_142_200), // 2024-10-05T15:30Z: skips 02:00-02:30
    ];

    /// A zone and a moment: any moment of 2000-2099, or one within two days of a clock
    /// change of that zone.
    fn moments() -> impl proptest::strategy::Strategy<Value = (&'static str, i64)> {
        use proptest::prelude::*;
        prop_oneof![
            (
                proptest::sample::select(ZONES.to_vec()),
                946_684_800i64..4_102_444_800
            ),
            (
                proptest::sample::select(CLOCK_CHANGES.to_vec()),
                -2 * 86_400i64..2 * 86_400
            )
                .prop_map(|((zone, change), offset)| (zone, change + offset)),
        ]
    }

    proptest::proptest! {
        #[test]
        fn a_cap_day_runs_from_one_local_midnight_to_the_next((zone, unix_s) in moments()) {
            let zone: Tz = zone.parse().unwrap();
            let now = DateTime::from_timestamp(unix_s, 0).unwrap();
            let day = CapDay::of(now, zone);
            let local_date = |t: DateTime<Utc>| t.with_timezone(&zone).date_naive();
            proptest::prop_assert_eq!(day.date, local_date(now));
            proptest::prop_assert!(now < day.resets_at);
            // The reset is the first moment of the next local day: a second earlier is
            // still this day.
            proptest::prop_assert_eq!(Some(local_date(day.resets_at)), day.date.succ_opt());
            proptest::prop_assert_eq!(local_date(day.resets_at - Duration::seconds(1)), day.date);
        }
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
