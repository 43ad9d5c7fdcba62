//! Who is working (the work itself is the api's operations, [`super::operations`]).

use crate::state::AppState;
use factdesk_api::annotators::Person;
use factdesk_api::{Error, ErrorCode, Result};
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

/// Chooses who is working. On a server that is whoever signed in, and no one else; on a
/// project file, someone with a password gives it (`password`).
#[tauri::command(async)]
pub fn sign_in(
    state: State<'_, AppState>,
    name: String,
    password: Option<String>,
) -> Result<Person> {
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
    let (person, actor) = state.with_work(|w| {
        let actor = w.choose_person(&name, password.as_deref())?;
        Ok((w.person(&name)?, actor))
    })?;
    state.set_user(Some(actor));
    Ok(person)
}
