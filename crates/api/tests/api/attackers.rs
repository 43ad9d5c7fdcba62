//! Issue 12, point 1: scripted attackers holding only a pack's bytes guess the trick no
//! better than chance (by slot, ids, passages or marks) and the gold label no better than
//! the majority class.
//!
//! Each test fails by chance with probability at most [`attack::FALSE_FAILURE`] per run:
//! hits are held to the exact tail of their count under chance (a Poisson binomial over
//! the items' own option counts), with that probability shared among the strategies.
//! `cargo bench -p factdesk-api --bench attackers` runs the pack attack over 10,000
//! project secrets and prints the rate it observes (docs/testing.md).

use factdesk_api::annotate::Item;
use factdesk_api::import::{import, ImportRequest, Preset};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, NoProgress, Project};

use crate::attack;
use crate::common;
use attack::{judge, pack_contents, stored_trick, Guesser, FALSE_FAILURE};
use common::Acting;
use common::{covid_fact_head, imported};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// The pack attack on a project of 200 made-up topics, where `plant` may change the
/// stored tasks first: each strategy's verdict.
fn attack_on_topics(plant: &dyn Fn(&Project)) -> Vec<attack::Verdict> {
    attack_on(
        &attack::project_of_distinct_topics,
        plant,
        attack::structural_guesses,
    )
}

/// The pack attack on 200 evidence items of the project `make` builds, where `plant`
/// may change the stored tasks first: each strategy's verdict.
fn attack_on(
    make: &dyn Fn(&std::path::Path, usize, &ManualClock) -> Project,
    plant: &dyn Fn(&Project),
    guesses: attack::Guesses,
) -> Vec<attack::Verdict> {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    // Under the `supports_or_refutes` stance, where the trick is a real sentence: under
    // `supports` it is the claim's negation, found by reading it, by design.
    let mut lead = make(dir.path(), 200, &clock);
    ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(1)));
    plant(&lead);
    let path = attack::pack_for_holder(&mut lead, dir.path(), TaskKind::Evidence, 200);
    let guessers = attack::trick_attack(&lead, &path, guesses);
    assert_eq!(guessers.first().map(|g| g.chances.len()), Some(200));
    let verdicts = judge(&guessers, FALSE_FAILURE);
    eprintln!(
        "trick attacker over 200 items (false failure {:.1e}):\n{}",
        attack::false_failure(&verdicts),
        attack::table(&verdicts)
    );
    verdicts
}

#[test]
fn an_attacker_holding_a_pack_finds_the_trick_no_better_than_chance() {
    let verdicts = attack_on_topics(&|_| {});
    let beaten: Vec<_> = verdicts.iter().filter(|v| v.beats_chance()).collect();
    assert!(
        beaten.is_empty(),
        "strategies beating chance: {beaten:?} (a passage that is a neighbour's plus one sentence is the document view's tell, issue 11 point 8)"
    );
}

/// Issue 31's hostile pass: the trick was drawn within the span of its claim's candidate
/// lengths, so it was almost never the longest or the shortest option ("neither" found it
/// in a quarter of the items). Over 200 WikiFactCheck items it is now one of the two
/// about as often as chance makes any option one of them: the count is held to chance's
/// lower tail.
#[test]
fn the_trick_is_the_longest_or_shortest_option_as_often_as_chance() {
    if common::on_postgres() {
        return;
    }
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = attack::project_of_wikifactcheck_pages(dir.path(), 200, &clock);
    ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(1)));
    let path = attack::pack_for_holder(&mut lead, dir.path(), TaskKind::Evidence, 200);
    let (mut extreme, mut chances) = (0, Vec::new());
    for (item, _) in pack_contents(&path) {
        let Some(trick) = stored_trick(&lead, &item) else {
            continue;
        };
        let lengths: Vec<usize> = item
            .options
            .iter()
            .map(|o| o.text.chars().count())
            .collect();
        let Some(at) = item.options.iter().position(|o| o.id == trick) else {
            continue;
        };
        let (min, max) = (lengths.iter().min(), lengths.iter().max());
        extreme += usize::from(Some(&lengths[at]) == min || Some(&lengths[at]) == max);
        chances.push((2.0 / lengths.len() as f64).min(1.0));
    }
    assert!(
        chances.len() >= 150,
        "only {} items with a trick",
        chances.len()
    );
    let floor = factdesk_core::chance::floor(&chances, FALSE_FAILURE);
    eprintln!(
        "the trick was the longest or shortest option in {extreme} of {} items (chance {:.1}, at least {})",
        chances.len(),
        floor.expected,
        floor.count
    );
    assert!(extreme >= floor.count, "{extreme} against {floor:?}");
}

