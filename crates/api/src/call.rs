//! The app's operations as data: each screen's call into the api, named once, so the
//! desktop app runs it on its own project (or pack) and the team server runs the very
//! same function for the person a bearer token names. A front end only chooses where a
//! [`Call`] runs; the use case it reaches checks the role, as everywhere else.
//!
//! Only operations on the project itself are here, and no path ever crosses: a server
//! must never take a client's path. Exports come back as bytes ([`crate::download`]) for
//! the client to write on its own machine.

use crate::agreement::AgreementRequest;
use crate::annotate::Answer;
use crate::annotators::{Person, Role};
use crate::answers::AnswersFormat;
use crate::claim_view::ClaimStanding;
use crate::dashboard::DashboardState;
use crate::gold::{ExportFormat, GoldRequest};
use crate::packs::{PackRequest, Workplace};
use crate::settings::Settings;
use crate::study::StudyRequest;
use crate::tasks::TaskKind;
use crate::{Actor, Error, ErrorCode, Project, Result};
use serde::{Deserialize, Serialize};

/// One operation, as `{"op": "next_item", "args": {"kind": "evidence"}}` (`args` left out
/// when there are none). The fields are those of the app's commands of the same name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "op",
    content = "args",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum Call {
    /// The project's name and counts. On a server the project's path is left out: it is
    /// the server's business where it keeps it.
    Overview,
    /// Who the call runs for: name and role.
    Me,
    /// Adds a person (leads only, once the project has one).
    AddPerson {
        name: String,
        role: Role,
    },
    Annotators,
    CreateTasks {
        kind: TaskKind,
        overlap: Option<u32>,
    },
    ClaimsWithoutTasks,
    NextItem {
        kind: TaskKind,
    },
    Paces,
    PreviousItem {
        kind: TaskKind,
        current: Option<i64>,
    },
    SubmitAnswer {
        answer: Answer,
    },
    Passage {
        task_id: i64,
        option_id: String,
    },
    CheckRefutation {
        task_id: i64,
        text: String,
    },
    Search {
        query: String,
    },
    SkipItem {
        task_id: i64,
    },
    ClaimView {
        id: i64,
    },
    ClaimsList {
        words: Option<String>,
        standing: ClaimStanding,
        offset: u64,
        limit: u64,
    },
    /// Draws a re-annotation study; every study with its figures comes back.
    CreateStudy {
        request: StudyRequest,
    },
    /// The live dashboard as of now; with `intervals`, the bootstrap intervals too (a
    /// full pass over the answers, so a client asks for them less often).
    Dashboard {
        #[serde(default)]
        intervals: bool,
    },
    AdjudicationQueue {
        request: GoldRequest,
    },
    Decide {
        task_id: i64,
        seen: Option<i64>,
        take: Option<String>,
        answer: Option<serde_json::Value>,
        reason: Option<String>,
    },
    UndoDecision {
        task_id: i64,
        seen: i64,
        reason: Option<String>,
    },
    SentencePassage {
        sentence_id: i64,
    },
    ExportPreview {
        request: GoldRequest,
    },
    PendingReviews,
    ReviewRefutation {
        annotation_id: i64,
        accepted: bool,
        note: Option<String>,
    },
    /// The project's settings (on a server, a lead's).
    Settings,
    SaveSettings {
        settings: Settings,
    },
    FlagDecision {
        name: String,
        include: Option<bool>,
    },
    Packs,
    /// The gold export's files as bytes, for the client to write where its user chose.
    ExportGold {
        request: GoldRequest,
        format: ExportFormat,
    },
    /// The raw answers as one file's bytes.
    ExportAnswers {
        format: AnswersFormat,
    },
    /// Issues a pack for an annotator; the pack file's bytes come back.
    IssuePack {
        request: PackRequest,
    },
}

/// Every operation's name, as in `op` (for the server's document).
pub const OPS: &[&str] = &[
    "overview",
    "me",
    "add_person",
    "annotators",
    "create_tasks",
    "claims_without_tasks",
    "next_item",
    "paces",
    "previous_item",
    "submit_answer",
    "passage",
    "check_refutation",
    "search",
    "skip_item",
    "claim_view",
    "claims_list",
    "create_study",
    "dashboard",
    "adjudication_queue",
    "decide",
    "undo_decision",
    "sentence_passage",
    "export_preview",
    "pending_reviews",
    "review_refutation",
    "settings",
    "save_settings",
    "flag_decision",
    "packs",
    "export_gold",
    "export_answers",
    "issue_pack",
];

impl Call {
    /// Whether the call may change what the lead's dashboard shows (an answer, who
    /// counts), so a server tells the dashboards following it.
    pub fn moves_the_dashboard(&self) -> bool {
        matches!(self, Call::SubmitAnswer { .. } | Call::FlagDecision { .. })
    }

    /// The operation's name, as in `op`.
    pub fn name(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.get("op").and_then(|o| o.as_str()).map(str::to_string))
            .unwrap_or_default()
    }
}

fn json<T: Serialize>(value: T) -> Result<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| {
        Error::new(
            ErrorCode::Io,
            format!("cannot write the answer as JSON: {e}"),
        )
    })
}

fn nobody() -> Error {
    Error::new(ErrorCode::NotFound, "choose who is working first")
}

