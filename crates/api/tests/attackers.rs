//! Issue 12, point 1: scripted attackers holding only a pack's bytes guess the trick no
//! better than chance (by slot, ids, passages or marks) and the gold label no better than
//! the majority class.

use factdesk_api::annotate::{Item, Passage};
use factdesk_api::annotators::Role;
use factdesk_api::import::{import, ImportRequest, Preset};
use factdesk_api::packs::PackRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, NoProgress, Project};
use std::io::Write;
use std::path::Path;

mod common;
use common::Acting;
use common::{covid_fact_head, imported};

/// The annotator the packs are issued to.
const HOLDER: &str = "Wendeline";

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// The items and passages of a pack, read from its bytes alone as an attacker would.
fn pack_contents(path: &Path) -> Vec<(Item, Vec<Passage>)> {
    let conn = ok(rusqlite::Connection::open(path));
    let mut stmt = ok(conn.prepare("SELECT task_id, item FROM items ORDER BY position"));
    let items: Vec<(i64, String)> =
        ok(ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))).collect::<Result<_, _>>());
    items
        .into_iter()
        .map(|(task, text)| {
            let item: Item = ok(serde_json::from_str(&text));
            let passages = item
                .options
                .iter()
                .map(|o| {
                    let text: String = ok(conn.query_row(
                        "SELECT passage FROM passages WHERE task_id = ?1 AND option_id = ?2",
                        rusqlite::params![task, o.id],
                        |r| r.get(0),
                    ));
                    ok(serde_json::from_str(&text))
                })
                .collect();
            (item, passages)
        })
        .collect()
}

/// The most hits a guesser right with probability `p` gets by chance in `n` tries, with
/// a margin of 3.5 standard deviations (a family of a dozen strategies stays well
/// under one false alarm in a thousand runs).
fn chance_bound(n: usize, p: f64) -> usize {
    let n = n as f64;
    (n * p + 3.5 * (n * p * (1.0 - p)).sqrt()).ceil() as usize
}

/// Strategies that read only the pack's structure: a fixed slot, the smallest or largest
/// option id, the longest or shortest passage, the passage whose marked sentence sits
/// first or last. Each returns the index of the option it calls the trick.
fn structural_guesses(item: &Item, passages: &[Passage]) -> Vec<(String, usize)> {
    let n = item.options.len();
    let mut guesses: Vec<(String, usize)> = (0..n).map(|k| (format!("slot {k}"), k)).collect();
    let by = |f: &dyn Fn(usize) -> i64| -> usize {
        (0..n).max_by_key(|&i| (f(i), -(i as i64))).unwrap_or(0)
    };
    let ids: Vec<&String> = item.options.iter().map(|o| &o.id).collect();
    guesses.push((
        "smallest id".into(),
        (0..n).min_by_key(|&i| ids[i]).unwrap_or(0),
    ));
    guesses.push((
        "largest id".into(),
        (0..n).max_by_key(|&i| ids[i]).unwrap_or(0),
    ));
    guesses.push((
        "longest passage".into(),
        by(&|i| passages[i].sentences.len() as i64),
    ));
    guesses.push((
        "shortest passage".into(),
        by(&|i| -(passages[i].sentences.len() as i64)),
    ));
    let hit_at = |i: usize| {
        passages[i]
            .sentences
            .iter()
            .position(|s| s.hit)
            .unwrap_or(0) as i64
    };
    guesses.push(("marked first".into(), by(&|i| -hit_at(i))));
    guesses.push(("marked last".into(), by(&|i| hit_at(i))));
    // A passage that is another option's passage with one sentence more marked in it.
    let texts = |i: usize, keep_hit: bool| -> Vec<&str> {
        passages[i]
            .sentences
            .iter()
            .filter(|s| keep_hit || !s.hit)
            .map(|s| s.text.as_str())
            .collect()
    };
    let copied = (0..n)
        .find(|&i| (0..n).any(|j| j != i && texts(i, false) == texts(j, true)))
        .unwrap_or(0);
    guesses.push(("another's passage plus one".into(), copied));
    // The option with the fewest words marked as shared with the claim (a trick that
    // shares none stands out while highlighting is on).
    let marked = |i: usize| item.options[i].pieces.iter().filter(|p| p.hit).count() as i64;
    guesses.push(("fewest marked words".into(), by(&|i| -marked(i))));
    // The option whose passage names a document no other option's passage names (the
    // trick under `supports_or_refutes` comes from an unrelated document).
    let title = |i: usize| passages[i].title.as_deref();
    let odd_title = (0..n)
        .find(|&i| title(i).is_some() && (0..n).all(|j| j == i || title(j) != title(i)))
        .unwrap_or(0);
    guesses.push(("odd title out".into(), odd_title));
    guesses
}