#[test]
fn on_wikifactcheck_pages_an_attacker_finds_the_trick_no_better_than_chance() {
    // Where passages put the trick depends on the data, not the engine: the run on
    // files covers it, and on PostgreSQL the import alone takes minutes.
    if common::on_postgres() {
        return;
    }
    let verdicts = attack_on(
        &attack::project_of_wikifactcheck_pages,
        &|_| {},
        attack::structural_guesses,
    );
    let beaten: Vec<_> = verdicts.iter().filter(|v| v.beats_chance()).collect();
    assert!(beaten.is_empty(), "strategies beating chance: {beaten:?}");
}

/// Hostile pass of session 22: under `supports_or_refutes` the trick was another claim's
/// candidate, so an attacker keeping a whole pack saw its text twice, as a real option
/// of one item and the trick of another, where a real option's text was shown in its
/// own item only: "an option whose text appears in another item" found it in 70 of 99
/// items (chance 32). Now a trick is shown elsewhere as often, and as, a model option
/// of its item: where a claim has documents of its own (made-up topics; COVID-Fact, its
/// every sentence a candidate, once documents no claim names are imported beside it)
/// no guess that compares items beats chance. Without those documents COVID-Fact has no
/// sentence that is no item's option, and `tasks` says how many tricks other items show.
#[test]
fn an_option_shown_in_another_item_tells_the_trick_no_better_than_chance() {
    let mut makes: Vec<(&str, Make)> =
        vec![("made-up topics", &attack::project_of_distinct_topics)];
    // The COVID-Fact import takes minutes on PostgreSQL; what is shown is the data's.
    if !common::on_postgres() {
        makes.push((
            "COVID-Fact beside unnamed documents",
            &covid_fact_beside_unnamed_documents,
        ));
        makes.push(("COVID-Fact by make-eval-set", &covid_fact_eval_set));
    }
    for (name, make) in makes {
        let (verdicts, unlike) = cross_item_attack_on(make);
        // Nearly every trick found a sentence shown as its model is (49 and 52 of
        // make-eval-set's 1,296 in two runs; a tenth is far from chance's reach).
        assert!(unlike <= 130, "{name}: {unlike} tricks unlike options");
        let beaten: Vec<_> = verdicts.iter().filter(|v| v.beats_chance()).collect();
        assert!(
            beaten.is_empty(),
            "{name}: strategies beating chance: {beaten:?}"
        );
    }
}

/// Where every sentence is some claim's option (COVID-Fact alone), `tasks` counts the
/// tricks that other items show as an option, and the attack finds them, as
/// docs/annotation.md says.
#[test]
fn tricks_shown_as_other_items_options_are_counted_and_found_as_documented() {
    if common::on_postgres() {
        return;
    }
    let (verdicts, unlike) = cross_item_attack_on(&covid_fact_under_supports_or_refutes);
    assert!(unlike >= 190, "{unlike} of 200");
    // Found above chance: 100-110 hits against 64.4 in recent runs. Held to chance's
    // mean, six standard deviations below those, not to the bound a guess must stay
    // under (about 100 with eight guesses sharing the false-failure budget), which
    // those runs only just passed: a test that failed by chance (CI, session 32).
    let found = verdicts.iter().find(|v| v.name == "an option elsewhere");
    assert!(
        found.is_some_and(|v| v.hits as f64 > v.bound.expected),
        "{verdicts:?}"
    );
}

