//! The api's operations as Tauri commands, built from their one declaration
//! ([`factdesk_api::for_each_operation!`]): a `Local` operation runs where the work is
//! (the open file for the person chosen, or the team server for the one signed in), an
//! `Own` one through the shell's function of the same name and signature, and a `Remote`
//! one is no command at all. [`handler_list!`] lists every command for Tauri, these and the
//! shell's own ([`for_each_shell_command!`]), so an operation declared but not served
//! here fails to compile, and the UI calls no command by a name written by hand.

use crate::state::AppState;
use factdesk_api::call::{Call, Reply};
use factdesk_api::Result;

#[cfg(test)]
mod typescript;

/// One command per operation of the list.
macro_rules! shell_commands {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $name:ident $({
            $( $(#[$field:meta])* $arg:ident : $ty:ty ),* $(,)?
        })? -> $res:ty, $who:ident, $shell:ident;
    )*) => {
        $(shell_command! { $shell $variant $name ($($($arg: $ty),*)?) -> $res; $($doc)* })*
    };
}

macro_rules! shell_command {
    (Local $variant:ident $name:ident ($($arg:ident: $ty:ty),*) -> $res:ty; $($doc:literal)*) => {
        $(#[doc = $doc])*
        #[tauri::command(async)]
        pub fn $name(state: tauri::State<'_, AppState>, $($arg: $ty),*) -> Result<$res> {
            state.run(Call::$variant { $($arg),* }, |reply| match reply {
                Reply::$variant(value) => Some(value),
                _ => None,
            })
        }
    };
    (Own $variant:ident $name:ident ($($arg:ident: $ty:ty),*) -> $res:ty; $($doc:literal)*) => {
        $(#[doc = $doc])*
        #[tauri::command(async)]
        pub fn $name(state: tauri::State<'_, AppState>, $($arg: $ty),*) -> Result<$res> {
            super::own::$name(&state, $($arg),*)
        }
    };
    (Remote $($rest:tt)*) => {};
}

factdesk_api::for_each_operation!(shell_commands);

/// Every command of the app, for `invoke_handler`
/// (`factdesk_api::for_each_operation!(handler_list)`): the operations' (all but
/// `Remote`) and the shell's own.
macro_rules! handler_list {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $name:ident $({
            $( $(#[$field:meta])* $arg:ident : $ty:ty ),* $(,)?
        })? -> $res:ty, $who:ident, $shell:ident;
    )*) => {
        handler_list!(@pick [] $($shell $name)*)
    };
    (@pick [$($done:ident)*] Remote $name:ident $($rest:tt)*) => {
        handler_list!(@pick [$($done)*] $($rest)*)
    };
    (@pick [$($done:ident)*] $shell:ident $name:ident $($rest:tt)*) => {
        handler_list!(@pick [$($done)* $name] $($rest)*)
    };
    (@pick [$($done:ident)*]) => {
        $crate::for_each_shell_command!(shell_handlers [$($done)*])
    };
}
pub(crate) use handler_list;

/// The handler list: the operations' commands (`$done`) and the shell's own.
macro_rules! shell_handlers {
    ([$($done:ident)*] $(
        $(#[doc = $doc:literal])*
        $module:ident :: $name:ident ( $($arg:ident : $ty:ty),* ) -> $res:ty;
    )*) => {
        tauri::generate_handler![
            $($crate::commands::operations::$done,)*
            $($crate::commands::$module::$name,)*
        ]
    };
}
pub(crate) use shell_handlers;

/// Calls `$callback! { $($pre)* <list> }` with every command of the shell's own: files
/// and dialogs on this computer, the connection to a server, the live dashboard, and
/// imports and rankings as background jobs. Each reads `module::name(args) -> Response;`
/// with the types the UI sends and receives; the handler list and the UI's functions
/// (ui/src/ipc/shell.ts) are built from it.
#[macro_export]
macro_rules! for_each_shell_command {
    ($callback:ident $($pre:tt)*) => {
        $callback! { $($pre)*
            /// The project named on the command line or in FACTDESK_PROJECT, opened; else
            /// null.
            project::startup_project() -> Option<factdesk_api::dto::Overview>;
            /// Opens a project, or a pack in annotator mode.
            project::open_project(path: std::path::PathBuf) -> factdesk_api::dto::Overview;
            /// Creates a project file and opens it.
            project::create_project(path: std::path::PathBuf) -> factdesk_api::dto::Overview;
            /// The projects and servers opened lately, newest first.
            project::recent_projects() -> Vec<factdesk_api::recent::RecentProject>;
            /// Signs in to a team server: the app then works on the server's project as
            /// this person (the overview's path is the server's address). Fails with
            /// "unauthorized" for a wrong name or password, "unavailable" when the server
            /// is out of reach or TLS fails.
            project::connect_server(url: String, name: String, password: String) -> factdesk_api::dto::Overview;
            /// Who is working: on a server the person signed in, on a file the one chosen;
            /// else null.
            project::current_person() -> Option<factdesk_api::annotators::Person>;
            /// Everyone on the open project: names and roles only.
            work::people() -> Vec<factdesk_api::annotators::Person>;
            /// Chooses who is working on a file (on a server, whoever signed in). Someone with
            /// a password gives it; without it, or with a wrong one, "unauthorized".
            work::sign_in(name: String, password: Option<String>) -> factdesk_api::annotators::Person;
            /// Starts an import in the background (leads only); follow it with onImport.
            import::start_import(
                claims: Vec<std::path::PathBuf>,
                documents: Vec<std::path::PathBuf>,
                preset: String
            ) -> ();
            /// Asks the running import to stop; it rolls back and ends with a "cancelled"
            /// error.
            import::cancel_import() -> ();
            /// Leads only, on a project on this computer: ranks the candidates again in the
            /// background as an import does (the project's ranking settings), keeping
            /// those of every claim someone was shown; follow it with onRank. Connected to
            /// a team server, refused ("forbidden"): `factdesk rank` runs there.
            rank::start_rank() -> ();
            /// Asks the running ranking to stop; it ends with a "cancelled" error and no
            /// candidate changed.
            rank::cancel_rank() -> ();
            /// Where the ranking started from this window stands; null when none runs.
            rank::ranking_now() -> Option<factdesk_api::dto::ImportProgress>;
            /// Starts following agreement (leads only); snapshots arrive through
            /// onDashboard.
            dashboard::watch_dashboard() -> ();
            /// Stops following agreement.
            dashboard::stop_dashboard() -> ();
            /// Leads only: merges returned packs, each file with its own outcome. A pack
            /// with no answers is refused (code "unanswered") unless `giveBack`: the lead
            /// takes the work back.
            packs::merge_packs(paths: Vec<std::path::PathBuf>, give_back: bool) -> Vec<factdesk_api::packs::MergeOutcome>;
            /// The open file's manifest when it is a pack; null for a project.
            packs::pack_info() -> Option<factdesk_api::packs::Manifest>;
            /// Writes the pack's results file (beside the pack unless `to` is given); its
            /// path.
            packs::return_results(to: Option<std::path::PathBuf>) -> String;
            /// Writes the gold file at `out` and its dataset card beside it.
            gold::export_gold(
                request: factdesk_api::gold::GoldRequest,
                out: std::path::PathBuf,
                format: factdesk_api::gold::ExportFormat,
                force: bool
            ) -> factdesk_api::gold::ExportReport;
            /// Writes every answer ever given at `out`; an existing file only with `force`.
            gold::export_answers(
                out: std::path::PathBuf,
                format: factdesk_api::answers::AnswersFormat,
                force: bool
            ) -> factdesk_api::answers::AnswersReport;
            /// Leads only: writes a pack for an annotator at `out` and reserves its items.
            lead::issue_pack(request: factdesk_api::packs::PackRequest, out: std::path::PathBuf) -> factdesk_api::packs::PackIssued;
        }
    };
}