/// Runs `call` on `project` for `actor` (the team server: the token's person). The
/// response is the JSON of what the use case returned.
pub fn run(project: &mut Project, actor: &Actor, call: Call) -> Result<serde_json::Value> {
    match call {
        Call::Overview => {
            let mut overview = project.overview()?;
            overview.path = String::new();
            json(overview)
        }
        // Only the lead's settings screen reads them; over a network an annotator gets
        // nothing beyond their screens (the seed orders everyone's items).
        Call::Settings => {
            project.require_lead(actor, "read the project's settings")?;
            json(project.settings()?)
        }
        call => on_project(project, Some(actor), call),
    }
}

/// Runs `call` on the project or pack open in the app, for the person chosen there (none
/// yet: only what needs no one runs).
pub fn run_in(
    work: &mut Workplace,
    actor: Option<&Actor>,
    call: Call,
) -> Result<serde_json::Value> {
    let session = match work {
        Workplace::Project(p) => return on_project(p, actor, call),
        Workplace::Pack(session) => session,
    };
    let actor = actor.ok_or_else(nobody);
    match call {
        Call::Overview => json(session.overview()?),
        Call::Me => {
            let actor = actor?;
            json(Person {
                name: actor.name().to_string(),
                role: actor.role(),
            })
        }
        Call::NextItem { kind } => json(session.next_item(actor?, kind)?),
        Call::Paces => json(session.paces(actor?)?),
        Call::PreviousItem { kind, current } => json(session.previous_item(actor?, kind, current)?),
        Call::SubmitAnswer { answer } => json(session.submit(actor?, &answer)?),
        Call::Passage { task_id, option_id } => json(session.passage(actor?, task_id, &option_id)?),
        Call::SkipItem { task_id } => json(session.skip_item(actor?, task_id)?),
        // Everything else needs the lead's project: the workplace says so.
        _ => work.project().map(|_| serde_json::Value::Null),
    }
}

fn on_project(p: &mut Project, actor: Option<&Actor>, call: Call) -> Result<serde_json::Value> {
    // Only these run with no one chosen: the project's face, and its first person.
    match call {
        Call::Overview => return json(p.overview()?),
        Call::Settings => return json(p.settings()?),
        Call::AddPerson { name, role } => return json(p.add_person(actor, &name, role)?),
        _ => {}
    }
    let user = actor.ok_or_else(nobody)?;
    match call {
        Call::Overview | Call::Settings | Call::AddPerson { .. } => Ok(serde_json::Value::Null),
        Call::Me => json(Person {
            name: user.name().to_string(),
            role: user.role(),
        }),
        Call::Annotators => json(p.annotators(user)?),
        Call::CreateTasks { kind, overlap } => json(p.create_tasks(user, kind, overlap)?),
        Call::ClaimsWithoutTasks => json(p.claims_without_tasks(user)?),
        Call::NextItem { kind } => json(p.next_item(user, kind)?),
        Call::Paces => json(p.paces(user)?),
        Call::PreviousItem { kind, current } => json(p.previous_item(user, kind, current)?),
        Call::SubmitAnswer { answer } => json(p.submit(user, &answer)?),
        Call::Passage { task_id, option_id } => json(p.passage(user, task_id, &option_id)?),
        Call::CheckRefutation { task_id, text } => json(p.check_refutation(user, task_id, &text)?),
        Call::Search { query } => json(p.search(user, &query, 50)?),
        Call::SkipItem { task_id } => json(p.skip_item(user, task_id)?),
        Call::ClaimView { id } => json(p.claim_view(user, id)?),
        Call::ClaimsList {
            words,
            standing,
            offset,
            limit,
        } => json(p.claims_list(user, words.as_deref(), standing, offset, limit)?),
        Call::CreateStudy { request } => {
            p.create_study(user, &request)?;
            json(p.study_agreements(user, None, &AgreementRequest::default())?)
        }
        Call::Dashboard { intervals: true } => {
            json(p.dashboard(user, &AgreementRequest::default())?)
        }
        Call::Dashboard { intervals: false } => {
            let mut state = DashboardState::new();
            state.refresh(p, user)?;
            json(state.snapshot(p.clock.now_ms()))
        }
        Call::AdjudicationQueue { request } => json(p.adjudication_queue(user, &request)?),
        Call::Decide {
            task_id,
            seen,
            take,
            answer,
            reason,
        } => json(p.decide_seen(
            user,
            task_id,
            seen,
            take.as_deref(),
            answer,
            reason.as_deref(),
        )?),
        Call::UndoDecision {
            task_id,
            seen,
            reason,
        } => json(p.undo_decision_seen(user, task_id, seen, reason.as_deref())?),
        Call::SentencePassage { sentence_id } => json(p.sentence_passage(user, sentence_id)?),
        Call::ExportPreview { request } => json(p.export_preview(user, &request)?),
        Call::PendingReviews => json(p.pending_reviews(user)?),
        Call::ReviewRefutation {
            annotation_id,
            accepted,
            note,
        } => json(p.review_pending(user, annotation_id, accepted, note.as_deref())?),
        Call::SaveSettings { settings } => {
            p.set_settings(user, &settings)?;
            json(p.settings()?)
        }
        Call::FlagDecision { name, include } => json(p.set_flag_override(user, &name, include)?),
        Call::Packs => json(p.packs(user)?),
        Call::ExportGold { request, format } => json(p.gold_download(user, &request, format)?),
        Call::ExportAnswers { format } => json(p.answers_download(user, format)?),
        Call::IssuePack { request } => json(p.pack_download(user, &request)?),
    }
}
