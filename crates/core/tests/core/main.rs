//! The core crate's integration tests, one binary: agreement figures against independent
//! libraries, gold aggregation and splits, negation on real claims.
// A scenario reads best top to bottom: test functions may run past 100 lines.
#![allow(clippy::too_many_lines)]

mod agreement;
mod gold;
mod negation_real;