/// The trick option of a pack's item, found through the lead's project by the item's
/// claim text (a pack's task ids are its own).
fn stored_trick(lead: &Project, item: &Item) -> Option<String> {
    let text: String = lead
        .store()
        .conn()
        .query_row(
            "SELECT s.text FROM task_tricks t JOIN tasks k ON k.id = t.task_id
             JOIN claims c ON c.id = k.claim_id JOIN sentences s ON s.id = t.sentence_id
             WHERE c.text = ?1",
            [&item.claim],
            |r| r.get(0),
        )
        .ok()?;
    item.options
        .iter()
        .find(|o| o.text == text)
        .map(|o| o.id.clone())
}

/// A made-up word, different for every `seed`: projects whose claims share no word, so
/// every claim has real sentences of other claims' documents to take its trick from.
fn word(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let consonants = b"bdfgklmnprstvz";
    let vowels = b"aeiou";
    (0..7)
        .map(|i| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = (x >> 33) as usize;
            if i % 2 == 0 {
                consonants[r % consonants.len()] as char
            } else {
                vowels[r % vowels.len()] as char
            }
        })
        .collect()
}

/// A project of `n` claims on made-up topics, each with a titled document of eight
/// sentences, with no stance chosen (served as `supports_or_refutes`).
fn project_of_distinct_topics(dir: &Path, n: usize, clock: &ManualClock) -> Project {
    let docs = dir.join("topics-docs.jsonl");
    let claims = dir.join("topics-claims.jsonl");
    let mut d = ok(std::fs::File::create(&docs));
    let mut c = ok(std::fs::File::create(&claims));
    for i in 0..n as u64 {
        let w = |k: u64| word(i * 100 + k);
        let sentence = |a: u64, b: u64, c: u64| {
            let first = w(a);
            let mut chars = first.chars();
            let head: String = chars
                .next()
                .map(|x| x.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
                .collect();
            format!("{head} {} the {} in {}.", w(b), w(c), w(a + b + c))
        };
        let text: Vec<String> = (0..8).map(|k| sentence(k, k + 10, k + 20)).collect();
        let doc = serde_json::json!({"id": format!("d{i}"), "title": format!("The {} papers", w(40)), "text": text.join(" ")});
        ok(writeln!(d, "{doc}"));
        let claim = format!("{} {} the {} in {}", w(0), w(10), w(20), w(30));
        let row = serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")]});
        ok(writeln!(c, "{row}"));
    }
    imported(
        dir,
        "topics.fdesk",
        clock,
        claims,
        Some(docs),
        Preset::Native,
    )
}

#[test]
fn an_attacker_holding_a_pack_finds_the_trick_no_better_than_chance() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    // Under the `supports_or_refutes` stance, where the trick is a real sentence: under
    // `supports` it is the claim's negation, found by reading it, by design.
    let mut lead = project_of_distinct_topics(dir.path(), 200, &clock);
    ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(1)));
    ok(lead.add_annotator(&lead.lead(), HOLDER, Role::Annotator));
    let path = dir.path().join("attacked.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        count: 200,
        kind: Some(TaskKind::Evidence),
        expires_days: 7,
    };
    assert_eq!(ok(lead.issue_pack(&lead.lead(), &req, &path)).items, 200);
    let contents = pack_contents(&path);
    let mut hits: std::collections::BTreeMap<String, usize> = Default::default();
    let mut options = 0;
    for (item, passages) in &contents {
        // The truth, known only to the test: the trick by its text.
        let trick = stored_trick(&lead, item).unwrap_or_else(|| panic!("no trick"));
        let truth = item
            .options
            .iter()
            .position(|o| o.id == trick)
            .unwrap_or(usize::MAX);
        options = item.options.len();
        for (name, guess) in structural_guesses(item, passages) {
            *hits.entry(name).or_default() += usize::from(guess == truth);
        }
    }
    let bound = chance_bound(contents.len(), 1.0 / options as f64);
    eprintln!(
        "trick attacker over {} items of {options} options: bound {bound}, hits {hits:?}",
        contents.len()
    );
    let beaten: Vec<_> = hits.iter().filter(|(_, h)| **h > bound).collect();
    assert!(
        beaten.is_empty(),
        "strategies beating chance ({bound} of {} at most): {beaten:?}; all: {hits:?} (a passage that is a neighbour's plus one sentence is the document view's tell, issue 11 point 8)",
        contents.len()
    );
}

