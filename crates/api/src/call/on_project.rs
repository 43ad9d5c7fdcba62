//! Every operation on a project file, for the person chosen (or no one yet): the
//! [`Host`] the desktop app and the team server share.

use super::{nobody, Host};
use crate::agreement::AgreementRequest;
use crate::agreement::StudyAgreement;
use crate::annotate::{Ack, Answer, Check, Item, KindPace, Next, Passage};
use crate::annotators::{Annotator, Person, Role};
use crate::answers::AnswersFormat;
use crate::claim_view::{ClaimPage, ClaimStanding, ClaimView};
use crate::dashboard::{Dashboard, DashboardState};
use crate::disagreement::DecisionNote;
use crate::download::Download;
use crate::dto::{NoTask, Overview, SearchHit};
use crate::gold::{ExportFormat, ExportPreview, GoldRequest, Outcome, QueueItem, Ruling};
use crate::opaque::TaskIds;
use crate::packs::{PackRequest, PackSummary};
use crate::review::PendingReview;
use crate::settings::Settings;
use crate::study::{DeletedStudy, StudyRequest};
use crate::tasks::{TaskKind, TasksReport};
use crate::{Actor, Lead, Project, Result};

/// A project and the person its operations run for.
#[derive(Debug)]
pub struct OnProject<'a> {
    project: &'a mut Project,
    actor: Option<&'a Actor>,
}

impl<'a> OnProject<'a> {
    pub fn new(project: &'a mut Project, actor: Option<&'a Actor>) -> OnProject<'a> {
        OnProject { project, actor }
    }

    /// The project and the person working; an operation that acts for someone needs one.
    fn user(&mut self) -> Result<(&mut Project, &'a Actor)> {
        let actor = self.actor.ok_or_else(nobody)?;
        Ok((&mut *self.project, actor))
    }

    /// The project and the proof that the person working is its lead, from the gate;
    /// `what` completes "… may not …".
    fn lead(&mut self, what: &str) -> Result<(&mut Project, Lead)> {
        let actor = self.actor.ok_or_else(nobody)?;
        let lead = self.project.as_lead(actor, what)?;
        Ok((&mut *self.project, lead))
    }
}

/// The id the person knows task `row` by: an annotator's own (`opaque::TaskIds`), a
/// lead's the row's.
fn shown(ids: Option<&TaskIds>, row: i64) -> i64 {
    ids.map_or(row, |ids| ids.shown(row))
}

/// The task row behind an id the person sent.
fn row(ids: Option<&TaskIds>, id: i64) -> i64 {
    ids.map_or(id, |ids| ids.row(id))
}

/// An error as the person may read it: naming the task by the id they know it by.
fn said(ids: Option<&TaskIds>, e: crate::Error, task: i64) -> crate::Error {
    match ids {
        Some(ids) => ids.error(e, task),
        None => e,
    }
}

/// The person a pack's actor is: a pack asks for no password.
pub(super) fn pack_person(actor: &Actor) -> Person {
    Person {
        name: actor.name().to_string(),
        role: actor.role(),
        has_password: false,
    }
}

