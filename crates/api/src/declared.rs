//! The results of a project's own design (issue 33), question by question: agreement
//! ([`agreement`]), gold ([`gold`]) and the gold file with its card ([`export`]). Serving
//! and checking answers is `crate::design`'s, below the annotation modules; this module
//! sits above agreement and gold, which it reads.

pub mod agreement;
pub mod export;
pub mod gold;
mod queue;