#[test]
fn an_attacker_holding_a_label_pack_guesses_no_better_than_the_majority_class() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    // The first 600 COVID-Fact claims: supported claims and their refuted variants.
    let claims = covid_fact_head(dir.path(), 600);
    let mut lead = imported(
        dir.path(),
        "covid.fdesk",
        &clock,
        claims,
        None,
        Preset::CovidFact,
    );
    // Refuted claims are children of the supported ones; they are labelled too.
    ok(lead.create_tasks_with(&lead.lead(), TaskKind::Label, Some(1), true));
    ok(lead.add_annotator(&lead.lead(), HOLDER, Role::Annotator));
    let path = dir.path().join("labels.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        count: 200,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    assert_eq!(ok(lead.issue_pack(&lead.lead(), &req, &path)).items, 200);
    let contents = pack_contents(&path);
    let gold = |claim: &str| -> String {
        ok(lead.store().conn().query_row(
            "SELECT coalesce(label, '') FROM claims WHERE text = ?1 LIMIT 1",
            [claim],
            |r| r.get(0),
        ))
    };
    let truth: Vec<bool> = contents
        .iter()
        .map(|(i, _)| gold(&i.claim) == "REFUTED")
        .collect();
    let refuted = truth.iter().filter(|t| **t).count();
    let majority = refuted.max(truth.len() - refuted);
    assert!(
        refuted > 0 && refuted < truth.len(),
        "both labels are in the pack"
    );
    // Rules over the pack's structure: a context, a counter-claim, more evidence than the
    // median, the item's place, its id.
    let mut lengths: Vec<usize> = contents.iter().map(|(i, _)| i.evidence.len()).collect();
    lengths.sort_unstable();
    let median = lengths[lengths.len() / 2];
    type Rule = Box<dyn Fn(usize, &Item) -> bool>;
    let rules: Vec<(&str, Rule)> = vec![
        ("has a context", Box::new(|_, i: &Item| i.context.is_some())),
        (
            "has a counter-claim",
            Box::new(|_, i: &Item| i.counter_claim.is_some()),
        ),
        (
            "more evidence than the median",
            Box::new(move |_, i: &Item| i.evidence.len() > median),
        ),
        ("odd place in the pack", Box::new(|k, _| k % 2 == 1)),
        ("first half of the pack", Box::new(|k, _| k < 100)),
        ("odd id", Box::new(|_, i: &Item| i.task_id % 2 == 1)),
    ];
    let bound = chance_bound(truth.len(), majority as f64 / truth.len() as f64);
    for (name, rule) in &rules {
        // Either reading of the rule: true means refuted, or true means supported.
        let right = contents
            .iter()
            .enumerate()
            .filter(|(k, (item, _))| rule(*k, item) == truth[*k])
            .count();
        let best = right.max(truth.len() - right);
        eprintln!(
            "label attacker, {name}: {best} of {} (majority {majority}, bound {bound})",
            truth.len()
        );
        assert!(
            best <= bound,
            "{name}: {best} of {} right, the majority class gets {majority} (bound {bound})",
            truth.len()
        );
    }
}