impl Host for OnProject<'_> {
    // Only these three run with no one chosen: the project's face, and its first person.
    fn overview(&mut self) -> Result<Overview> {
        self.project.overview(self.actor)
    }

    fn settings(&mut self) -> Result<Settings> {
        self.project.settings()
    }

    fn add_person(&mut self, name: String, role: Role) -> Result<Person> {
        self.project.add_person(self.actor, &name, role)
    }

    fn me(&mut self) -> Result<Person> {
        // From the project: whether they have a password is the lead's home's notice.
        let name = self.user()?.1.name().to_string();
        self.project.person(&name)
    }

    fn annotators(&mut self) -> Result<Vec<Annotator>> {
        let (p, lead) = self.lead("see the annotators' records")?;
        p.annotators(&lead)
    }

    fn create_tasks(&mut self, kind: TaskKind, overlap: Option<u32>) -> Result<TasksReport> {
        let (p, lead) = self.lead("create tasks")?;
        p.create_tasks(&lead, kind, overlap)
    }

    fn claims_without_tasks(&mut self) -> Result<Vec<NoTask>> {
        let (p, lead) = self.lead("see the claims without tasks")?;
        p.claims_without_tasks(&lead)
    }

    fn next_item(&mut self, kind: TaskKind) -> Result<Next> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        let mut next = p.next_item(user, kind)?;
        if let Some(item) = next.item.as_mut() {
            item.task_id = shown(ids.as_ref(), item.task_id);
        }
        Ok(next)
    }

    fn paces(&mut self) -> Result<Vec<KindPace>> {
        let (p, user) = self.user()?;
        p.paces(user)
    }

    fn previous_item(&mut self, kind: TaskKind, current: Option<i64>) -> Result<Option<Item>> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        let current = current.map(|id| row(ids.as_ref(), id));
        let mut item = p.previous_item(user, kind, current)?;
        if let Some(item) = item.as_mut() {
            item.task_id = shown(ids.as_ref(), item.task_id);
        }
        Ok(item)
    }

    fn submit_answer(&mut self, mut answer: Answer) -> Result<Ack> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        answer.task_id = row(ids.as_ref(), answer.task_id);
        let task = answer.task_id;
        let mut ack = p
            .submit(user, &answer)
            .map_err(|e| said(ids.as_ref(), e, task))?;
        ack.task_id = shown(ids.as_ref(), ack.task_id);
        Ok(ack)
    }

    fn passage(&mut self, task_id: i64, option_id: String) -> Result<Passage> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        let task = row(ids.as_ref(), task_id);
        p.passage(user, task, &option_id)
            .map_err(|e| said(ids.as_ref(), e, task))
    }

    fn check_refutation(&mut self, task_id: i64, text: String) -> Result<Vec<Check>> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        let task = row(ids.as_ref(), task_id);
        p.check_refutation(user, task, &text)
            .map_err(|e| said(ids.as_ref(), e, task))
    }

    fn search(&mut self, query: String) -> Result<Vec<SearchHit>> {
        let (p, user) = self.user()?;
        p.search(user, &query, crate::search::HITS_SHOWN)
    }

    fn skip_item(&mut self, task_id: i64) -> Result<bool> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        let task = row(ids.as_ref(), task_id);
        p.skip_item(user, task)
            .map_err(|e| said(ids.as_ref(), e, task))
    }

    fn report_problem(&mut self, task_id: i64, text: String) -> Result<()> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        let task = row(ids.as_ref(), task_id);
        p.report_problem(user, task, &text)
            .map_err(|e| said(ids.as_ref(), e, task))
    }

    fn problem_reports(&mut self) -> Result<Vec<crate::problems::ProblemReport>> {
        let (p, lead) = self.lead("read problem reports")?;
        p.problem_reports(&lead)
    }

    fn mark_problem_seen(&mut self, id: i64) -> Result<()> {
        let (p, lead) = self.lead("mark problem reports seen")?;
        p.mark_problem_seen(&lead, id)
    }

    fn claim_view(&mut self, claim: String) -> Result<ClaimView> {
        let (p, user) = self.user()?;
        let ids = p.task_ids(user)?;
        let mut view = p.claim_view(user, &claim)?;
        for task in &mut view.tasks {
            task.task_id = shown(ids.as_ref(), task.task_id);
        }
        Ok(view)
    }

    fn claims_list(
        &mut self,
        words: Option<String>,
        standing: ClaimStanding,
        offset: u64,
        limit: u64,
    ) -> Result<ClaimPage> {
        let (p, lead) = self.lead("list the claims")?;
        p.claims_list(&lead, words.as_deref(), standing, offset, limit)
    }

    fn create_study(&mut self, request: StudyRequest) -> Result<Vec<StudyAgreement>> {
        let (p, lead) = self.lead("draw studies")?;
        p.create_study(&lead, &request)?;
        p.study_agreements(&lead, None, &AgreementRequest::default())
    }

    fn delete_study(&mut self, id: i64) -> Result<DeletedStudy> {
        let (p, lead) = self.lead("delete studies")?;
        p.delete_study(&lead, id)
    }

    fn dashboard(&mut self, intervals: bool) -> Result<Dashboard> {
        let (p, lead) = self.lead("watch the dashboard")?;
        if intervals {
            return p.dashboard(&lead, &AgreementRequest::default());
        }
        let mut state = DashboardState::new();
        state.refresh(p, &lead)?;
        Ok(state.snapshot(p.clock.now_ms()))
    }

    fn adjudication_queue(&mut self, request: GoldRequest) -> Result<Vec<QueueItem>> {
        let (p, lead) = self.lead("see the adjudication queue")?;
        p.adjudication_queue(&lead, &request)
    }

    fn decide(
        &mut self,
        task_id: i64,
        seen: Option<i64>,
        ruling: Ruling,
        reason: Option<String>,
        category: Option<String>,
    ) -> Result<Outcome> {
        let (p, lead) = self.lead("decide tasks")?;
        let note = DecisionNote { category, reason };
        p.decide_seen(&lead, task_id, seen, ruling, &note)
    }

    fn undo_decision(&mut self, task_id: i64, seen: i64, reason: Option<String>) -> Result<()> {
        let (p, lead) = self.lead("undo decisions")?;
        p.undo_decision_seen(&lead, task_id, seen, reason.as_deref())
    }

    fn sentence_passage(&mut self, sentence_id: i64) -> Result<Passage> {
        let (p, lead) = self.lead("read any sentence's passage")?;
        p.sentence_passage(&lead, sentence_id)
    }

    fn export_preview(&mut self, request: GoldRequest) -> Result<ExportPreview> {
        let (p, lead) = self.lead("preview the gold export")?;
        p.export_preview(&lead, &request)
    }

    fn pending_reviews(&mut self) -> Result<Vec<PendingReview>> {
        let (p, lead) = self.lead("review refutations")?;
        p.pending_reviews(&lead)
    }

    fn review_refutation(
        &mut self,
        annotation_id: i64,
        accepted: bool,
        note: Option<String>,
    ) -> Result<()> {
        let (p, lead) = self.lead("review refutations")?;
        p.review_pending(&lead, annotation_id, accepted, note.as_deref())
    }

    fn set_password(&mut self, name: String, password: String) -> Result<()> {
        let (p, lead) = self.lead("set passwords")?;
        p.set_password(&lead, &name, &password)
    }

    fn save_settings(
        &mut self,
        settings: Settings,
        based_on: Option<Box<Settings>>,
    ) -> Result<Settings> {
        let (p, lead) = self.lead("change the project's settings")?;
        p.set_settings_based_on(&lead, &settings, based_on.as_deref())?;
        p.settings()
    }

    fn flag_decision(&mut self, name: String, include: Option<bool>) -> Result<Annotator> {
        let (p, lead) = self.lead("decide on flagged annotators")?;
        p.set_flag_override(&lead, &name, include)
    }

    fn packs(&mut self) -> Result<Vec<PackSummary>> {
        let (p, lead) = self.lead("list packs")?;
        p.packs(&lead)
    }

    fn export_gold(&mut self, request: GoldRequest, format: ExportFormat) -> Result<Download> {
        let (p, lead) = self.lead("export gold data")?;
        p.gold_download(&lead, &request, format)
    }

    fn export_answers(&mut self, format: AnswersFormat) -> Result<Download> {
        let (p, lead) = self.lead("export the raw answers")?;
        p.answers_download(&lead, format)
    }

    fn issue_pack(&mut self, request: PackRequest) -> Result<Download> {
        let (p, lead) = self.lead("issue packs")?;
        p.pack_download(&lead, &request)
    }
}
