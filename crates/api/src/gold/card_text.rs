//! Text on the dataset cards (the gold file's and the Hugging Face folder's), which are
//! Markdown meant to be published: imported text stays text, and no annotator is named.

use std::collections::HashMap;

/// A table cell or heading: on one line, its pipes literal, and HTML escaped, since
/// Markdown renders raw HTML and claims come from the web.
pub(crate) fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Annotators as a card names them: "annotator 1", "annotator 2", ... in the order of
/// the counted ones then those left out, so a published card carries no one's name.
pub(crate) struct Pseudonyms(HashMap<String, String>);

impl Pseudonyms {
    pub fn new(counted: &[String], excluded: &[String]) -> Pseudonyms {
        Pseudonyms(
            counted
                .iter()
                .chain(excluded)
                .enumerate()
                .map(|(i, name)| (name.clone(), format!("annotator {}", i + 1)))
                .collect(),
        )
    }

    pub fn of(&self, name: &str) -> String {
        self.0
            .get(name)
            .cloned()
            .unwrap_or_else(|| "an annotator".into())
    }

    /// "2 (annotator 1, annotator 2)", or "none".
    pub fn list(&self, names: &[String]) -> String {
        if names.is_empty() {
            return "none".into();
        }
        let shown: Vec<String> = names.iter().map(|n| self.of(n)).collect();
        format!("{} ({})", names.len(), shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_keeps_html_as_text_and_stays_on_one_line() {
        assert_eq!(
            cell("<script>alert(1)</script> a|b\nc & d"),
            "&lt;script&gt;alert(1)&lt;/script&gt; a\\|b c &amp; d"
        );
    }

    #[test]
    fn annotators_are_numbered_never_named() {
        let p = Pseudonyms::new(&["ana".into(), "ben".into()], &["careless".into()]);
        assert_eq!(
            p.list(&["ana".into(), "ben".into()]),
            "2 (annotator 1, annotator 2)"
        );
        assert_eq!(p.list(&["careless".into()]), "1 (annotator 3)");
        assert_eq!(p.list(&[]), "none");
    }
}
