//! Telling a negation-only edit from a real one.
//!
//! "The vaccine is effective" -> "The vaccine isn't effective" is false whenever the
//! original is true, but it teaches a model nothing beyond spotting "not", so it is
//! refused. Both claims are reduced to a key with the negation taken out: negation cues
//! dropped ("no longer" as one), contractions folded to their auxiliary ("isn't" -> "is"),
//! a leading "it is not true that" frame removed. Equal keys mean nothing but negation
//! changed. A few more foldings cover the grammar a negation drags along: do-support and
//! the verb's ending ("fails" -> "does not fail"), the article it replaces ("a cure" -> "no
//! cure"), and the auxiliary a headline leaves out until it is negated ("deaths seen" ->
//! "deaths are not seen").

/// Words whose only job is to negate, sorted for binary search.
pub(super) const CUES: &[&str] = &[
    "false", "n't", "neither", "never", "no", "nobody", "none", "nor", "not", "nothing", "without",
];

/// Words that go with a negation and carry nothing else: do-support ("does not fail"),
/// the articles a "no" replaces ("a cure" -> "no cure", "any effect") and "ever" ("was
/// not ever built"). Sorted.
pub(super) const NEGATION_COMPANIONS: &[&str] =
    &["a", "an", "any", "did", "do", "does", "ever", "some"];

/// Auxiliaries and modals a negation brings along or shifts: "deaths seen" -> "deaths are
/// not seen", "X effective" -> "X is no longer effective", "opens" -> "will not open",
/// "is found" -> "was never found". Sorted.
const AUXILIARIES: &[&str] = &[
    "am", "are", "be", "been", "being", "can", "could", "had", "has", "have", "is", "may", "might",
    "must", "shall", "should", "was", "were", "will", "would",
];

/// Which way an edit changed the negation, when nothing else changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NegationEdit {
    /// The written claim negates what the original stated.
    Added,
    /// The original was negated and the written claim is not.
    Removed,
    /// Both are negated, differently ("not" -> "never").
    Changed,
}

/// A claim with the negation taken out, and how many negations there were.
#[derive(Debug)]
struct Key {
    words: Vec<String>,
    negations: usize,
}

/// How `original` and `written` (normalised tokens) differ when they differ only in
/// negation; `None` when anything else changed. Callers rule out identical sequences first.
pub(super) fn negation_edit(original: &[String], written: &[String]) -> Option<NegationEdit> {
    let edit = |drop_auxiliaries: bool| {
        let (a, b) = (
            key(original, drop_auxiliaries),
            key(written, drop_auxiliaries),
        );
        // Without a negation on either side an equal key only means an inflection or
        // article changed, which is not what this check is about. A written claim that
        // only leaves words out while its negation changes says nothing new either.
        let negated = a.negations > 0 || b.negations > 0;
        // "with" -> "without" replaces a word; leaving "with" out is not a shortening.
        let replaced_with = [original, written]
            .iter()
            .any(|w| w.iter().any(|t| t == "without"));
        let same = a.words == b.words
            || (a.negations != b.negations && !replaced_with && is_shortened(&a.words, &b.words));
        (negated && same).then_some((a.negations, b.negations))
    };
    let (a, b) = edit(false).or_else(|| edit(true))?;
    Some(match a.cmp(&b) {
        std::cmp::Ordering::Less => NegationEdit::Added,
        std::cmp::Ordering::Greater => NegationEdit::Removed,
        std::cmp::Ordering::Equal => NegationEdit::Changed,
    })
}

/// Whether `written` is `original` with some words left out (and none added or changed).
fn is_shortened(original: &[String], written: &[String]) -> bool {
    if written.is_empty() || written.len() >= original.len() {
        return false;
    }
    let mut rest = original.iter();
    written.iter().all(|w| rest.any(|o| o == w))
}

/// Whether `original` and `written` differ only in negation.
#[cfg(test)]
pub(super) fn only_negation_differs(original: &[String], written: &[String]) -> bool {
    negation_edit(original, written).is_some()
}

