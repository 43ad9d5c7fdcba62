//! Dates for people: project times are unix milliseconds, shown in UTC so a report or a
//! pack list reads the same on every laptop.

/// Unix milliseconds as "YYYY-MM-DD HH:MM" in UTC (proleptic Gregorian calendar, from the
/// day count by the civil-from-days method, valid for any i64 day).
pub fn utc_minute(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc_minute;

    #[test]
    fn known_instants() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(
            utc_minute(1_795_392_000_000 + 3_660_000),
            "2026-11-23 01:01"
        );
        assert_eq!(utc_minute(-60_000), "1969-12-31 23:59");
    }
}
