//! Who works on a project, their roles, and the trick-failure flags the lead watches.

use crate::actor::Actor;
use crate::settings::Settings;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::chance::wilson_lower;
use factdesk_store::annotators::{self, AnnotatorRow};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Lives in core, below the store, which reads it from the project once.
pub use factdesk_core::role::{Role, UnknownRole};

/// The longest name a person may have, in characters.
pub const MAX_NAME_CHARS: usize = 100;

pub(crate) use crate::actor::name_of;

/// A new person's name, checked: not empty, no control characters (a newline or tab
/// would break every list and file that shows it), no comma, at most [`MAX_NAME_CHARS`].
pub(crate) fn new_name(given: &str) -> Result<&str> {
    let name = name_of(given);
    if name.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "an annotator needs a name",
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("the name {name:?} has a control character (a newline, a tab…): use letters, digits, spaces and punctuation"),
        ));
    }
    // Lists of people on the command line are comma-separated (`study --group ana,ben`):
    // a comma inside a name would make that person impossible to name there.
    if name.contains(',') {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("the name {name:?} has a comma, which separates names in lists such as `study --group ana,ben`: use another character"),
        ));
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("a name is at most {MAX_NAME_CHARS} characters; this one has {chars}"),
        ));
    }
    Ok(name)
}

/// A person on the project, as anyone may see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Person {
    pub name: String,
    pub role: Role,
    /// Whether choosing this person asks for a password. "Who is working?" gives a lead
    /// without one no digit key, and their home says anyone here can open it (issue 36).
    pub has_password: bool,
}

/// An annotator as the lead sees them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Annotator {
    pub id: i64,
    pub name: String,
    pub role: Role,
    /// Items answered that held a trick: evidence items (each shows a trick sentence)
    /// and a design's control items.
    pub tricks_seen: u64,
    pub tricks_failed: u64,
    /// Failed share of tricks seen; null before any.
    pub trick_failure_rate: Option<f64>,
    /// The Wilson 95% interval of that share, [low, high]; null before any trick.
    pub trick_failure_ci95: Option<(f64, f64)>,
    /// After enough tricks, the interval's low end is above the threshold: answers leave
    /// aggregation unless the lead includes them.
    pub flagged: bool,
    /// The lead's decision: "include" or "exclude"; null when none.
    pub flag_override: Option<String>,
    /// Whether this annotator's answers count in agreement and aggregation.
    pub counted: bool,
}

/// The two-sided 95% normal quantile of the trick-failure interval.
const Z95: f64 = 1.959_964;

/// The Wilson 95% interval of `failed` of `seen`; none before any trick.
pub(crate) fn failure_interval(seen: u64, failed: u64) -> Option<(f64, f64)> {
    let failed = failed.min(seen);
    (seen > 0).then(|| {
        (
            wilson_lower(failed, seen, Z95),
            // The high end is the low end of the passes, seen from the other side.
            1.0 - wilson_lower(seen - failed, seen, Z95),
        )
    })
}

/// Whether an annotator's trick record puts them over the project's threshold: after
/// enough tricks, even the low end of the interval of their failure rate is above it. A
/// plain rate flagged a person for one trick in three items; COVID-Fact rejected entries
/// one by one, and leaving out all of someone's work needs evidence that holds up.
fn is_flagged(seen: u64, failed: u64, settings: &Settings) -> bool {
    seen >= u64::from(settings.trick_min_seen)
        && failure_interval(seen, failed)
            .is_some_and(|(low, _)| low > settings.trick_flag_threshold)
}

/// Whether a person's answers count: the lead's word, else not once flagged. New careful
/// answers that bring the failure rate back under the threshold do not lift a flag by
/// themselves (else a careless annotator could dilute their record); a change of the
/// rule (`trick_flag_threshold`, `trick_min_seen`) re-decides every flag from the record
/// (`fresh`).
pub(crate) fn counts(row: &AnnotatorRow, settings: &Settings, fresh: bool) -> bool {
    match row.flag_override.as_deref() {
        Some("include") => true,
        Some("exclude") => false,
        _ => (fresh || row.counted) && !is_flagged(row.tricks_seen, row.tricks_failed, settings),
    }
}

/// Brings a person's stored `counted` in line with their record, the lead's word and the
/// settings, inside the caller's transaction; when it changes, every task they answered is
/// recounted, so a flagged annotator's items reopen and come back if they count again.
/// `fresh`: the flag rule changed, and the flag is decided anew from the record. True
/// when it changed.
pub(crate) fn sync_counted(
    conn: &factdesk_store::Tx<'_>,
    annotator_id: i64,
    settings: &Settings,
    fresh: bool,
) -> Result<bool> {
    let Some(row) = annotators::get(conn, annotator_id)? else {
        return Ok(false);
    };
    let now_counts = counts(&row, settings, fresh);
    if now_counts == row.counted {
        return Ok(false);
    }
    annotators::set_counted(conn, annotator_id, now_counts)?;
    factdesk_store::tasks::recount_for(conn, annotator_id)?;
    Ok(true)
}

