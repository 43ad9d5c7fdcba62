//! IPC commands, one module per domain. Each is a one-line call into factdesk_api: most
//! run one of its operations ([`factdesk_api::call::Call`]) where the work is, on the open
//! file or on a team server. Those that may reach a server run off the window's thread
//! (`command(async)`), so a slow network never freezes the window.

pub mod dashboard;
pub mod gold;
pub mod import;
pub mod lead;
pub mod operations;
mod own;
pub mod packs;
pub mod project;
pub mod rank;
mod throttle;
pub mod work;
