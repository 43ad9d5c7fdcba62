//! Generated text and projects shared by the benchmarks: deterministic, so every run sees
//! the same bytes.

#![allow(dead_code)] // each bench binary uses its own part of this module

use factdesk_api::annotators::Role;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{NoProgress, Project, SystemClock};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

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

/// Next and submit times of an annotator's rounds, in milliseconds.
#[derive(Default)]
pub struct Rounds {
    pub next_ms: Vec<f64>,
    pub submit_ms: Vec<f64>,
}

impl Rounds {
    /// Times one round of evidence work: `next`, then an answer picking the first option.
    /// False when there is no item left.
    pub fn one(&mut self, p: &mut Project, who: &factdesk_api::Actor) -> bool {
        use factdesk_api::annotate::Answer;
        let t = std::time::Instant::now();
        let next = p
            .next_item(who, TaskKind::Evidence)
            .unwrap_or_else(|e| panic!("{e}"));
        self.next_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let Some(item) = next.item else { return false };
        let pick = item
            .options
            .first()
            .map(|o| o.id.clone())
            .unwrap_or_default();
        let answer = Answer {
            task_id: item.task_id,
            selected: vec![pick],
            ..Default::default()
        };
        let t = std::time::Instant::now();
        p.submit(who, &answer).unwrap_or_else(|e| panic!("{e}"));
        self.submit_ms.push(t.elapsed().as_secs_f64() * 1e3);
        true
    }
}

/// Who a test acts as: `lead()` is the project's first lead (its owner while it has
/// none), `who(name)` the named person, resolved as a front end would once per session.
pub trait Acting {
    fn who(&self, name: &str) -> factdesk_api::Actor;
    fn lead(&self) -> factdesk_api::Lead;
}

impl Acting for factdesk_api::Project {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Lead {
        let actor = self.lead_or_owner(None).unwrap_or_else(|e| panic!("{e}"));
        self.as_lead(&actor, "act as the lead")
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Acting for factdesk_api::packs::Workplace {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Lead {
        panic!("a workplace is for the annotator's work")
    }
}

impl Acting for factdesk_api::packs::PackSession {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Lead {
        panic!("a pack is for its holder's work")
    }
}

/// A project of generated claims, each with six evidence sentences (ranked into five
/// candidates on import), as the benches that serve, answer and export work build it.
#[derive(Debug, Clone)]
pub struct Generated<'a> {
    pub claims: usize,
    /// Each claim's text ends with its number, so no two claims are equal.
    pub numbered: bool,
    /// Claims come labelled SUPPORTED and REFUTED in turn.
    pub labelled: bool,
    /// Where the claims file is written for the import (removed afterwards).
    pub input: &'a Path,
    /// Tasks created, in order: kind and overlap.
    pub tasks: &'a [(TaskKind, u32)],
    /// Annotators added, in order.
    pub people: &'a [&'a str],
}

/// Creates the project at `at`, its text drawn from `rng` (which goes on from there), and
/// returns it with the annotators' ids in `people` order.
pub fn generated_project(at: &Path, spec: &Generated<'_>, rng: &mut Lcg) -> (Project, Vec<i64>) {
    let ok = |e: &dyn std::fmt::Display| -> ! { panic!("{e}") };
    let mut w =
        std::io::BufWriter::new(std::fs::File::create(spec.input).unwrap_or_else(|e| ok(&e)));
    for i in 0..spec.claims {
        let mut claim = String::new();
        sentence(rng, &mut claim);
        let evidence: Vec<String> = (0..6)
            .map(|_| {
                let mut s = String::new();
                sentence(rng, &mut s);
                s.trim().to_string()
            })
            .collect();
        let text = if spec.numbered {
            format!("{} {i}", claim.trim())
        } else {
            claim.trim().to_string()
        };
        let mut row =
            serde_json::json!({"id": format!("c{i}"), "claim": text, "evidence": evidence});
        if spec.labelled {
            row["label"] = ["SUPPORTED", "REFUTED"][i % 2].into();
        }
        writeln!(w, "{row}").unwrap_or_else(|e| ok(&e));
    }
    drop(w);
    let mut p = Project::create(at, Box::new(SystemClock)).unwrap_or_else(|e| ok(&e));
    let req = ImportRequest {
        claims: vec![spec.input.to_path_buf()],
        ..Default::default()
    };
    let owner = p.lead();
    import(&mut p, &owner, &req, &mut NoProgress).unwrap_or_else(|e| ok(&e));
    std::fs::remove_file(spec.input).unwrap_or_else(|e| ok(&e));
    for &(kind, overlap) in spec.tasks {
        p.create_tasks(&p.lead(), kind, Some(overlap))
            .unwrap_or_else(|e| ok(&e));
    }
    let people = spec
        .people
        .iter()
        .map(|name| {
            p.add_annotator(&p.lead(), name, Role::Annotator)
                .unwrap_or_else(|e| ok(&e))
                .id
        })
        .collect();
    (p, people)
}

/// Every claim's candidate sentence ids, in rank order.
pub fn candidates_by_claim(p: &Project) -> HashMap<i64, Vec<i64>> {
    let mut candidates: HashMap<i64, Vec<i64>> = HashMap::new();
    for (claim, sentence) in
        factdesk_store::feed::candidate_ids(p.store().read()).unwrap_or_else(|e| panic!("{e}"))
    {
        candidates.entry(claim).or_default().push(sentence);
    }
    candidates
}
