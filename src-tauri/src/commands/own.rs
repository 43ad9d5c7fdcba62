//! The operations the shell serves its own way (`Own` in the declaration), each with the
//! declared signature.

pub use super::project::overview;
