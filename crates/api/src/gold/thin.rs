//! Claims short of answers: a task with fewer counted answers than its overlap (answers
//! left out for picking the trick or for a flagged annotator, or work still under way)
//! has not had the vote the project asked for. Such claims are held back from the gold
//! file and listed, unless the lead asks for them, and then each line says so.

use super::outcome::TaskOutcome;
use super::records::UnderAnnotated;
use factdesk_store::ClaimRow;

/// The reason given for a refutation whose original claim was held back.
pub(crate) const PARENT_HELD_BACK: &str =
    "its original claim was held back: fewer counted answers than the overlap";

/// The first of a line's tasks that settled on fewer counted answers than it asks for;
/// a task the lead decided is settled whatever its answers, and one without counted
/// answers settles nothing (the export says why elsewhere).
pub(crate) fn short<'a>(tasks: &[Option<&'a TaskOutcome>]) -> Option<&'a TaskOutcome> {
    tasks
        .iter()
        .flatten()
        .copied()
        .find(|t| t.decision.is_none() && t.counted > 0 && t.counted < t.needed)
}

/// How the card and the preview list a claim short of answers on `task`.
pub(crate) fn listed(claim: &ClaimRow, task: &TaskOutcome) -> UnderAnnotated {
    UnderAnnotated {
        id: claim.ext_id.clone(),
        number: claim.id,
        claim: claim.text.clone(),
        kind: task.kind.as_str().to_string(),
        answers: task.counted,
        needed: task.needed,
    }
}

/// Refuses to include claims short of answers in a format whose rows cannot carry the
/// mark (a Hugging Face folder's Parquet files have a fixed set of columns): a reader of
/// such a file could not tell them from the others.
pub(crate) fn refuse_unmarked(req: &super::GoldRequest, format: &str) -> crate::Result<()> {
    if !req.include_under_annotated {
        return Ok(());
    }
    Err(crate::Error::new(
        crate::ErrorCode::InvalidInput,
        format!(
            "--include-under-annotated marks each such line, which the {format} format has no column for; export with --format factdesk or fever (nothing was written)"
        ),
    ))
}
