//! The `claims` and `claim_documents` tables.

use crate::db::{CopyRow, OptionalExtension, Row};
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::claim::{Label, RefutationState};
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct NewClaim<'a> {
    pub ext_id: &'a str,
    pub text: &'a str,
    pub context: Option<&'a str>,
    pub label: Option<Label>,
    pub source_url: Option<&'a str>,
    pub parent_id: Option<i64>,
    /// A JSON object, already serialised.
    pub metadata: &'a str,
    pub hash: &'a str,
    pub import_id: Option<i64>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClaimRow {
    pub id: i64,
    pub ext_id: String,
    pub text: String,
    pub context: Option<String>,
    pub label: Option<Label>,
    pub source_url: Option<String>,
    pub parent_id: Option<i64>,
    pub origin: String,
    pub metadata: serde_json::Value,
    /// Written refutations only: where it stands (imported claims have none).
    pub refutation_state: Option<RefutationState>,
}

/// Inserts an imported claim; returns its row id.
pub fn insert(conn: &crate::Tx<'_>, c: &NewClaim<'_>) -> Result<i64> {
    let label = c.label.map(Label::as_str);
    // The columns after `id`, in the order both statements name them.
    let fields = params![
        c.ext_id,
        c.text,
        c.context,
        label,
        c.source_url,
        c.parent_id,
        c.metadata,
        c.hash,
        c.import_id,
        c.created_at
    ];
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        let id = pg.reserve_id("claims")?;
        let row = CopyRow {
            table: "claims",
            columns: "id, ext_id, text, context, label, source_url, parent_id, metadata, hash, import_id, created_at",
            ignore_conflicts: false,
        };
        let mut values: Vec<&dyn rusqlite::ToSql> = Vec::with_capacity(fields.len() + 1);
        values.push(&id);
        values.extend_from_slice(fields);
        pg.stage(row, &values)?;
        return Ok(id);
    }
    conn.prepare_cached(
        "INSERT INTO claims (ext_id, text, context, label, source_url, parent_id, metadata, hash, import_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(fields)?;
    Ok(conn.last_insert_rowid()?)
}

/// Whether the project holds any claims: an import into a project without any need not
/// look each of its rows up.
pub fn any(conn: &Read) -> Result<bool> {
    Ok(conn.query_row("SELECT EXISTS (SELECT 1 FROM claims)", [], |r| r.get(0))?)
}

/// The store's reads of claims and their families.
impl crate::Store {
    pub fn claim(&self, id: i64) -> Result<Option<ClaimRow>> {
        get(&self.conn, id)
    }

    pub fn claim_by_ext_id(&self, ext_id: &str) -> Result<Option<ClaimRow>> {
        get_by_ext_id(&self.conn, ext_id)
    }

    /// Claims in import order, `limit` at a time.
    pub fn claims_page(&self, offset: u64, limit: u64) -> Result<Vec<ClaimRow>> {
        page(&self.conn, offset, limit)
    }

    /// Claims whose own id or text contains `words`, in a standing, a page at a time;
    /// with how many match in all.
    pub fn claims_list(
        &self,
        words: Option<&str>,
        standing: Standing,
        offset: u64,
        limit: u64,
    ) -> Result<(u64, Vec<ListedClaim>)> {
        list(&self.conn, words, standing, offset, limit)
    }

    /// The refutations written for or imported with a claim.
    pub fn claim_children(&self, parent_id: i64) -> Result<Vec<ClaimRow>> {
        children(&self.conn, parent_id)
    }

    /// Every refutation, by parent then in import order: each parent's `claim_children`
    /// in one read.
    pub fn all_claim_children(&self) -> Result<Vec<ClaimRow>> {
        all_children(&self.conn)
    }

    /// Every claim's text, label and whether it is a refutation, in import order.
    pub fn claim_texts(&self) -> Result<Vec<(String, Option<String>, bool)>> {
        texts(&self.conn)
    }

    /// Claims that refute no other claim, in import order.
    pub fn root_claims(&self) -> Result<Vec<ClaimRow>> {
        roots(&self.conn)
    }

    /// How many written refutations are in each state.
    pub fn refutation_states(&self) -> Result<Vec<(factdesk_core::claim::RefutationState, u64)>> {
        refutation_states(&self.conn)
    }

    /// Whether any claim of the project is a refutation (has a parent).
    pub fn has_refutations(&self) -> Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM claims WHERE parent_id IS NOT NULL)")?
            .query_row([], |r| r.get(0))?)
    }
}

