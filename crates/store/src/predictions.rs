//! The `predictions` table: what models said about claims (a label, or a counter-claim
//! kept as a claim of its own), apart from every annotator's answer.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::claim::Label;

/// A label a model predicted for a claim.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelPrediction {
    pub claim_id: i64,
    pub model: String,
    pub label: Label,
    pub score: Option<f64>,
}

/// A counter-claim a model wrote, kept as the claim `counter_claim_id`, with the score
/// its line gave (e.g. a contradiction model's confidence).
#[derive(Debug, Clone, PartialEq)]
pub struct CounterClaim {
    pub claim_id: i64,
    pub model: String,
    pub counter_claim_id: i64,
    pub score: Option<f64>,
}

/// Records (or replaces) a model's label for a claim. Returns whether it changed anything.
pub fn put_label(conn: &crate::Tx<'_>, p: &LabelPrediction, now: i64) -> Result<bool> {
    let before: Option<(String, Option<f64>)> = conn
        .prepare_cached(
            "SELECT label, score FROM predictions WHERE claim_id = ?1 AND model = ?2 AND label IS NOT NULL",
        )?
        .query_row(params![p.claim_id, p.model], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    if before.as_ref() == Some(&(p.label.as_str().to_string(), p.score)) {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO predictions (claim_id, model, label, score, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (claim_id, model) WHERE label IS NOT NULL
         DO UPDATE SET label = excluded.label, score = excluded.score, created_at = excluded.created_at",
    )?
    .execute(params![p.claim_id, p.model, p.label.as_str(), p.score, now])?;
    Ok(true)
}

/// Records that the claim `counter_claim_id` is a model's counter-claim of `claim_id`.
pub fn put_counter_claim(conn: &crate::Tx<'_>, c: &CounterClaim, now: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO predictions (claim_id, model, counter_claim_id, score, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![c.claim_id, c.model, c.counter_claim_id, c.score, now])?;
    Ok(())
}

/// Every label prediction, by model then claim.
pub fn labels(conn: &Read) -> Result<Vec<LabelPrediction>> {
    let mut stmt = conn.prepare(
        "SELECT claim_id, model, label, score FROM predictions WHERE label IS NOT NULL ORDER BY model, claim_id",
    )?;
    let rows = stmt.query_map([], |r| {
        let claim_id: i64 = r.get(0)?;
        let model: String = r.get(1)?;
        let score: Option<f64> = r.get(3)?;
        let label = crate::typed::label(r, 2, || format!("prediction for claim {claim_id}"))?;
        Ok(label.map(|label| LabelPrediction {
            claim_id,
            model,
            label,
            score,
        }))
    })?;
    let rows: Vec<Option<LabelPrediction>> = rows.collect::<crate::db::Result<_>>()?;
    // The query reads only rows with a label.
    Ok(rows.into_iter().flatten().collect())
}

/// Every counter-claim a model wrote, by model then claim.
pub fn counter_claims(conn: &Read) -> Result<Vec<CounterClaim>> {
    let mut stmt = conn.prepare(
        "SELECT claim_id, model, counter_claim_id, score FROM predictions WHERE counter_claim_id IS NOT NULL ORDER BY model, claim_id, counter_claim_id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(CounterClaim {
            claim_id: r.get(0)?,
            model: r.get(1)?,
            counter_claim_id: r.get(2)?,
            score: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
