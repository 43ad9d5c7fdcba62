//! Tests of the text module: hand-written cases for each rule, then real sentences from
//! the shared WikiFactCheck-English and COVID-Fact data.

mod real_data;
mod sentences;
mod tokens;

/// The sentences of `text` as strings, for readable assertions.
fn split(text: &str) -> Vec<&str> {
    crate::text::sentences(text)
        .iter()
        .map(|s| &text[s.start..s.end])
        .collect()
}