/// The row id and content hash of the claim imported under `ext_id`, if any.
pub fn find_by_ext_id(conn: &Read, ext_id: &str) -> Result<Option<(i64, String)>> {
    Ok(conn
        .prepare_cached("SELECT id, hash FROM claims WHERE ext_id = ?1")?
        .query_row([ext_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// Ties a claim to a document its evidence may come from. Linking twice is a no-op.
pub fn link_document(conn: &crate::Tx<'_>, claim_id: i64, document_id: i64) -> Result<()> {
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        let row = CopyRow {
            table: "claim_documents",
            columns: "claim_id, document_id",
            ignore_conflicts: true,
        };
        pg.stage(row, params![claim_id, document_id])?;
        return Ok(());
    }
    conn.prepare_cached(
        "INSERT OR IGNORE INTO claim_documents (claim_id, document_id) VALUES (?1, ?2)",
    )?
    .execute(params![claim_id, document_id])?;
    Ok(())
}

const COLUMNS: &str =
    "id, ext_id, text, context, label, source_url, parent_id, origin, metadata, refutation_state";

fn from_row(r: &Row<'_>) -> crate::db::Result<ClaimRow> {
    let metadata: String = r.get(8)?;
    let id: i64 = r.get(0)?;
    Ok(ClaimRow {
        id,
        ext_id: r.get(1)?,
        text: r.get(2)?,
        context: r.get(3)?,
        label: crate::typed::label(r, 4, || format!("claim {id}"))?,
        source_url: r.get(5)?,
        parent_id: r.get(6)?,
        origin: r.get(7)?,
        metadata: serde_json::from_str(&metadata).unwrap_or(serde_json::Value::Null),
        refutation_state: r
            .get::<_, Option<String>>(9)?
            .as_deref()
            .and_then(RefutationState::from_db),
    })
}

pub(crate) fn get(conn: &Read, id: i64) -> Result<Option<ClaimRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM claims WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}

pub(crate) fn get_by_ext_id(conn: &Read, ext_id: &str) -> Result<Option<ClaimRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM claims WHERE ext_id = ?1"))?
        .query_row([ext_id], from_row)
        .optional()?)
}

pub(crate) fn page(conn: &Read, offset: u64, limit: u64) -> Result<Vec<ClaimRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM claims ORDER BY id LIMIT ?1 OFFSET ?2"
    ))?;
    let rows = stmt.query_map(params![limit as i64, offset as i64], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

pub(crate) fn children(conn: &Read, parent_id: i64) -> Result<Vec<ClaimRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM claims WHERE parent_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([parent_id], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Makes an inserted claim the refutation written in answer `annotation_id`, in `state`.
pub fn mark_written(
    conn: &crate::Tx<'_>,
    claim_id: i64,
    annotation_id: i64,
    state: RefutationState,
) -> Result<()> {
    conn.prepare_cached(
        "UPDATE claims SET origin = 'written', written_in = ?1, refutation_state = ?2 WHERE id = ?3",
    )?
    .execute(params![annotation_id, state.as_str(), claim_id])?;
    Ok(())
}

/// The claim written in answer `annotation_id` and its state, if that answer wrote one.
pub fn written_in(
    conn: &Read,
    annotation_id: i64,
) -> Result<Option<(i64, Option<RefutationState>)>> {
    Ok(conn
        .prepare_cached("SELECT id, refutation_state FROM claims WHERE written_in = ?1")?
        .query_row([annotation_id], |r| {
            let state: Option<String> = r.get(1)?;
            Ok((
                r.get(0)?,
                state.as_deref().and_then(RefutationState::from_db),
            ))
        })
        .optional()?)
}

pub fn set_refutation_state(
    conn: &crate::Tx<'_>,
    claim_id: i64,
    state: RefutationState,
) -> Result<()> {
    conn.prepare_cached(
        "UPDATE claims SET refutation_state = ?1 WHERE id = ?2 AND origin = 'written'",
    )?
    .execute(params![state.as_str(), claim_id])?;
    Ok(())
}

/// How many written refutations are in each state.
pub fn refutation_states(conn: &Read) -> Result<Vec<(RefutationState, u64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT refutation_state, count(*) FROM claims WHERE refutation_state IS NOT NULL GROUP BY refutation_state",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (state, n) = row?;
        if let Some(state) = RefutationState::from_db(&state) {
            out.push((state, n as u64));
        }
    }
    Ok(out)
}

/// Ties a written claim to its parent's documents.
pub fn copy_documents(conn: &crate::Tx<'_>, from: i64, to: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO claim_documents (claim_id, document_id) SELECT ?1, document_id FROM claim_documents WHERE claim_id = ?2",
    )?
    .execute(params![to, from])?;
    Ok(())
}