/// Claims share pages (WikiFactCheck, five claims a page): the counts match, but the
/// items showing a real option are its page's, and a trick's are another page's. The
/// figures docs/annotation.md gives, printed, and the neighbour tell it names held to
/// them.
#[test]
fn on_shared_pages_the_cross_item_attack_is_measured() {
    if common::on_postgres() {
        return;
    }
    let (verdicts, unlike) = cross_item_attack_on(&attack::project_of_wikifactcheck_pages);
    assert!(unlike <= 20, "{unlike} of 200");
    assert_eq!(verdicts.len(), 8);
    // The tell docs/annotation.md names as not closed: the trick's neighbours are
    // borrowed, so no other item shows it beside them. It found 79 of 200 (chance 33.3);
    // 45 lies five standard deviations below that and two above chance, so this fails
    // by chance about once in two million runs, and nearly always once the tell is
    // closed, when the documentation must say so.
    let neighbours = verdicts
        .iter()
        .find(|v| v.name == "beside them nowhere else");
    assert!(
        neighbours.is_some_and(|v| v.hits >= 45),
        "the neighbour tell no longer finds the trick: update docs/annotation.md ({verdicts:?})"
    );
}

type Make<'a> = &'a dyn Fn(&std::path::Path, usize, &ManualClock) -> Project;

/// The cross-item attack on a pack of 200 evidence items of the project `make` builds:
/// each guess's verdict, and how many of its tricks `tasks` counted unlike options.
fn cross_item_attack_on(make: Make) -> (Vec<attack::Verdict>, u64) {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = make(dir.path(), 200, &clock);
    let report = ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(1)));
    let path = attack::pack_for_holder(&mut lead, dir.path(), TaskKind::Evidence, 200);
    let guessers = attack::cross_item_attack(&lead, &path);
    assert_eq!(guessers.first().map(|g| g.chances.len()), Some(200));
    let verdicts = judge(&guessers, FALSE_FAILURE / 2.0);
    eprintln!(
        "cross-item attacker over 200 items ({} tricks unlike options):\n{}",
        report.tricks_unlike_options,
        attack::table(&verdicts)
    );
    (verdicts, report.tricks_unlike_options)
}

/// Hostile pass of session 23: COVID-Fact as `make-eval-set` writes it, under
/// `supports_or_refutes`. Its documents repeat sentences (59,461 sentences, 3,219 texts),
/// and what items show was counted by sentence, not text: 1,196 of 1,296 tricks said what
/// some claim's candidate says and 302 shared their text with another item's trick,
/// while `tasks` reported none unlike options. Now counted by text: no text is two
/// items' trick, and the six guesses above stay within chance.
fn covid_fact_eval_set(dir: &std::path::Path, _n: usize, clock: &ManualClock) -> Project {
    let set = dir.join("set");
    ok(factdesk_api::eval::covid_fact_eval_set(
        &common::data("covidfact.jsonl"),
        &set,
        45,
        1,
    ));
    let mut lead = ok(Project::create(
        &dir.join("eval-set.fdesk"),
        Box::new(clock.clone()),
    ));
    let mut settings = ok(lead.settings());
    settings.evidence_stance = Some(factdesk_api::settings::EvidenceStance::SupportsOrRefutes);
    ok(lead.set_settings(&lead.lead(), &settings));
    let req = ImportRequest {
        claims: vec![set.join("claims.jsonl")],
        documents: vec![set.join("documents.jsonl")],
        ..Default::default()
    };
    let owner = lead.lead();
    ok(import(&mut lead, &owner, &req, &mut NoProgress));
    lead
}

#[test]
fn on_covid_fact_by_make_eval_set_no_text_is_two_items_trick() {
    if common::on_postgres() {
        return;
    }
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = covid_fact_eval_set(dir.path(), 0, &clock);
    let report = ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(1)));
    let texts: Vec<String> = {
        let conn = lead.store().read();
        let mut stmt = ok(conn
            .prepare("SELECT s.text FROM task_tricks x JOIN sentences s ON s.id = x.sentence_id"));
        let rows = ok(stmt.query_map([], |r| r.get(0)));
        ok(rows.collect::<Result<_, _>>())
    };
    let distinct: std::collections::HashSet<&String> = texts.iter().collect();
    assert!(texts.len() > 1_200, "{} tricks", texts.len());
    assert_eq!(distinct.len(), texts.len());
    eprintln!(
        "{} tricks, {} unlike options",
        texts.len(),
        report.tricks_unlike_options
    );
}

