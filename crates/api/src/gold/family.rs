//! A claim family in the export: which refutations of a claim may become gold lines, why
//! the others may not, why a claim got no work at all, and how far the splits landed from
//! the sizes asked for.

use super::answer::Outcome;
use super::outcome::TaskOutcome;
use crate::settings::Settings;
use crate::tasks::SkipReason;
use factdesk_core::answer::{Judgement, Verdict};
use factdesk_core::checks::same_words_key;
use factdesk_core::claim::Label;
use factdesk_core::claim::RefutationState;
use factdesk_store::ClaimRow;
use std::collections::{BTreeMap, HashMap};

/// Whether a refutation is gold: current and accepted (or needing no review) when
/// written, and verified as contradicting its parent. `must_verify`: an imported
/// refutation needs a verification too (refutation-only work, where it is the only
/// evidence of the pair); otherwise it stands as imported.
pub(crate) fn refutation_verdict(
    child: &ClaimRow,
    verify: Option<&TaskOutcome>,
    must_verify: bool,
) -> Result<(), String> {
    if let Some(state) = child.refutation_state {
        match state {
            RefutationState::PendingReview => {
                return Err("a written refutation pending the lead's review".into())
            }
            RefutationState::Rejected => {
                return Err("a written refutation the lead rejected".into())
            }
            RefutationState::Superseded => {
                return Err("a written refutation its writer replaced".into())
            }
            RefutationState::Accepted | RefutationState::NoReviewNeeded => {}
        }
    }
    match verify.map(|v| &v.outcome) {
        Some(Outcome::Label {
            label: Judgement::Verdict(Verdict::Contradicts),
        }) => Ok(()),
        Some(Outcome::Label {
            label: Judgement::Verdict(Verdict::DoesNotContradict),
        }) => Err("verified as not contradicting its original claim".into()),
        Some(Outcome::Label { label }) => Err(format!("verified as {label}")),
        Some(_) => Err("no strict majority on verification".into()),
        None if child.refutation_state.is_some() => {
            Err("a written refutation not yet verified".into())
        }
        None if must_verify => Err("a refutation not yet verified".into()),
        None => Ok(()),
    }
}

/// The claim texts the gold data already holds, by their words (case, spacing and
/// punctuation aside, as the live "identical" check compares them): no claim text is in
/// the gold data twice.
#[derive(Default)]
pub(crate) struct Texts {
    ids: HashMap<String, String>,
}

impl Texts {
    /// What a text is compared by; computed once per text (folding and splitting every
    /// claim twice, to look it up and to keep it, was a tenth of an export).
    pub fn key(text: &str) -> String {
        same_words_key(text)
    }

    /// The id of the line that already says the text of `key`, if one does.
    pub fn same_as(&self, key: &str) -> Option<&str> {
        self.ids.get(key).map(String::as_str)
    }

    pub fn keep(&mut self, key: String, id: &str) {
        self.ids.entry(key).or_insert_with(|| id.to_string());
    }
}

/// The reason a claim that repeats line `id` is dropped.
pub(crate) fn same_claim(id: &str) -> String {
    format!("the same claim as {id} (case, spacing and punctuation aside)")
}

/// Whether a verified refutation of a claim exported with `parent` as its label becomes a
/// REFUTED line; its text is then kept in `texts`. The one rule for every refutation,
/// written, imported or a model's: a REFUTED line rests on evidence, so only a SUPPORTED
/// claim's refutations are exported (with its gold evidence, or in refutation-only work
/// beside the claim itself, its evidence as in WikiFactCheck); and a text already in the
/// gold data is not exported again.
pub(crate) fn refutation_of(
    parent: Label,
    refutation_only: bool,
    texts: &mut Texts,
    child: &ClaimRow,
) -> Result<(), String> {
    if parent != Label::Supported {
        let what = if refutation_only {
            "its original claim"
        } else {
            "no gold evidence refutes it: its original claim"
        };
        return Err(format!("{what} is {}, not SUPPORTED", parent.as_str()));
    }
    let key = Texts::key(&child.text);
    if let Some(id) = texts.same_as(&key) {
        return Err(same_claim(id));
    }
    texts.keep(key, &child.ext_id);
    Ok(())
}