/// Claims that refute no other claim, in import order.
/// Every claim's text, label and whether it is a refutation, in import order (what the
/// report's tables count).
pub(crate) fn texts(conn: &Read) -> Result<Vec<(String, Option<String>, bool)>> {
    let mut stmt =
        conn.prepare("SELECT text, label, parent_id IS NOT NULL FROM claims ORDER BY id")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Every claim that refutes another, by parent then in import order (as `children`
/// lists each parent's).
pub(crate) fn all_children(conn: &Read) -> Result<Vec<ClaimRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM claims WHERE parent_id IS NOT NULL ORDER BY parent_id, id"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

pub(crate) fn roots(conn: &Read) -> Result<Vec<ClaimRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM claims WHERE parent_id IS NULL ORDER BY id"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Where a claim's open tasks stand, for filtering the list of claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Any,
    /// No open task.
    NoTasks,
    /// Some open task still wants answers.
    Open,
    /// Every open task has all its answers.
    Complete,
}

/// One line of the list of claims: its tasks' answers counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedClaim {
    pub id: i64,
    pub ext_id: String,
    pub text: String,
    pub is_refutation: bool,
    pub tasks: u64,
    /// Counted answers given (up to each task's overlap) and wanted, over open tasks.
    pub answered: u64,
    pub wanted: u64,
}

/// Claims in import order whose own id or text contains `words` (any case), or whose
/// number `words` is ("#1234"), in the standing asked, `limit` from `offset`; with how many match in all.
pub fn list(
    conn: &Read,
    words: Option<&str>,
    standing: Standing,
    offset: u64,
    limit: u64,
) -> Result<(u64, Vec<ListedClaim>)> {
    let pattern = words.map(|w| {
        let escaped = w
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("%{escaped}%")
    });
    // "#1234" names a claim by its number (`factdesk_core::claim::number_in`).
    let number = words.and_then(factdesk_core::claim::number_in);
    let standing = match standing {
        Standing::Any => "any",
        Standing::NoTasks => "none",
        Standing::Open => "open",
        Standing::Complete => "complete",
    };
    // The casts tell PostgreSQL what a NULL pattern or number is.
    let matching = "SELECT c.id, c.ext_id, c.text, c.parent_id IS NOT NULL AS refutation,
               count(t.id) AS tasks, coalesce(sum(CASE WHEN t.answered < t.overlap THEN t.answered ELSE t.overlap END), 0) AS answered,
               coalesce(sum(t.overlap), 0) AS wanted
             FROM claims c LEFT JOIN tasks t ON t.claim_id = c.id AND t.closed_at IS NULL
             WHERE CAST(?1 AS TEXT) IS NULL OR c.ext_id LIKE ?1 ESCAPE '\\' OR c.text LIKE ?1 ESCAPE '\\'
                OR c.id = CAST(?3 AS BIGINT)
             GROUP BY c.id";
    let standing_is = "?2 = 'any' OR (?2 = 'none' AND tasks = 0)
                 OR (?2 = 'open' AND answered < wanted)
                 OR (?2 = 'complete' AND tasks > 0 AND answered >= wanted)";
    // PostgreSQL names no output column in HAVING, and wants a subquery named.
    let matching = match conn.engine() {
        crate::Engine::Sqlite => format!("{matching} HAVING {standing_is}"),
        crate::Engine::Postgres => {
            format!("SELECT * FROM ({matching}) AS listed WHERE {standing_is}")
        }
    };
    let order = match conn.engine() {
        crate::Engine::Sqlite => "c.id",
        crate::Engine::Postgres => "id",
    };
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM ({matching}) AS matching"))?
        .query_row(params![pattern, standing, number], |r| r.get(0))?;
    let mut stmt =
        conn.prepare_cached(&format!("{matching} ORDER BY {order} LIMIT ?4 OFFSET ?5"))?;
    let rows = stmt.query_map(
        params![
            pattern,
            standing,
            number,
            i64::try_from(limit).unwrap_or(i64::MAX),
            i64::try_from(offset).unwrap_or(i64::MAX)
        ],
        |r| {
            Ok(ListedClaim {
                id: r.get(0)?,
                ext_id: r.get(1)?,
                text: r.get(2)?,
                is_refutation: r.get(3)?,
                tasks: r.get::<_, i64>(4)? as u64,
                answered: r.get::<_, i64>(5)? as u64,
                wanted: r.get::<_, i64>(6)? as u64,
            })
        },
    )?;
    Ok((total as u64, rows.collect::<crate::db::Result<_>>()?))
}