/// [`covid_fact_under_supports_or_refutes`] with 400 documents no claim names beside it
/// (made-up words, 4 to 40 a sentence).
fn covid_fact_beside_unnamed_documents(
    dir: &std::path::Path,
    n: usize,
    clock: &ManualClock,
) -> Project {
    let mut lead = covid_fact_under_supports_or_refutes(dir, n, clock);
    let docs = dir.join("unnamed.jsonl");
    let mut text = String::new();
    for d in 0..400u64 {
        let sentences: Vec<String> = (0..8u64)
            .map(|k| {
                let words = 4 + (attack::word(d * 31 + k).len() as u64 * (d + k)) % 37;
                let body: Vec<String> = (0..words)
                    .map(|w| attack::word(d * 10_000 + k * 100 + w))
                    .collect();
                let mut s = body.join(" ");
                s[..1].make_ascii_uppercase();
                s + "."
            })
            .collect();
        let doc = serde_json::json!({"id": format!("unnamed-{d}"), "text": sentences.join(" ")});
        text.push_str(&format!("{doc}\n"));
    }
    ok(std::fs::write(&docs, text));
    let req = ImportRequest {
        documents: vec![docs],
        ..Default::default()
    };
    let owner = lead.lead();
    ok(import(&mut lead, &owner, &req, &mut NoProgress));
    lead
}

/// A project of COVID-Fact's first `n * 4` lines (the trick attack takes 200 items of
/// it) under `supports_or_refutes`, where the trick is a real sentence.
fn covid_fact_under_supports_or_refutes(
    dir: &std::path::Path,
    n: usize,
    clock: &ManualClock,
) -> Project {
    let mut lead = ok(Project::create(
        &dir.join("covid.fdesk"),
        Box::new(clock.clone()),
    ));
    let mut settings = ok(lead.settings());
    settings.evidence_stance = Some(factdesk_api::settings::EvidenceStance::SupportsOrRefutes);
    ok(lead.set_settings(&lead.lead(), &settings));
    let req = ImportRequest {
        claims: vec![covid_fact_head(dir, n * 4)],
        preset: Preset::CovidFact,
        ..Default::default()
    };
    let owner = lead.lead();
    ok(import(&mut lead, &owner, &req, &mut NoProgress));
    lead
}

#[test]
fn on_covid_fact_an_attacker_finds_the_trick_no_better_than_chance() {
    // Where passages put the trick depends on the data, not the engine: the run on
    // files covers it, and on PostgreSQL the import alone takes minutes.
    if common::on_postgres() {
        return;
    }
    let verdicts = attack_on(
        &covid_fact_under_supports_or_refutes,
        &|_| {},
        attack::structural_guesses,
    );
    let beaten: Vec<_> = verdicts.iter().filter(|v| v.beats_chance()).collect();
    assert!(beaten.is_empty(), "strategies beating chance: {beaten:?}");
}

/// Under `supports_or_refutes` the trick shares no content word with the claim, by design:
/// a careful reader sees that it does not belong. So a reader's guess, "the option
/// sharing the fewest of the claim's words", finds it far above chance, as
/// docs/annotation.md says; pinned here so that a change of the trick's rule changes that
/// page with it.
#[test]
fn the_tricks_words_tell_it_to_a_reader_as_documented() {
    if common::on_postgres() {
        return;
    }
    let verdicts = attack_on(
        &attack::project_of_wikifactcheck_pages,
        &|_| {},
        attack::content_guesses,
    );
    let fewest = verdicts
        .iter()
        .find(|v| v.name == "fewest claim words")
        .unwrap_or_else(|| panic!("no such guess"));
    assert!(fewest.beats_chance(), "{fewest:?}");
}