pub(crate) fn describe(row: AnnotatorRow, settings: &Settings) -> Annotator {
    let (seen, failed) = (row.tricks_seen, row.tricks_failed);
    let rate = (seen > 0).then(|| failed as f64 / seen as f64);
    // Flagged by the record now, or earlier and not yet decided on by the lead.
    let flagged =
        is_flagged(seen, failed, settings) || (!row.counted && row.flag_override.is_none());
    let counted = counts(&row, settings, false);
    Annotator {
        id: row.id,
        name: row.name,
        role: row.role,
        tricks_seen: seen,
        tricks_failed: failed,
        trick_failure_rate: rate,
        trick_failure_ci95: failure_interval(seen, failed),
        flagged,
        flag_override: row.flag_override,
        counted,
    }
}

impl Annotator {
    /// Whether this person's answers count under a request's `include_flagged`: it
    /// brings back people the flag left out, never someone the lead excluded by name
    /// (`flag NAME --exclude`).
    pub(crate) fn counts_with(&self, include_flagged: bool) -> bool {
        self.counted || (include_flagged && self.flag_override.as_deref() != Some("exclude"))
    }
}

impl Project {
    /// Adds a person with `role`; people management is a lead's.
    pub fn add_annotator(&mut self, by: &Lead, name: &str, role: Role) -> Result<Annotator> {
        self.acting_lead(by)?;
        let name = self.insert_person(name, role)?;
        self.find_annotator(&name)
    }

    /// Stores a new person; returns their name as stored.
    fn insert_person(&mut self, name: &str, role: Role) -> Result<String> {
        self.store.require_writable()?;
        let name = new_name(name)?;
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        if annotators::insert(&tx, name, role, now)?.is_none() {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("there is already an annotator called {name:?}"),
            ));
        }
        tx.commit()?;
        Ok(name.to_string())
    }

    /// Annotators with their trick record, for a lead.
    pub fn annotators(&self, by: &Lead) -> Result<Vec<Annotator>> {
        self.acting_lead(by)?;
        self.all_annotators()
    }

    pub(crate) fn all_annotators(&self) -> Result<Vec<Annotator>> {
        let settings = self.settings()?;
        Ok(annotators::list(self.store.read())?
            .into_iter()
            .map(|row| describe(row, &settings))
            .collect())
    }

    /// One annotator with their trick record, for a lead.
    pub fn annotator(&self, by: &Lead, name: &str) -> Result<Annotator> {
        self.acting_lead(by)?;
        self.find_annotator(name)
    }

    pub(crate) fn find_annotator(&self, name: &str) -> Result<Annotator> {
        let name = name_of(name);
        self.all_annotators()?
            .into_iter()
            .find(|a| a.name == name)
            .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("no annotator called {name:?}; add one with `factdesk annotators P add {name}`")))
    }

    /// The lead's decision on a flagged annotator: include or exclude their answers, or
    /// `None` to follow the flag again.
    pub fn set_flag_override(
        &mut self,
        by: &Lead,
        name: &str,
        include: Option<bool>,
    ) -> Result<Annotator> {
        self.acting_lead(by)?;
        self.store.require_writable()?;
        let a = self.find_annotator(name)?;
        let settings = self.settings()?;
        let value = include.map(|i| if i { "include" } else { "exclude" });
        let tx = self.store.transaction()?;
        annotators::set_flag_override(&tx, a.id, value)?;
        sync_counted(&tx, a.id, &settings, false)?;
        tx.commit()?;
        self.find_annotator(name)
    }

    /// Everyone on the project: names and roles, nothing of their work (the "who is
    /// working" screen shows it before anyone is chosen).
    pub fn people(&self) -> Result<Vec<Person>> {
        let protected = factdesk_store::sign_in::with_password(self.store.read())?;
        Ok(annotators::list(self.store.read())?
            .into_iter()
            .map(|r| Person {
                has_password: protected.binary_search(&r.id).is_ok(),
                role: r.role,
                name: r.name,
            })
            .collect())
    }

    pub fn person(&self, name: &str) -> Result<Person> {
        let name = name_of(name);
        self.people()?
            .into_iter()
            .find(|p| p.name == name)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::NotFound,
                    format!("no one called {name:?} works on this project"),
                )
            })
    }

    /// Adds a person on behalf of `by`: the first person may be added by anyone (nobody
    /// can be signed in yet) and is made a lead; after that only a lead adds people.
    pub fn add_person(&mut self, by: Option<&Actor>, name: &str, role: Role) -> Result<Person> {
        let first = self.people()?.is_empty();
        let role = if first { Role::Lead } else { role };
        if !first {
            match by {
                Some(by) => self.acting_lead(&self.as_lead(by, "add people")?)?,
                None => {
                    return Err(Error::new(
                        ErrorCode::Forbidden,
                        "choose who is working first: only a lead adds people",
                    ))
                }
            }
        }
        let name = self.insert_person(name, role)?;
        let a = self.find_annotator(&name)?;
        Ok(Person {
            name: a.name,
            role: a.role,
            has_password: false,
        })
    }

    pub(crate) fn annotator_row(&self, name: &str) -> Result<AnnotatorRow> {
        let name = name_of(name);
        annotators::by_name(self.store.read(), name)?
            .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("no annotator called {name:?}")))
    }
}
