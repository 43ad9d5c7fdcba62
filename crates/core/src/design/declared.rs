//! A project's own design (issue 33): checking that a declared design can be answered,
//! checking an answer against it, and the word tokens span questions are compared on.
//!
//! Spans are compared at token level, as docs/agreement.md states: a token (a word or a
//! number of the tokenizer every feature shares, `crate::text::tokens`) is marked when
//! any span of the answer touches it, so two annotators who mark "the vaccine" and
//! "vaccine" agree on "vaccine" and differ on "the".

use super::{Design, Given, Question, QuestionType, SpanOver, COMMENT};
use std::collections::{BTreeMap, HashSet};
use unicode_normalization::UnicodeNormalization;

/// The most questions a design asks and labels a question takes: more is a typo.
pub const MAX_QUESTIONS: usize = 20;
pub const MAX_LABELS: usize = 50;
/// The longest question id, label or text answer, in characters.
const MAX_NAME: usize = 60;
pub const MAX_TEXT: usize = 10_000;
/// The longest guideline a question shows, in characters: every item carries it.
const MAX_GUIDELINE: usize = 2_000;
/// The most spans one answer gives: more than any text has words is a script gone wrong.
pub const MAX_SPANS: usize = 1_000;

/// A label as it is compared: NFC, case folded, so "Café" typed in either Unicode form
/// and in any case is the label `café`.
pub fn label_key(label: &str) -> String {
    label.trim().nfc().collect::<String>().to_lowercase()
}

/// Characters that draw nothing or turn the text around (zero-width spaces and joiners,
/// bidirectional controls, the byte-order mark): a label holding one looks like another.
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}')
}

/// Whether `q` is asked on an item with (or without) a second text: a span question over
/// `text_b` is not asked on a claim alone.
pub fn asked(q: &Question, has_text_b: bool) -> bool {
    has_text_b || q.over != Some(SpanOver::TextB)
}

fn id_ok(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_NAME
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Why `design` cannot be served, naming the question; `None` when it can.
pub fn problem(design: &Design) -> Option<String> {
    if design.name.trim().is_empty() || design.name.chars().count() > MAX_NAME {
        return Some(format!(
            "the design needs a name of 1 to {MAX_NAME} characters"
        ));
    }
    if design.questions.is_empty() {
        return Some("the design asks no question; declare at least one".into());
    }
    if design.questions.len() > MAX_QUESTIONS {
        return Some(format!(
            "the design asks {} questions; at most {MAX_QUESTIONS}",
            design.questions.len()
        ));
    }
    let mut seen = HashSet::new();
    for q in &design.questions {
        let id = &q.id;
        if !id_ok(id) {
            return Some(format!(
                "question id {id:?}: use lower-case letters, digits and _ (at most {MAX_NAME})"
            ));
        }
        if q.guideline
            .as_ref()
            .is_some_and(|g| g.chars().count() > MAX_GUIDELINE)
        {
            return Some(format!(
                "question {id:?}: a guideline of at most {MAX_GUIDELINE} characters (every item shows it)"
            ));
        }
        if id == COMMENT {
            return Some(format!(
                "question id {COMMENT:?} is the comment every item takes; name the question otherwise"
            ));
        }
        if !seen.insert(id.as_str()) {
            return Some(format!("question {id:?} is declared twice"));
        }
        let labels = q.labels.as_deref().unwrap_or_default();
        match q.kind {
            QuestionType::Choice | QuestionType::Multi => {
                let least = if q.kind == QuestionType::Choice { 2 } else { 1 };
                if labels.len() < least || labels.len() > MAX_LABELS {
                    return Some(format!(
                        "question {id:?} takes {least} to {MAX_LABELS} labels, not {}",
                        labels.len()
                    ));
                }
                if let Some(problem) = labels_problem(id, labels) {
                    return Some(problem);
                }
                if q.over.is_some() {
                    return Some(format!(
                        "question {id:?} is not a span question: it marks no text (drop \"over\")"
                    ));
                }
            }
            QuestionType::Span | QuestionType::Text => {
                if q.labels.is_some() {
                    return Some(format!(
                        "question {id:?} is a {} question: it takes no labels",
                        if q.kind == QuestionType::Span {
                            "span"
                        } else {
                            "text"
                        }
                    ));
                }
                if q.kind == QuestionType::Span && q.over.is_none() {
                    return Some(format!(
                        "span question {id:?} needs \"over\": \"text_a\" or \"text_b\""
                    ));
                }
                if q.kind == QuestionType::Text && q.over.is_some() {
                    return Some(format!(
                        "question {id:?} is a text question: it marks no text (drop \"over\")"
                    ));
                }
            }
        }
        if q.ordered && q.kind != QuestionType::Choice {
            return Some(format!(
                "question {id:?}: only a choice question's labels can be ordered"
            ));
        }
    }
    None
}

/// Why a question's labels cannot be told apart or read, naming the label.
fn labels_problem(id: &str, labels: &[String]) -> Option<String> {
    let mut names = HashSet::new();
    for label in labels {
        let trimmed = label.trim();
        if trimmed.is_empty()
            || trimmed != label
            || label.chars().count() > MAX_NAME
            || label.chars().any(invisible)
        {
            return Some(format!(
                "question {id:?}: label {label:?} must be 1 to {MAX_NAME} characters without surrounding spaces, control characters or invisible ones (zero-width, direction marks)"
            ));
        }
        if !names.insert(label_key(label)) {
            return Some(format!(
                "question {id:?}: label {label:?} is listed twice (case and Unicode form aside)"
            ));
        }
    }
    None
}

/// Whether two designs ask the same questions in the same shapes: what answers depend
/// on. Guidelines, the name and `required` may change once answers exist; nothing else.
pub fn same_questions(a: &Design, b: &Design) -> bool {
    let shape = |q: &Question| (q.id.clone(), q.kind, q.labels.clone(), q.over, q.ordered);
    a.questions.len() == b.questions.len()
        && a.questions
            .iter()
            .map(shape)
            .eq(b.questions.iter().map(shape))
}

/// The texts an item shows, which span answers are checked against.
#[derive(Debug, Clone, Copy)]
pub struct Texts<'a> {
    pub text_a: &'a str,
    pub text_b: Option<&'a str>,
}

