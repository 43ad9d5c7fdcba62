//! The quoting checks, and reading through a window: any window size reads a file
//! exactly as the whole file at once would.

use super::*;

fn check(text: &str) -> Option<QuoteError> {
    let shape = Shape {
        columns: 3,
        first: first_field(text.as_bytes(), 0, b','),
    };
    check_quotes(text.as_bytes(), 0, 1, b',', Some(&shape))
}

#[test]
fn well_quoted_records_pass() {
    assert_eq!(check("1,\"a, b\",c\n"), None);
    assert_eq!(check("1,\"He said \"\"yes\"\"\",c\r\n"), None);
    assert_eq!(check("1,\"two\nlines\",c"), None);
    assert_eq!(check("1,5\" screen,c\n"), None);
    assert_eq!(check("1,\"\",c"), None);
}

/// A year opening a line of prose is no row: it does not fall between the record's
/// id and the next record's (a false refusal found by generating real-shaped files).
#[test]
fn a_paragraph_line_starting_with_a_number_is_not_a_row() {
    let text = "130,\"First line.\n140, a year and a comma,x.\",c\n131,b,c\n";
    assert_eq!(check(text), None);
    let text = "130,\"First line.\n131, a year and a comma,x.\",c\n131,b,c\n";
    assert_eq!(check(text), None);
    let swallowed = "130,\"Open.\n131,Row,S\n132,Five 5\",R\n133,b,c\n";
    assert!(check(swallowed).is_some());
}

/// Found by the hostile pass: hard-wrapped prose after a claim, a year in the last
/// row, and ids with gaps are no rows.
#[test]
fn prose_lines_are_not_rows() {
    let wrapped = "Masks cut flu spread,\"A large trial, run in 2020,\nfound masks cut infections, and\nthe effect held.\",x\nNext claim here,b,c\n";
    assert_eq!(check(wrapped), None);
    assert_eq!(
        check("1,\"Official tally\n1990, the band formed,x\nend\",c\n"),
        None
    );
    assert_eq!(
        check("1000,\"Tally\n1990, the band formed,x\",c\n2000,b,c\n"),
        None
    );
}

#[test]
fn text_after_a_closing_quote_is_refused() {
    let bad = check("1,\"Yes we can\" was his slogan,S\n").unwrap_or_else(|| panic!("not refused"));
    assert_eq!(bad.field, 1);
    assert!(
        bad.message.contains("\"Yes we can\" was"),
        "{}",
        bad.message
    );
}

#[test]
fn an_unbalanced_quote_names_where_it_opened() {
    let bad = check("1,\"Open,S\n2,b,R\n3,\"c\",S\n").unwrap_or_else(|| panic!("not refused"));
    assert_eq!(bad.field, 1);
    assert!(bad
        .message
        .contains("opens this field on line 1 closes on line 3"));
    let bad = check("1,\"Vaccines work,S\n2,Masks fail,R\n3,Screens are 5\",R\n4,x,S\n")
        .unwrap_or_else(|| panic!("not refused"));
    assert!(
        bad.message.contains("line 2 inside it reads like a row"),
        "{}",
        bad.message
    );
    let bad = check("1,\"Open,S\n2,b,R\n").unwrap_or_else(|| panic!("not refused"));
    assert!(bad.message.contains("never closes"), "{}", bad.message);
}

/// Every row as read, with its line, fields or error, and raw text, for comparing.
fn read_all(text: &[u8], window: usize) -> String {
    let mut out = Vec::new();
    let total = read_in(
        "t.csv",
        std::io::Cursor::new(text),
        b',',
        3,
        window,
        |rows| {
            out.extend(rows.into_iter().map(|r| match r {
                Ok(row) => format!("{} {:?} {:?}", row.line, row.fields, row.raw),
                Err(bad) => format!("{} {:?}", bad.error, bad.raw),
            }));
            Ok(())
        },
    );
    format!("{total:?} {out:#?}")
}

#[test]
fn any_window_reads_as_the_whole_file() {
    let inputs: [&[u8]; 18] = [
        b"id,claim,label\r\n1,\"a\r\n2,b,c\r\nd\",x\r\n4,E.,y\r\n",
        b"id,claim\n1,A.\r\n\r\n2,B.\r",
        b"id,claim\n1,A.\n2,\"never closes",
        b"id,claim\n1,\"x\" y\n",
        b"id,claim,label\n1,A.,SUPPORTED\n2,B.,REFUTED\n",
        b"id,claim,label\r\n1,\"two\r\nlines\",x\r\n2,B.,y\r\n",
        b"id,claim,label\r1,A.,x\r2,\"B\rC\",y\r3,D.,z",
        b"\xEF\xBB\xBFid,claim\n1,A.\n\n\n2,B.\n",
        b"id,claim,label\n1,\"Open quote,SUPPORTED\n2,Second.,REFUTED\n3,\"Third.\",SUPPORTED\n",
        b"id,claim\n1,\"Open quote\n2,Second.\n3,Third.\n",
        b"id,claim,label\n1,\"Yes we can\" was his slogan,x\n2,B.,y\n",
        b"id,claim,label\n1,\"a\n2,b,c\nd\",x\n4,E.,y\n",
        b"id,claim,label\n1,\"In 1990\nthe river rose\",x\n2,B.,y\n",
        b"id,claim,label\n1,A.\n2,B.,y,extra\n3,C.,z\n",
        b"id,claim\n1,\xFF\xFE\n2,B.\n",
        b"id,\"claim\ntext\"\n1,A.\n",
        b"id,claim\n1,\"He said \"\"yes\"\"\"\n2,\"\"\n",
        b"id,claim\n",
    ];
    for input in inputs {
        let whole = read_all(input, usize::MAX / 4);
        for window in 1..=input.len() + 2 {
            assert_eq!(
                read_all(input, window),
                whole,
                "window {window} on {:?}",
                String::from_utf8_lossy(input)
            );
        }
    }
}