#[test]
fn a_trick_planted_in_one_slot_is_caught_by_the_attack() {
    // The attack must be able to fail: with every trick in the first slot, "slot 0"
    // hits every item and beats chance; no other strategy is asked about.
    let verdicts = attack_on_topics(&|lead| {
        ok(lead
            .store()
            .read()
            .execute("UPDATE tasks SET trick_slot = 0", []));
    });
    let slot0 = verdicts.iter().find(|v| v.name == "slot 0");
    assert!(
        slot0.is_some_and(|v| v.hits == 200 && v.beats_chance()),
        "{slot0:?}"
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
    ok(lead.create_tasks_with(
        &lead.lead(),
        TaskKind::Label,
        Some(1),
        true,
        &mut NoProgress,
    ));
    let path = attack::pack_for_holder(&mut lead, dir.path(), TaskKind::Label, 200);
    let contents = pack_contents(&path);
    assert_eq!(contents.len(), 200);
    let gold = |claim: &str| -> String {
        ok(lead.store().read().query_row(
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
    // Chance is held to the majority class's rate on every item: a rule independent of
    // the label gets less on average, so the bound errs towards passing a weak tell, never
    // towards failing by chance.
    let rate = majority as f64 / truth.len() as f64;
    let guessers: Vec<Guesser> = rules
        .iter()
        .map(|(name, rule)| {
            // Either reading of the rule: true means refuted, or true means supported.
            let right = contents
                .iter()
                .enumerate()
                .filter(|(k, (item, _))| rule(*k, item) == truth[*k])
                .count();
            Guesser {
                name: (*name).to_owned(),
                hits: right.max(truth.len() - right),
                chances: vec![rate; truth.len()],
            }
        })
        .collect();
    // Two readings of each rule: half the false-failure probability for each.
    let verdicts = judge(&guessers, FALSE_FAILURE / 2.0);
    eprintln!(
        "label attacker over {} items, majority class {majority}:\n{}",
        truth.len(),
        attack::table(&verdicts)
    );
    let beaten: Vec<_> = verdicts.iter().filter(|v| v.beats_chance()).collect();
    assert!(
        beaten.is_empty(),
        "rules beating the majority class: {beaten:?}"
    );
}

/// How "the option with the fewest marked words" and "the shortest option" fare in a pack
/// of 200 COVID-Fact evidence items under `supports_or_refutes`, with claim-word
/// highlighting as `highlight` says (ties go to the first option), each judged at
/// `alpha` shared between the two.
fn fewest_marked_on_covid_fact(highlight: Option<bool>, alpha: f64) -> Vec<attack::Verdict> {
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
    let path = attack::pack_for_holder(&mut lead, dir.path(), TaskKind::Evidence, 200);
    let mut fewest = Guesser {
        name: "fewest marked words".into(),
        ..Default::default()
    };
    let mut shortest = Guesser {
        name: "shortest option".into(),
        ..Default::default()
    };
    // Items show 2 to 6 options: each item's chance is one in its own count.
    for (item, _) in pack_contents(&path) {
        let Some(trick) = stored_trick(&lead, &item) else {
            continue;
        };
        let options = &item.options;
        let Some(truth) = options.iter().position(|o| o.id == trick) else {
            continue;
        };
        let marked = |i: &usize| options[*i].pieces.iter().filter(|p| p.hit).count();
        let length = |i: &usize| options[*i].text.chars().count();
        let first_min = |key: &dyn Fn(&usize) -> usize| (0..options.len()).min_by_key(key);
        fewest.record(first_min(&marked).unwrap_or(0), truth, options.len());
        shortest.record(first_min(&length).unwrap_or(0), truth, options.len());
    }
    let items = fewest.chances.len();
    assert!(items >= 150, "only {items} items with a trick");
    let verdicts = judge(&[fewest, shortest], alpha);
    eprintln!(
        "highlighting {highlight:?}, {items} items:\n{}",
        attack::table(&verdicts)
    );
    // A sentence sharing no word with the claim tends to be short; the trick is drawn
    // as long as the claim's candidates, so length tells nothing either.
    assert!(!verdicts[1].beats_chance(), "{:?}", verdicts[1]);
    verdicts
}

#[test]
fn under_supports_or_refutes_the_unmarked_trick_is_no_tell_while_highlighting_is_off() {
    // Three checks can fail by chance (two with highlighting off, the shortest option
    // with it on): each gets a third of the false-failure probability.
    let alpha = FALSE_FAILURE / 3.0;
    // Off by the stance's default: the trick is found no better than chance.
    let off = fewest_marked_on_covid_fact(None, 2.0 * alpha);
    assert!(!off[0].beats_chance(), "{:?}", off[0]);
    // Turned on by the lead, the trick is the one option with nothing marked: the tell
    // this default avoids (docs/annotation.md).
    let on = fewest_marked_on_covid_fact(Some(true), 2.0 * alpha);
    assert!(on[0].beats_chance(), "with highlighting on: {:?}", on[0]);
}