impl<'a> Texts<'a> {
    pub fn of(&self, over: SpanOver) -> Option<&'a str> {
        match over {
            SpanOver::TextA => Some(self.text_a),
            SpanOver::TextB => self.text_b,
        }
    }
}

/// `given` checked against `design` for an item showing `texts`: every answered question
/// is declared and answered in its shape with its labels, every required one answered,
/// spans inside their text. Returns the answer as stored: labels as the design spells
/// them, a multiple choice's labels in the design's order, spans sorted and merged.
pub fn check(
    design: &Design,
    texts: Texts<'_>,
    given: &BTreeMap<String, Given>,
) -> Result<BTreeMap<String, Given>, String> {
    let mut out = BTreeMap::new();
    for (id, value) in given {
        if id == COMMENT {
            continue;
        }
        let Some(q) = design.questions.iter().find(|q| &q.id == id) else {
            let ids: Vec<&str> = design.questions.iter().map(|q| q.id.as_str()).collect();
            return Err(format!(
                "the design asks no question {id:?} (its questions: {})",
                ids.join(", ")
            ));
        };
        if !asked(q, texts.text_b.is_some()) {
            return Err(format!(
                "question {id:?} marks text_b, which this item does not have: it is not asked here"
            ));
        }
        let labels = q.labels.as_deref().unwrap_or_default();
        let find = |label: &str| -> Result<String, String> {
            let key = label_key(label);
            labels
                .iter()
                .find(|l| label_key(l) == key)
                .cloned()
                .ok_or_else(|| {
                    format!(
                        "question {id:?} has no label {label:?} (its labels: {})",
                        labels.join(", ")
                    )
                })
        };
        let wrong = |wanted: &str| format!("question {id:?} takes {wanted}, not {}", value.shape());
        let kept = match (q.kind, value) {
            (QuestionType::Choice, Given::One(label)) => Given::One(find(label)?),
            (QuestionType::Choice, _) => return Err(wrong("one label as a string")),
            (QuestionType::Multi, Given::Many(chosen)) => {
                let chosen: HashSet<String> =
                    chosen.iter().map(|l| find(l)).collect::<Result<_, _>>()?;
                Given::Many(
                    labels
                        .iter()
                        .filter(|l| chosen.contains(*l))
                        .cloned()
                        .collect(),
                )
            }
            (QuestionType::Multi, _) => return Err(wrong("a list of labels ([] for none)")),
            (QuestionType::Text, Given::One(text)) => {
                let text = text.trim();
                if text.is_empty() {
                    if q.required {
                        return Err(format!("question {id:?} needs a text"));
                    }
                    // An optional text left blank is not an answer to it.
                    continue;
                }
                if text.chars().count() > MAX_TEXT || text.contains('\0') {
                    return Err(format!(
                        "question {id:?}: a text of at most {MAX_TEXT} characters, without NUL"
                    ));
                }
                Given::One(text.to_string())
            }
            (QuestionType::Text, _) => return Err(wrong("its text as a string")),
            (QuestionType::Span, Given::Spans { spans }) => {
                if spans.len() > MAX_SPANS {
                    return Err(format!(
                        "question {id:?}: at most {MAX_SPANS} spans, not {}",
                        spans.len()
                    ));
                }
                let over = q.over.unwrap_or(SpanOver::TextA);
                let Some(text) = texts.of(over) else {
                    return Err(format!(
                        "question {id:?} marks text_b, which this item does not have"
                    ));
                };
                Given::Spans {
                    spans: merged(spans, text.chars().count() as u32)
                        .map_err(|e| format!("question {id:?}: {e}"))?,
                }
            }
            (QuestionType::Span, _) => return Err(wrong("{\"spans\": [[start, end], ...]}")),
        };
        out.insert(id.clone(), kept);
    }
    let has_b = texts.text_b.is_some();
    if let Some(q) = design
        .questions
        .iter()
        .find(|q| q.required && asked(q, has_b) && !out.contains_key(&q.id))
    {
        return Err(format!("question {:?} is not answered", q.id));
    }
    Ok(out)
}

