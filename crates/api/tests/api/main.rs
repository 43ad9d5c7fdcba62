//! The api's integration tests, one binary: each module is one capability's tests, the
//! helpers they share are in `common`. A filter picks a module's tests, e.g.
//! `cargo test -p factdesk-api --test api attackers::`.
// A scenario reads best top to bottom: test functions may run past 100 lines.
#![allow(clippy::too_many_lines)]

#[path = "common/attack.rs"]
mod attack;
mod common;

mod answer_keys;
mod answers;
mod attackers;
mod audit;
mod bindings;
mod bulk_import;
mod calls;
mod claim_numbers;
mod claim_refs;
mod claim_view;
mod concurrent;
mod cross_kinds;
mod dashboard;
mod dashboard_pace;
mod designs;
mod designs_hostile;
mod disagreements;
mod downloads;
mod earlier_release;
mod found_nothing;
mod gate;
mod given_items;
mod gold;
mod gold_bulk;
mod gold_lines;
mod hf_dataset;
mod hostile_packs;
mod import_live;
mod import_progress;
mod import_ranking;
mod kappa_names;
mod label_evidence;
mod layering;
mod lead_commands;
mod lead_rules;
mod listen;
mod migration;
mod pack_problems;
mod pack_results;
mod packs;
mod password_race;
mod predictions;
mod problems;
mod rank_progress;
mod raw_answers;
mod refutations;
mod round_trips;
mod scenarios;
mod search;
mod search_hostile;
mod search_membership;
mod search_privacy;
mod search_rebuilds;
mod semantic;
mod sentence_passage;
mod serving;
mod sessions;
mod settings_saves;
mod shared_read;
mod sign_in;
mod sign_in_refusals;
mod skip;
mod stale_review;
mod stance_lock;
mod stored_roles;
mod stuck_work;
mod study;
mod study_draw;
mod study_gold;
mod task_order;
mod team;
mod trick;
mod work;