fn key(words: &[String], drop_auxiliaries: bool) -> Key {
    let start = claim_start(words);
    let mut negations = usize::from(words[..start].iter().any(|w| negates(w) || w == "untrue"));
    let mut out = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate().skip(start) {
        let w = w.as_str();
        if CUES.binary_search(&w).is_ok() {
            // "no longer" is one negation.
            if !(w == "no" && words.get(i + 1).is_some_and(|n| n == "longer")) {
                negations += 1;
            }
            continue;
        }
        if w == "longer" && i > 0 && words[i - 1] == "no" {
            negations += 1;
            continue;
        }
        // A negation shifts the auxiliaries and modals around it ("opens" -> "will not
        // open", "is found" -> "was never found"); the second pass leaves them all out.
        if drop_auxiliaries && AUXILIARIES.binary_search(&w).is_ok() {
            continue;
        }
        let base = match contraction_base(w) {
            Some(aux) => {
                negations += 1;
                if drop_auxiliaries && AUXILIARIES.binary_search(&aux).is_ok() {
                    continue;
                }
                aux
            }
            None => w,
        };
        if NEGATION_COMPANIONS.binary_search(&base).is_ok() {
            continue;
        }
        // Agreement shifts with do-support ("has" -> "does not have") and with "no"
        // ("there are cures" -> "there is no cure").
        let base = match base {
            "has" => "have",
            "are" | "am" => "is",
            "were" => "was",
            other => other,
        };
        out.push(stem(base));
    }
    Key {
        words: out,
        negations,
    }
}

/// Whether a single token negates: a cue or a contraction such as "isn't".
pub(super) fn negates(w: &str) -> bool {
    CUES.binary_search(&w).is_ok() || contraction_base(w).is_some()
}

/// The auxiliary inside a negative contraction: "isn't" -> "is", "can't" and "cannot" ->
/// "can", "won't" -> "will". Apostrophe-less spellings ("doesnt") count too, since people
/// type them; only auxiliaries are folded, so "want" stays "want".
pub(super) fn contraction_base(w: &str) -> Option<&'static str> {
    if w == "cannot" {
        return Some("can");
    }
    let aux = w.strip_suffix("n't").or_else(|| w.strip_suffix("nt"))?;
    Some(match aux {
        "ca" => "can",
        "wo" => "will",
        "sha" => "shall",
        "ai" => "is",
        "is" => "is",
        "are" => "are",
        "was" => "was",
        "were" => "were",
        "do" => "do",
        "does" => "does",
        "did" => "did",
        "has" => "has",
        "have" => "have",
        "had" => "had",
        "could" => "could",
        "would" => "would",
        "should" => "should",
        "must" => "must",
        "might" => "might",
        "need" => "need",
        _ => return None,
    })
}

/// Where the claim proper starts after a truth frame such as "it is not true that",
/// "it's false that", "it isn't the case that" or "it is untrue that"; 0 without one.
pub(super) fn claim_start(words: &[String]) -> usize {
    let w = |i: usize| words.get(i).map_or("", String::as_str);
    let mut i = match (w(0), w(1)) {
        ("it's", _) => 1,
        ("it", "is" | "was" | "isn't" | "wasn't" | "isnt" | "wasnt") => 2,
        _ => return 0,
    };
    while matches!(w(i), "not" | "never") {
        i += 1;
    }
    match w(i) {
        "true" | "untrue" | "false" | "correct" | "incorrect" => i += 1,
        "the" if w(i + 1) == "case" => i += 2,
        _ => return 0,
    }
    if w(i) == "that" {
        i + 1
    } else {
        0
    }
}

/// A crude stem, only so that the verb forms a negation brings along compare equal:
/// "fails" / "fail" / "failed" / "failing", "causes" / "cause" / "caused", "tries" / "try"
/// / "tried", "stopped" / "stop", and the common irregular past ("won" / "win", "went" /
/// "go"), since "did not win" is how a past claim is negated.
fn stem(w: &str) -> String {
    let w = IRREGULAR_PAST
        .binary_search_by(|(past, _)| past.cmp(&w))
        .map_or(w, |i| IRREGULAR_PAST[i].1);
    let mut s = w;
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(base) = s.strip_suffix(suffix) {
            if base.chars().count() >= 3 {
                s = base;
                break;
            }
        }
    }
    let mut s = s.to_string();
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    // "stopp" (from "stopped") -> "stop".
    if n >= 4 && chars[n - 1] == chars[n - 2] && !"aeioulsz".contains(chars[n - 1]) {
        s.pop();
    }
    // "cause" / "caus(ed)", "tri(ed)" / "try".
    if s.chars().count() > 3 && s.ends_with('e') {
        s.pop();
    }
    if s.ends_with('i') {
        s.pop();
        s.push('y');
    }
    s
}

