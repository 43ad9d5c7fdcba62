//! Cells of the CSV files Factdesk writes (raw answers, the report's tables), made safe
//! to open in a spreadsheet: text from annotators and imports that starts like a formula
//! would otherwise run as one when the file is opened (CSV injection).

use std::borrow::Cow;

/// `text` as a CSV cell: a leading apostrophe when it starts with `=`, `+`, `-`, `@`, a
/// tab or a carriage return and is not a plain number, so a spreadsheet shows it as text.
/// Numbers (`-0.25`, `+3`) stay numbers.
pub(crate) fn cell(text: &str) -> Cow<'_, str> {
    let risky = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && text.trim().parse::<f64>().map_or(true, |n| !n.is_finite()) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn formula_starts_get_an_apostrophe_and_numbers_do_not() {
        for risky in [
            "=1+1",
            "+cmd|' /C calc'!A0",
            "-2+3",
            "@SUM(A1)",
            "\t=1",
            "\r=1",
            "-inf",
            "=HYPERLINK(\"http://x\")",
        ] {
            assert_eq!(cell(risky), format!("'{risky}"), "{risky:?}");
        }
        for plain in ["-0.25", "+3", "-7", "1e5", "a = b", "", "[1,2]", "'quoted"] {
            assert_eq!(cell(plain), plain, "{plain:?}");
        }
    }
}
