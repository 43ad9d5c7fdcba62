//! Dates for people: project times are unix milliseconds, shown in UTC so a report or a
//! pack list reads the same on every laptop.

/// Unix milliseconds as the UTC (year, month, day, hour, minute) of the proleptic
/// Gregorian calendar, from the day count by the civil-from-days method, valid for any
/// i64 day.
fn civil(ms: i64) -> (i64, i64, i64, i64, i64) {
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
    (year, month, day, rest / 3600, rest % 3600 / 60)
}

/// Unix milliseconds as "YYYY-MM-DD HH:MM" in UTC: for the command line's tables, which
/// scripts read.
pub fn utc_minute(ms: i64) -> String {
    let (year, month, day, hour, minute) = civil(ms);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}")
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Unix milliseconds as the app writes a moment, in UTC: "30 Nov 2026, 04:36 UTC", for
/// what people read (the report), so it says a date the way the app's screens do.
pub fn utc_moment(ms: i64) -> String {
    let (year, month, day, hour, minute) = civil(ms);
    let name = MONTHS[usize::try_from(month - 1).unwrap_or(0).min(11)];
    format!("{day} {name} {year}, {hour:02}:{minute:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::{utc_minute, utc_moment};

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

    #[test]
    fn moments_read_as_the_app_writes_them() {
        assert_eq!(utc_moment(0), "1 Jan 1970, 00:00 UTC");
        assert_eq!(
            utc_moment(1_795_392_000_000 + 3_660_000),
            "23 Nov 2026, 01:01 UTC"
        );
    }
}