/// How often "the option with the fewest marked words" finds the trick in a pack of 200
/// COVID-Fact evidence items under `supports_or_refutes`, with claim-word highlighting as
/// `highlight` says (ties go to the first option); and the bound chance allows.
fn fewest_marked_on_covid_fact(highlight: Option<bool>) -> (usize, usize) {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = ok(Project::create(
        &dir.path().join("covid.fdesk"),
        Box::new(clock.clone()),
    ));
    let mut settings = ok(lead.settings());
    settings.evidence_stance = Some(factdesk_api::settings::EvidenceStance::SupportsOrRefutes);
    settings.highlight_claim_words = highlight;
    ok(lead.set_settings(&lead.lead(), &settings));
    let req = ImportRequest {
        claims: vec![covid_fact_head(dir.path(), 900)],
        preset: Preset::CovidFact,
        ..Default::default()
    };
    let owner = lead.lead();
    ok(import(&mut lead, &owner, &req, &mut NoProgress));
    ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(1)));
    ok(lead.add_annotator(&lead.lead(), HOLDER, Role::Annotator));
    let path = dir.path().join("evidence.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        count: 200,
        kind: Some(TaskKind::Evidence),
        expires_days: 7,
    };
    assert_eq!(ok(lead.issue_pack(&lead.lead(), &req, &path)).items, 200);
    let mut hits = 0;
    let mut shortest_hits = 0;
    // Items show 2 to 6 options: chance is the mean of one in each item's count.
    let mut chance = 0.0;
    let mut items = 0;
    for (item, _) in pack_contents(&path) {
        let Some(trick) = stored_trick(&lead, &item) else {
            continue;
        };
        chance += 1.0 / item.options.len() as f64;
        items += 1;
        let marked =
            |o: &factdesk_api::annotate::ItemOption| o.pieces.iter().filter(|p| p.hit).count();
        let guess = item
            .options
            .iter()
            .min_by_key(|o| marked(o))
            .map(|o| o.id.clone());
        hits += usize::from(guess == Some(trick.clone()));
        let shortest = item
            .options
            .iter()
            .min_by_key(|o| o.text.chars().count())
            .map(|o| o.id.clone());
        shortest_hits += usize::from(shortest == Some(trick));
    }
    assert!(items >= 150, "only {items} items with a trick");
    let bound = chance_bound(items, chance / items as f64);
    eprintln!(
        "highlighting {highlight:?}: fewest marked words {hits}, shortest option {shortest_hits} of {items} (bound {bound})"
    );
    // A sentence sharing no word with the claim tends to be short; the trick is drawn
    // as long as the claim's candidates, so length tells nothing either.
    assert!(
        shortest_hits <= bound,
        "the shortest option is the trick in {shortest_hits} of {items} (bound {bound})"
    );
    (hits, bound)
}

#[test]
fn under_supports_or_refutes_the_unmarked_trick_is_no_tell_while_highlighting_is_off() {
    // Off by the stance's default: the trick is found no better than chance.
    let (hits, bound) = fewest_marked_on_covid_fact(None);
    assert!(
        hits <= bound,
        "{hits} of 200 found by its missing marks (bound {bound})"
    );
    // Turned on by the lead, the trick is the one option with nothing marked: the tell
    // this default avoids (docs/annotation.md).
    let (hits, bound) = fewest_marked_on_covid_fact(Some(true));
    assert!(
        hits > bound,
        "with highlighting on, only {hits} of 200 (bound {bound})"
    );
}