/// Common irregular past forms and participles with their base, sorted by the past form.
const IRREGULAR_PAST: &[(&str, &str)] = &[
    ("ate", "eat"),
    ("became", "become"),
    ("began", "begin"),
    ("begun", "begin"),
    ("bought", "buy"),
    ("broke", "break"),
    ("broken", "break"),
    ("brought", "bring"),
    ("built", "build"),
    ("came", "come"),
    ("caught", "catch"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("done", "do"),
    ("drew", "draw"),
    ("driven", "drive"),
    ("drove", "drive"),
    ("eaten", "eat"),
    ("fallen", "fall"),
    ("fell", "fall"),
    ("felt", "feel"),
    ("flew", "fly"),
    ("forgot", "forget"),
    ("forgotten", "forget"),
    ("fought", "fight"),
    ("found", "find"),
    ("gave", "give"),
    ("given", "give"),
    ("gone", "go"),
    ("got", "get"),
    ("grew", "grow"),
    ("grown", "grow"),
    ("heard", "hear"),
    ("held", "hold"),
    ("hid", "hide"),
    ("hidden", "hide"),
    ("kept", "keep"),
    ("knew", "know"),
    ("known", "know"),
    ("led", "lead"),
    ("left", "leave"),
    ("lost", "lose"),
    ("made", "make"),
    ("meant", "mean"),
    ("met", "meet"),
    ("paid", "pay"),
    ("ran", "run"),
    ("risen", "rise"),
    ("rose", "rise"),
    ("said", "say"),
    ("sat", "sit"),
    ("saw", "see"),
    ("seen", "see"),
    ("sent", "send"),
    ("shown", "show"),
    ("sold", "sell"),
    ("sought", "seek"),
    ("spent", "spend"),
    ("spoke", "speak"),
    ("spoken", "speak"),
    ("stole", "steal"),
    ("stolen", "steal"),
    ("stood", "stand"),
    ("struck", "strike"),
    ("taken", "take"),
    ("taught", "teach"),
    ("thought", "think"),
    ("threw", "throw"),
    ("thrown", "throw"),
    ("told", "tell"),
    ("took", "take"),
    ("understood", "understand"),
    ("went", "go"),
    ("woke", "wake"),
    ("won", "win"),
    ("wore", "wear"),
    ("worn", "wear"),
    ("written", "write"),
    ("wrote", "write"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        crate::text::tokens(text)
            .iter()
            .map(|t| crate::text::normalize_token(t.text))
            .collect()
    }

    fn negation_only(a: &str, b: &str) -> bool {
        only_negation_differs(&words(a), &words(b))
    }

    #[test]
    fn lists_are_sorted_for_binary_search() {
        assert!(CUES.windows(2).all(|p| p[0] < p[1]));
        assert!(AUXILIARIES.windows(2).all(|p| p[0] < p[1]));
        assert!(NEGATION_COMPANIONS.windows(2).all(|p| p[0] < p[1]));
        assert!(IRREGULAR_PAST.windows(2).all(|p| p[0].0 < p[1].0));
    }

    #[test]
    fn folds_contractions_to_their_auxiliary() {
        for (w, base) in [
            ("isn't", "is"),
            ("doesn't", "does"),
            ("can't", "can"),
            ("cannot", "can"),
            ("won't", "will"),
            ("wouldn't", "would"),
            ("doesnt", "does"),
            ("cant", "can"),
        ] {
            assert_eq!(contraction_base(w), Some(base), "{w}");
        }
        for w in ["want", "point", "isn", "n't", "tint"] {
            assert_eq!(contraction_base(w), None, "{w}");
        }
    }

    #[test]
    fn strips_truth_frames() {
        assert_eq!(claim_start(&words("It is not true that masks work")), 5);
        assert_eq!(claim_start(&words("It's false that masks work")), 3);
        assert_eq!(claim_start(&words("It isn't the case that masks work")), 5);
        assert_eq!(claim_start(&words("It is raining")), 0);
        assert_eq!(claim_start(&words("It is true")), 0);
    }

    #[test]
    fn negation_with_its_grammar_is_still_only_negation() {
        assert!(negation_only("Masks work", "Masks do not work"));
        assert!(negation_only("Masks worked", "Masks didn't work"));
        assert!(negation_only(
            "The drug has an effect",
            "The drug doesn't have any effect"
        ));
        assert!(negation_only(
            "There is a cure for covid",
            "There is no cure for covid"
        ));
        assert!(negation_only(
            "Vaccines can cause autism",
            "Vaccines cannot cause autism"
        ));
        assert!(negation_only("Vaccines will work", "Vaccines won't work"));
        assert!(negation_only(
            "Masks work",
            "It is not true that masks work"
        ));
        assert!(negation_only("Masks work", "It is false that masks work"));
        assert!(negation_only("Masks never work", "Masks work"));
        assert!(negation_only(
            "There are cures for covid",
            "There is no cure for covid"
        ));
    }

    #[test]
    fn auxiliaries_modals_and_dropped_words_around_a_negation_are_still_only_negation() {
        for (a, b) in [
            (
                "Hotel Congress opens in Tucson.",
                "Hotel Congress will not open in Tucson.",
            ),
            (
                "Hotel Congress opens in Tucson.",
                "Hotel Congress won't open in Tucson.",
            ),
            (
                "Hotel Congress opens in Tucson.",
                "Hotel Congress cannot open in Tucson.",
            ),
            (
                "Hotel Congress opens in Tucson.",
                "Hotel Congress is not opening in Tucson.",
            ),
            (
                "It is found on Yakushima.",
                "It was never found on Yakushima.",
            ),
            (
                "XDAP is more specifically described as a protocol.",
                "XDAP is no longer described as a protocol.",
            ),
        ] {
            assert!(negation_only(a, b), "{a} -> {b}");
        }
    }

    #[test]
    fn past_tense_do_support_is_still_only_negation() {
        for (a, b) in [
            (
                "The team played the final in 2010.",
                "The team did not play the final in 2010.",
            ),
            (
                "The team played the final in 2010.",
                "The team didn't play the final in 2010.",
            ),
            ("The club won the cup.", "The club did not win the cup."),
            ("She went to Paris.", "She did not go to Paris."),
            ("They made a profit.", "They did not make a profit."),
            ("The trial stopped early.", "The trial did not stop early."),
            (
                "Researchers found a link.",
                "Researchers did not find a link.",
            ),
            (
                "The bridge was built in 1900.",
                "The bridge was not ever built in 1900.",
            ),
            (
                "The hotel will open in May.",
                "The hotel will never ever open in May.",
            ),
        ] {
            assert!(negation_only(a, b), "{a} -> {b}");
        }
    }

    #[test]
    fn which_way_the_negation_moved_is_counted() {
        let edit = |a: &str, b: &str| negation_edit(&words(a), &words(b));
        let original = "The raffles did not sell out, and were not repeated.";
        assert_eq!(
            edit(original, "The raffles did sell out, and were not repeated."),
            Some(NegationEdit::Removed)
        );
        assert_eq!(
            edit(original, "The raffles did not sell out, and were repeated."),
            Some(NegationEdit::Removed)
        );
        assert_eq!(
            edit("Masks work", "Masks never work"),
            Some(NegationEdit::Added)
        );
        assert_eq!(
            edit("Masks do not work", "Masks never work"),
            Some(NegationEdit::Changed)
        );
    }

    #[test]
    fn a_real_change_is_not_only_negation() {
        assert!(!negation_only(
            "Masks work",
            "Masks do not work in hospitals"
        ));
        assert!(!negation_only(
            "The vaccine is effective",
            "The vaccine is ineffective"
        ));
        assert!(!negation_only(
            "Vaccines work with boosters",
            "Vaccines work without boosters"
        ));
        // No negation anywhere: an inflection change is someone else's business.
        assert!(!negation_only("Masks work", "Masks worked"));
    }
}
