//! Generated text shared by the benchmarks: deterministic, so every run sees the same bytes.

#![allow(dead_code)] // each bench binary uses its own part of this module

/// A small deterministic generator, so every run imports the same bytes.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    pub fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[(self.next() as usize) % words.len()]
    }
}

const WORDS: &[&str] = &[
    "the",
    "harbour",
    "council",
    "reported",
    "vaccine",
    "trial",
    "in",
    "of",
    "residents",
    "river",
    "approved",
    "study",
    "found",
    "that",
    "patients",
    "were",
    "million",
    "bridge",
    "railway",
    "museum",
    "orchestra",
    "survey",
    "increased",
    "declined",
    "according",
    "to",
    "officials",
    "and",
    "a",
    "by",
    "researchers",
    "library",
    "collection",
    "between",
    "during",
    "season",
];
const OPENERS: &[&str] = &[
    "Dr. Hale said",
    "In the U.S. market",
    "According to No. 4 report",
    "By 2.8 million votes",
    "J. R. Hale noted",
    "The council",
];

const SYLLABLES: &[&str] = &[
    "ka", "ter", "lo", "vin", "ma", "sel", "dra", "po", "rin", "ul", "gest", "on", "bar", "ith",
    "mo", "cre", "ant", "vel", "ser", "ly", "qua", "dom", "pha", "tur",
];

/// A word of rank `r` in a made-up vocabulary: distinct ranks give distinct words.
fn word(mut r: u64, out: &mut String) {
    loop {
        out.push_str(SYLLABLES[(r % SYLLABLES.len() as u64) as usize]);
        r /= SYLLABLES.len() as u64;
        if r == 0 {
            return;
        }
    }
}

/// Appends one sentence: common function words mixed with content words drawn from a
/// 20,000-word vocabulary with Zipf-like frequencies, as in real text, plus the
/// abbreviations, numbers and citation marks real documents have.
pub fn sentence(rng: &mut Lcg, out: &mut String) {
    out.push_str(rng.pick(OPENERS));
    for _ in 0..(8 + rng.next() % 14) {
        out.push(' ');
        if rng.next().is_multiple_of(3) {
            out.push_str(rng.pick(WORDS));
        } else {
            // Inverse-CDF of a log-uniform rank gives a 1/r (Zipf) distribution.
            let u = (rng.next() % 1_000_000) as f64 / 1_000_000.0;
            word(20_000f64.powf(u) as u64, out);
        }
    }
    out.push_str(match rng.next() % 6 {
        0 => " [12]. ",
        1 => " (approx. 0.05). ",
        _ => ". ",
    });
}

/// The value at quantile `p` of sorted timings (nearest rank).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Who a test acts as: `lead()` is the project's first lead (its owner while it has
/// none), `who(name)` the named person, resolved as a front end would once per session.
pub trait Acting {
    fn who(&self, name: &str) -> factdesk_api::Actor;
    fn lead(&self) -> factdesk_api::Actor;
}

impl Acting for factdesk_api::Project {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Actor {
        self.lead_or_owner(None).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Acting for factdesk_api::packs::Workplace {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Actor {
        panic!("a workplace is for the annotator's work")
    }
}

impl Acting for factdesk_api::packs::PackSession {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Actor {
        panic!("a pack is for its holder's work")
    }
}
