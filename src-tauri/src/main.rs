//! The Factdesk desktop app: a Tauri window over the same api the CLI uses.
//!
//! Commands are one-liners grouped per domain in [`commands`]; the open project lives in
//! Tauri's managed state, never in a global. Errors reach the UI as `{code, message}`.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod live;
mod startup;
mod state;

use state::AppState;
use tauri::Manager;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("FACTDESK_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let startup = startup::project_path(std::env::args_os(), std::env::var_os("FACTDESK_PROJECT"));
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let config_dir = app.path().app_config_dir()?;
            app.manage(AppState::new(config_dir, startup.clone()));
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::project::startup_project,
            commands::project::open_project,
            commands::project::create_project,
            commands::project::overview,
            commands::project::recent_projects,
            commands::work::people,
            commands::work::sign_in,
            commands::work::add_person,
            commands::work::annotators,
            commands::work::create_tasks,
            commands::work::claims_without_tasks,
            commands::work::next_item,
            commands::work::previous_item,
            commands::work::submit_answer,
            commands::work::passage,
            commands::work::check_refutation,
            commands::work::search,
            commands::work::paces,
            commands::import::start_import,
            commands::import::cancel_import,
            commands::dashboard::watch_dashboard,
            commands::dashboard::stop_dashboard,
            commands::dashboard::create_study,
            commands::packs::merge_packs,
            commands::packs::packs,
            commands::packs::pack_info,
            commands::packs::return_results,
            commands::gold::adjudication_queue,
            commands::gold::decide,
            commands::gold::undo_decision,
            commands::gold::sentence_passage,
            commands::gold::export_preview,
            commands::gold::export_gold,
            commands::lead::pending_reviews,
            commands::lead::review_refutation,
            commands::lead::settings,
            commands::lead::save_settings,
            commands::lead::flag_decision,
            commands::lead::issue_pack,
            commands::work::skip_item,
            commands::work::claim_view,
            commands::work::claims_list,
            commands::gold::export_answers,
        ])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        tracing::error!("Factdesk could not start: {e}");
        std::process::exit(1);
    }
}
