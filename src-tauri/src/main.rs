//! The Factdesk desktop app: a Tauri window over the same api the CLI uses.
//!
//! Commands are one-liners grouped per domain in [`commands`]; the open project lives in
//! Tauri's managed state, never in a global. Errors reach the UI as `{code, message}`.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod devices;
mod live;
mod remote;
mod startup;
mod state;

use commands::operations::{handler_list, shell_handlers};
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
        .invoke_handler(factdesk_api::for_each_operation!(handler_list))
        .run(tauri::generate_context!());
    if let Err(e) = result {
        tracing::error!("Factdesk could not start: {e}");
        std::process::exit(1);
    }
}
