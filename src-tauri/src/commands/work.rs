//! Who is working, and the annotation work itself: items, answers, passages, checks.

use crate::state::AppState;
use factdesk_api::annotate::{Ack, Answer, Check, Item, KindPace, Next, Passage};
use factdesk_api::annotators::{Annotator, Person, Role};
use factdesk_api::claim_view::{ClaimPage, ClaimStanding, ClaimView};
use factdesk_api::dto::{NoTask, SearchHit};
use factdesk_api::tasks::{TaskKind, TasksReport};
use factdesk_api::Result;
use tauri::State;

/// Everyone on the project, for the "who is working" screen: names and roles only.
#[tauri::command]
pub fn people(state: State<'_, AppState>) -> Result<Vec<Person>> {
    state.with_work(|w| w.people())
}

/// Chooses who is working.
#[tauri::command]
pub fn sign_in(state: State<'_, AppState>, name: String) -> Result<Person> {
    let (person, actor) = state.with_work(|w| Ok((w.person(&name)?, w.actor(&name)?)))?;
    state.set_user(Some(actor));
    Ok(person)
}

/// Adds a person: anyone may add the first (a lead); after that only a lead.
#[tauri::command]
pub fn add_person(state: State<'_, AppState>, name: String, role: Role) -> Result<Person> {
    let by = state.user().ok();
    state.with_project(|p| p.add_person(by.as_ref(), &name, role))
}

/// Annotators with their trick record; for leads.
#[tauri::command]
pub fn annotators(state: State<'_, AppState>) -> Result<Vec<Annotator>> {
    state.as_user(|p, user| p.annotators(user))
}

#[tauri::command]
pub fn create_tasks(
    state: State<'_, AppState>,
    kind: TaskKind,
    overlap: Option<u32>,
) -> Result<TasksReport> {
    state.as_user(|p, user| p.create_tasks(user, kind, overlap))
}

/// Leads only: how many claims got no task of each kind, and why.
#[tauri::command]
pub fn claims_without_tasks(state: State<'_, AppState>) -> Result<Vec<NoTask>> {
    state.as_user(|p, user| p.claims_without_tasks(user))
}

#[tauri::command]
pub fn next_item(state: State<'_, AppState>, kind: TaskKind) -> Result<Next> {
    state.as_worker(|w, user| w.next_item(user, kind))
}

/// The person's progress on every kind; reserves nothing.
#[tauri::command]
pub fn paces(state: State<'_, AppState>) -> Result<Vec<KindPace>> {
    state.as_worker(|w, user| w.paces(user))
}

#[tauri::command]
pub fn previous_item(
    state: State<'_, AppState>,
    kind: TaskKind,
    current: Option<i64>,
) -> Result<Option<Item>> {
    state.as_worker(|w, user| w.previous_item(user, kind, current))
}

#[tauri::command]
pub fn submit_answer(state: State<'_, AppState>, answer: Answer) -> Result<Ack> {
    state.as_worker(|w, user| w.submit(user, &answer))
}

#[tauri::command]
pub fn passage(state: State<'_, AppState>, task_id: i64, option_id: String) -> Result<Passage> {
    state.as_worker(|w, user| w.passage(user, task_id, &option_id))
}

#[tauri::command]
pub fn check_refutation(
    state: State<'_, AppState>,
    task_id: i64,
    text: String,
) -> Result<Vec<Check>> {
    state.as_user(|p, user| p.check_refutation(user, task_id, &text))
}

#[tauri::command]
pub fn search(state: State<'_, AppState>, query: String) -> Result<Vec<SearchHit>> {
    state.as_user(|p, user| p.search(user, &query, 50))
}

/// Releases the item the person holds (a skip); true when there was one to release.
#[tauri::command]
pub fn skip_item(state: State<'_, AppState>, task_id: i64) -> Result<bool> {
    state.as_worker(|w, user| w.skip_item(user, task_id))
}

/// A claim as the person may see it: a lead everything, an annotator their own answers.
#[tauri::command]
pub fn claim_view(state: State<'_, AppState>, id: i64) -> Result<ClaimView> {
    state.as_user(|p, user| p.claim_view(user, id))
}

/// Leads only: the claims matching `words` in a standing, a page at a time.
#[tauri::command]
pub fn claims_list(
    state: State<'_, AppState>,
    words: Option<String>,
    standing: ClaimStanding,
    offset: u64,
    limit: u64,
) -> Result<ClaimPage> {
    state.as_user(|p, user| p.claims_list(user, words.as_deref(), standing, offset, limit))
}
