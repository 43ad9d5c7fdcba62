//! The life of a written refutation: written (pending review, or needing none when its
//! writer has qualified), accepted or rejected by the lead, superseded by its writer's
//! next answer. Each change happens in the transaction of the decision that causes it,
//! together with what follows from it: only a current accepted (or unreviewed but
//! qualified) refutation has an open verify task.

use crate::settings::Settings;
use crate::tasks::{shuffle_key, TaskKind};
use crate::Result;
use factdesk_core::claim::RefutationState;
use factdesk_store::{reviews, tasks, tx, ClaimRow, NewClaim};

/// A refutation answer just stored, to become a claim linked to its parent.
pub(crate) struct Written<'a> {
    pub parent: &'a ClaimRow,
    pub text: &'a str,
    /// The answer that wrote it, and its uuid.
    pub annotation_id: i64,
    pub uuid: &'a str,
    pub writer_id: i64,
    /// The writer's earlier answer on the same item, which this one supersedes.
    pub supersedes: Option<i64>,
    pub now: i64,
}

/// Inserts the written claim in `conn`'s transaction: supersedes the writer's earlier
/// refutation (closing its verification), and opens a verify task unless the writer is
/// still qualifying, in which case it waits for the lead's review.
pub(crate) fn write(
    conn: &factdesk_store::Tx<'_>,
    settings: &Settings,
    w: &Written<'_>,
) -> Result<i64> {
    if let Some(earlier) = w.supersedes {
        if let Some((old, _)) = tx::written_in(conn, earlier)? {
            tx::set_refutation_state(conn, old, RefutationState::Superseded)?;
            tasks::close(conn, TaskKind::Verify, old, w.now)?;
        }
    }
    let state = if reviews::accepted_count(conn, w.writer_id)?
        >= u64::from(settings.qualification_min_accepted)
    {
        RefutationState::NoReviewNeeded
    } else {
        RefutationState::PendingReview
    };
    let ext_id = format!("{}/written/{}", w.parent.ext_id, w.uuid);
    let hash = factdesk_core::digest::digest(w.text.as_bytes());
    let child = tx::insert_claim(
        conn,
        &NewClaim {
            ext_id: &ext_id,
            text: w.text,
            context: w.parent.context.as_deref(),
            label: None,
            source_url: w.parent.source_url.as_deref(),
            parent_id: Some(w.parent.id),
            metadata: "{}",
            hash: &hash,
            import_id: None,
            created_at: w.now,
        },
    )?;
    tx::mark_written(conn, child, w.annotation_id, state)?;
    tx::copy_documents(conn, w.parent.id, child)?;
    if state.is_live() {
        open_verification(conn, settings, child, w.now)?;
    }
    Ok(child)
}

/// Gives an accepted refutation its verify task: a new one, or the one closed when it
/// was rejected.
pub(crate) fn open_verification(
    conn: &factdesk_store::Tx<'_>,
    settings: &Settings,
    claim_id: i64,
    now: i64,
) -> Result<()> {
    if tasks::reopen(conn, TaskKind::Verify, claim_id)? {
        return Ok(());
    }
    tasks::insert(
        conn,
        &tasks::NewTask {
            kind: TaskKind::Verify,
            claim_id,
            overlap: settings.overlap,
            trick_slot: None,
            shuffle_key: shuffle_key(settings.seed, TaskKind::Verify, claim_id),
            created_at: now,
        },
    )?;
    Ok(())
}
