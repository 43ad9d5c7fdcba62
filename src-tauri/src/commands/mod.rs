//! IPC commands, one module per domain. Each is a one-line call into factdesk_api.

pub mod dashboard;
pub mod gold;
pub mod import;
pub mod lead;
pub mod packs;
pub mod project;
pub mod work;
