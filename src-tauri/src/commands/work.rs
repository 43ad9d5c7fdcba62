//! Who is working, and the annotation work itself: items, answers, passages, checks.
//! Each is one of the api's operations ([`Call`]), run where the work is.

use crate::state::AppState;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::{Person, Role};
use factdesk_api::call::Call;
use factdesk_api::claim_view::ClaimStanding;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{Error, ErrorCode, Result};
use serde_json::Value;
use tauri::State;

/// Everyone on the project, for the "who is working" screen: names and roles only. On a
/// server, only the person signed in: the token says who is working.
#[tauri::command(async)]
pub fn people(state: State<'_, AppState>) -> Result<Vec<Person>> {
    match state.remote() {
        Some(remote) => Ok(vec![remote.person]),
        None => state.with_work(|w| w.people()),
    }
}

/// Chooses who is working. On a server that is whoever signed in, and no one else.
#[tauri::command(async)]
pub fn sign_in(state: State<'_, AppState>, name: String) -> Result<Person> {
    if let Some(remote) = state.remote() {
        if remote.person.name == name {
            return Ok(remote.person);
        }
        return Err(Error::new(
            ErrorCode::Forbidden,
            format!(
                "on {} you work as {}, who signed in; connect again to work as someone else",
                remote.url, remote.person.name
            ),
        ));
    }
    let (person, actor) = state.with_work(|w| Ok((w.person(&name)?, w.actor(&name)?)))?;
    state.set_user(Some(actor));
    Ok(person)
}

/// Adds a person: anyone may add the first (a lead); after that only a lead.
#[tauri::command(async)]
pub fn add_person(state: State<'_, AppState>, name: String, role: Role) -> Result<Value> {
    state.call(Call::AddPerson { name, role })
}

/// Annotators with their trick record; for leads.
#[tauri::command(async)]
pub fn annotators(state: State<'_, AppState>) -> Result<Value> {
    state.call(Call::Annotators)
}

#[tauri::command(async)]
pub fn create_tasks(
    state: State<'_, AppState>,
    kind: TaskKind,
    overlap: Option<u32>,
) -> Result<Value> {
    state.call(Call::CreateTasks { kind, overlap })
}

/// Leads only: how many claims got no task of each kind, and why.
#[tauri::command(async)]
pub fn claims_without_tasks(state: State<'_, AppState>) -> Result<Value> {
    state.call(Call::ClaimsWithoutTasks)
}

#[tauri::command(async)]
pub fn next_item(state: State<'_, AppState>, kind: TaskKind) -> Result<Value> {
    state.call(Call::NextItem { kind })
}

/// The person's progress on every kind; reserves nothing.
#[tauri::command(async)]
pub fn paces(state: State<'_, AppState>) -> Result<Value> {
    state.call(Call::Paces)
}

#[tauri::command(async)]
pub fn previous_item(
    state: State<'_, AppState>,
    kind: TaskKind,
    current: Option<i64>,
) -> Result<Value> {
    state.call(Call::PreviousItem { kind, current })
}

#[tauri::command(async)]
pub fn submit_answer(state: State<'_, AppState>, answer: Answer) -> Result<Value> {
    state.call(Call::SubmitAnswer { answer })
}

#[tauri::command(async)]
pub fn passage(state: State<'_, AppState>, task_id: i64, option_id: String) -> Result<Value> {
    state.call(Call::Passage { task_id, option_id })
}

#[tauri::command(async)]
pub fn check_refutation(state: State<'_, AppState>, task_id: i64, text: String) -> Result<Value> {
    state.call(Call::CheckRefutation { task_id, text })
}

#[tauri::command(async)]
pub fn search(state: State<'_, AppState>, query: String) -> Result<Value> {
    state.call(Call::Search { query })
}

/// Releases the item the person holds (a skip); true when there was one to release.
#[tauri::command(async)]
pub fn skip_item(state: State<'_, AppState>, task_id: i64) -> Result<Value> {
    state.call(Call::SkipItem { task_id })
}

/// A claim as the person may see it: a lead everything, an annotator their own answers.
#[tauri::command(async)]
pub fn claim_view(state: State<'_, AppState>, id: i64) -> Result<Value> {
    state.call(Call::ClaimView { id })
}

/// Leads only: the claims matching `words` in a standing, a page at a time.
#[tauri::command(async)]
pub fn claims_list(
    state: State<'_, AppState>,
    words: Option<String>,
    standing: ClaimStanding,
    offset: u64,
    limit: u64,
) -> Result<Value> {
    state.call(Call::ClaimsList {
        words,
        standing,
        offset,
        limit,
    })
}