/// Spans sorted, overlapping or touching ones joined; refused when one is empty, reversed
/// or reaches past the text's `len` characters.
fn merged(spans: &[[u32; 2]], len: u32) -> Result<Vec<[u32; 2]>, String> {
    let mut sorted = spans.to_vec();
    for [start, end] in &sorted {
        if start >= end || *end > len {
            return Err(format!(
                "span [{start}, {end}] is not a stretch of the text's {len} characters (start < end <= {len})"
            ));
        }
    }
    sorted.sort_unstable();
    let mut out: Vec<[u32; 2]> = Vec::new();
    for span in sorted {
        match out.last_mut() {
            Some(last) if span[0] <= last[1] => last[1] = last[1].max(span[1]),
            _ => out.push(span),
        }
    }
    Ok(out)
}

/// The word tokens of `text` as character offsets `[start, end)`: the shared tokenizer's
/// words and numbers ("don't", "SARS-CoV-2" and "3,000" are one each, accents written as
/// their own character stay with their letter), so a word is the same here as in search,
/// ranking and highlighting.
pub fn tokens(text: &str) -> Vec<[u32; 2]> {
    crate::text::tokens(text)
        .into_iter()
        .map(|t| {
            let (start, end) = crate::text::char_offsets(
                text,
                crate::text::Span {
                    start: t.start,
                    end: t.end,
                },
            );
            [start as u32, end as u32]
        })
        .collect()
}

/// Which of `tokens` the spans touch.
pub fn marked(tokens: &[[u32; 2]], spans: &[[u32; 2]]) -> Vec<bool> {
    tokens
        .iter()
        .map(|t| spans.iter().any(|s| s[0] < t[1] && t[0] < s[1]))
        .collect()
}

/// The spans covering the marked tokens, a run of marked tokens as one span from its
/// first token's start to its last one's end.
pub fn spans_of(tokens: &[[u32; 2]], marked: &[bool]) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = Vec::new();
    let mut run: Option<[u32; 2]> = None;
    for (t, &m) in tokens.iter().zip(marked) {
        run = match (m, run) {
            (true, Some([s, _])) => Some([s, t[1]]),
            (true, None) => Some(*t),
            (false, Some(r)) => {
                out.push(r);
                None
            }
            (false, None) => None,
        };
    }
    out.extend(run);
    out
}

#[cfg(test)]
mod tests;