/// A root claim as the export weighs it.
#[derive(Debug)]
pub(crate) struct Root<'a> {
    pub label: Option<Label>,
    /// Its evidence task's outcome, when it has an evidence task with counted answers.
    pub evidence: Option<&'a Outcome>,
    /// Whether it has a label task with counted answers.
    pub label_task: bool,
    /// It has no evidence task: its lines are pairs with its verified refutations.
    pub refutation_only: bool,
    /// Its refutations, and how many of them may become gold lines.
    pub children: usize,
    pub family: usize,
    /// Answers on its evidence task that count for nothing (rejected for the trick, or
    /// by annotators left out), when none counts.
    pub uncounted: usize,
    /// Why it got no evidence task, if it did not.
    pub no_evidence_task: Option<SkipReason>,
    /// Too long to write a refutation of.
    pub too_long: bool,
}

/// Why a root claim gets no gold line (nor do its refutations), if it does not.
pub(crate) fn drop_reason(c: &Root<'_>, s: &Settings) -> Option<String> {
    match (c.label, c.evidence) {
        _ if c.refutation_only && c.family == 0 => Some(if c.children == 0 {
            no_work_reason(c.no_evidence_task, c.too_long, s)
        } else {
            "no refutation of it verified as contradicting it".into()
        }),
        (_, None) if !c.refutation_only && c.uncounted > 0 => Some(format!(
            "its evidence task has no counted answers yet ({} not counted: rejected for the trick or left out as flagged)",
            c.uncounted
        )),
        (_, None) if !c.refutation_only => {
            Some("its evidence task has no counted answers yet".into())
        }
        (None, _) if c.label_task => Some("no strict majority on the label".into()),
        (None, _) => Some("no label".into()),
        (Some(Label::Failed), _) => Some("labelled FAILED".into()),
        (Some(Label::NotEnoughInfo), _) => None,
        (_, Some(Outcome::NoEvidence)) => {
            Some("a majority found no evidence among the candidates".into())
        }
        (_, Some(Outcome::NoGoldEvidence)) => {
            Some("no sentence was selected by a strict majority".into())
        }
        _ => None,
    }
}

/// Why a claim with no evidence task and no refutations got no gold line.
fn no_work_reason(evidence: Option<SkipReason>, too_long: bool, s: &Settings) -> String {
    let mut why: Vec<String> = Vec::new();
    match evidence {
        Some(r) => why.push(r.message(s)),
        None => why.push("no evidence task".into()),
    }
    if too_long {
        why.push(SkipReason::TooLongToRefute.message(s));
    } else {
        why.push("no refutation".into());
    }
    why.join("; ")
}

/// The split warnings: a split more than this many percentage points from its share.
pub(crate) const SPLIT_TOLERANCE_POINTS: f64 = 5.0;

/// A warning for each split that misses its requested share of the lines by more than
/// [`SPLIT_TOLERANCE_POINTS`], or is empty though asked for some.
pub(crate) fn split_warnings(
    ratios: &[u32],
    names: &[String],
    per_split: &BTreeMap<String, u64>,
    lines: u64,
) -> Vec<String> {
    let total: u64 = ratios.iter().map(|&r| u64::from(r)).sum();
    if lines == 0 || total == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (name, &ratio) in names.iter().zip(ratios) {
        let asked = 100.0 * ratio as f64 / total as f64;
        let got = per_split.get(name).copied().unwrap_or(0);
        let share = 100.0 * got as f64 / lines as f64;
        if (got == 0 && ratio > 0) || (share - asked).abs() > SPLIT_TOLERANCE_POINTS {
            out.push(format!(
                "split {name} holds {got} of {lines} lines ({share:.0}%), asked for {asked:.0}%: too few claim families to split as asked"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_far_from_its_share_or_empty_is_warned_about() {
        let names: Vec<String> = ["train", "dev", "test"].map(String::from).to_vec();
        let per =
            |a, b, c| BTreeMap::from([("train".into(), a), ("dev".into(), b), ("test".into(), c)]);
        let w = split_warnings(&[70, 15, 15], &names, &per(19, 8, 0), 27);
        // train (19 of 27, 70%) is as asked; dev is 15 points over; test is empty.
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("split dev holds 8 of 27"), "{w:?}");
        assert!(w[1].starts_with("split test holds 0 of 27"), "{w:?}");
        assert!(split_warnings(&[70, 15, 15], &names, &per(70, 16, 14), 100).is_empty());
        assert!(split_warnings(&[70, 15, 15], &names, &per(0, 0, 0), 0).is_empty());
    }
}
