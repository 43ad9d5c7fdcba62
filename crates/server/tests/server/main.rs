//! The team server over HTTP on loopback: every route with each role, what an annotator
//! may never see, bad input, limits, expiry, live events and the ack after the commit.
// A scenario reads best top to bottom: test functions may run past 100 lines.
#![allow(clippy::too_many_lines)]

mod browser;
mod calls;
mod counts;
mod designs;
mod device_tokens;
mod downloads;
mod guard;
mod harness;
mod held_bodies;
mod hostile_merge;
mod imports;
mod input;
mod postgres;
mod privacy;
mod routes;
mod searches;
mod sessions_and_limits;
mod sign_in_races;
mod store;
mod tls;
