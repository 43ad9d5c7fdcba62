//! The core crate's integration tests, one binary: agreement figures against independent
//! libraries, gold aggregation and splits, negation on real claims.

mod agreement;
mod gold;
mod negation_real;
