//! The trick sentence: wrong under the guideline served, alike in form to its neighbours,
//! at a place nothing the annotator holds predicts, and blind in the document view.

use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::import::{import, ImportRequest, Preset};
use factdesk_api::settings::{trick_sentence, EvidenceStance};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, NoProgress, Project};
use factdesk_core::chance;
use factdesk_core::seeded::Seeded;
use factdesk_core::trick::content_words;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::Acting;
use common::{project, trick_option};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(name)
}

/// A project of the documents and claims given as JSON lines, imported without a preset.
fn imported_lines(dir: &Path, clock: &ManualClock, documents: &str, claims: &str) -> Project {
    let (docs, claims_file) = (dir.join("docs.jsonl"), dir.join("claims.jsonl"));
    ok(std::fs::write(&docs, documents));
    ok(std::fs::write(&claims_file, claims));
    let mut p = ok(Project::create(
        &common::location(dir, "p.fdesk"),
        Box::new(clock.clone()),
    ));
    let req = ImportRequest {
        claims: vec![claims_file],
        documents: vec![docs],
        ..Default::default()
    };
    let owner = p.lead();
    ok(import(&mut p, &owner, &req, &mut NoProgress));
    p
}

/// A project of `n` claims, each with its own document whose sentences no other document
/// repeats, under the stance a project gets without a preset. Eleven sentences a
/// document, so that beside a claim's candidates some are no item's option.
fn varied(dir: &Path, n: usize, clock: &ManualClock) -> Project {
    let mut d = String::new();
    let mut c = String::new();
    for i in 0..n {
        let text = format!(
            "The harbour of town {i} held {i} ships in 1900. Its lighthouse was built in {}. Tourism grew by {i} percent in the 1990s. A ferry linked town {i} to the island. The river flooded {i} times. Fishing declined after war {i}. Bakeries sold {} loaves daily. Schools taught {} pupils. The choir sang {i} hymns. Markets opened {} stalls. Winters brought {} storms.",
            1800 + i,
            100 + i,
            200 + i,
            300 + i,
            400 + i
        );
        d.push_str(&serde_json::json!({"id": format!("d{i}"), "text": text}).to_string());
        d.push('\n');
        let claim = format!("Town {i} had a lighthouse built in {}", 1800 + i);
        c.push_str(&serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")]}).to_string());
        c.push('\n');
    }
    imported_lines(dir, clock, &d, &c)
}

/// Every evidence item `name` is served, answered with `choose`, until none is left.
fn answer_all(p: &mut Project, name: &str, choose: &dyn Fn(&Item) -> Vec<String>) -> Vec<Item> {
    let mut seen = Vec::new();
    while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
        let selected = choose(&item);
        let answer = Answer {
            task_id: item.task_id,
            no_evidence: selected.is_empty(),
            selected,
            ..Default::default()
        };
        ok(p.submit(&p.who(name), &answer));
        seen.push(item);
    }
    seen
}

fn trick_failures(p: &Project) -> i64 {
    ok(p.store().read().query_row(
        "SELECT count(*) FROM annotations WHERE trick_failed = 1",
        [],
        |r| r.get(0),
    ))
}

/// (sentence id, document id) of a task's stored trick sentence.
fn stored_trick(p: &Project, task_id: i64) -> Option<(i64, i64)> {
    p.store()
        .read()
        .query_row(
            "SELECT s.id, s.document_id FROM task_tricks t JOIN sentences s ON s.id = t.sentence_id WHERE t.task_id = ?1",
            [task_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok()
}

/// Whether a sentence ends as a document's sentence does.
fn sentence_like(text: &str) -> bool {
    text.chars().next().is_some_and(char::is_uppercase)
        && text
            .trim_end_matches(['"', '\'', ')'])
            .ends_with(['.', '!', '?'])
}

#[test]
fn without_a_preset_the_trick_is_a_real_unrelated_sentence_a_careful_annotator_never_picks() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = varied(dir.path(), 30, &clock);
    let report = ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    assert_eq!(report.without_trick, 0);
    for n in ["ana", "ben", "cal"] {
        ok(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    // Following "supports or refutes", a careful annotator selects every sentence about
    // the claim's subject: those sharing a content word with it.
    let careful = |item: &Item| -> Vec<String> {
        let claim = content_words(&item.claim);
        item.options
            .iter()
            .filter(|o| !content_words(&o.text).is_disjoint(&claim))
            .map(|o| o.id.clone())
            .collect()
    };
    let mut items = Vec::new();
    for n in ["ana", "ben", "cal"] {
        items.extend(answer_all(&mut p, n, &careful));
    }
    assert_eq!(items.len(), 90);
    assert_eq!(
        trick_failures(&p),
        0,
        "a careful annotator picked the trick"
    );
    for item in &items {
        assert!(
            item.guidelines.contains("supports or refutes"),
            "{}",
            item.guidelines
        );
        let trick = trick_option(&p, item).unwrap_or_else(|| panic!("no trick in {item:?}"));
        let option = item.options.iter().find(|o| o.id == trick);
        let text = option.map(|o| o.text.as_str()).unwrap_or_default();
        assert!(!text.starts_with("It is not true"), "{text}");
        assert!(
            content_words(text).is_disjoint(&content_words(&item.claim)),
            "{text}"
        );
        // A real sentence of a document the claim does not have.
        let (sentence_id, document_id) = stored_trick(&p, item.task_id).unwrap_or_default();
        let claim_docs = ok(p.store().claim_document_ids(ok(p.store().read().query_row(
            "SELECT claim_id FROM tasks WHERE id = ?1",
            [item.task_id],
            |r| r.get::<_, i64>(0),
        ))));
        assert!(!claim_docs.contains(&document_id));
        assert!(ok(p.store().sentence(sentence_id)).is_some_and(|s| s.text == text));
        // No tell in form: the pieces concatenate to the text, as for every option.
        for o in &item.options {
            let joined: String = o.pieces.iter().map(|x| x.text.as_str()).collect();
            assert_eq!(joined, o.text);
            assert!(o.id.starts_with('o') && o.id.len() == 13, "{}", o.id);
        }
    }
}

/// The first `n` COVID-Fact rows in a file of their own, and each claim's gold evidence.
fn covid_fact(dir: &Path, n: usize) -> (PathBuf, HashMap<String, Vec<String>>) {
    let text = ok(std::fs::read_to_string(data("covidfact.jsonl")));
    let head: Vec<&str> = text.lines().take(n).collect();
    let path = dir.join("covid.jsonl");
    ok(std::fs::write(&path, head.join("\n")));
    let mut gold = HashMap::new();
    for line in head {
        let row: serde_json::Value = ok(serde_json::from_str(line));
        let evidence = row["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| {
                e.as_str()
                    .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            })
            .collect();
        gold.insert(
            row["claim"].as_str().unwrap_or_default().trim().to_string(),
            evidence,
        );
    }
    (path, gold)
}

#[test]
fn the_covid_fact_preset_serves_the_supports_guideline_and_a_negation_written_like_a_sentence() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let (claims, gold) = covid_fact(dir.path(), 120);
    let mut p = ok(Project::create(
        &common::location(dir.path(), "c.fdesk"),
        Box::new(clock.clone()),
    ));
    let req = ImportRequest {
        claims: vec![claims],
        preset: Preset::CovidFact,
        ..Default::default()
    };
    let owner = p.lead();
    let report = ok(import(&mut p, &owner, &req, &mut NoProgress));
    assert_eq!(report.evidence_stance, Some(EvidenceStance::Supports));
    assert_eq!(ok(p.settings()).stance(), EvidenceStance::Supports);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    for n in ["ana", "ben", "cal"] {
        ok(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    // Following "supports", a careful annotator selects exactly the gold evidence.
    let careful = |item: &Item| -> Vec<String> {
        let evidence = gold.get(item.claim.trim()).cloned().unwrap_or_default();
        item.options
            .iter()
            .filter(|o| {
                let t = o.text.split_whitespace().collect::<Vec<_>>().join(" ");
                evidence.iter().any(|e| e.contains(&t))
            })
            .map(|o| o.id.clone())
            .collect()
    };
    let mut items = Vec::new();
    for n in ["ana", "ben", "cal"] {
        items.extend(answer_all(&mut p, n, &careful));
    }
    assert!(items.len() > 100, "{}", items.len());
    assert_eq!(
        trick_failures(&p),
        0,
        "a careful annotator picked the trick"
    );
    let mut headline_claims = 0;
    for item in &items {
        assert!(
            item.guidelines.contains("supports the claim"),
            "{}",
            item.guidelines
        );
        assert!(!item.guidelines.contains("refute"), "{}", item.guidelines);
        let trick = trick_sentence(&ok(p.settings()).trick_template, &item.claim);
        let shown: Vec<&str> = item.options.iter().map(|o| o.text.as_str()).collect();
        assert_eq!(shown.iter().filter(|t| **t == trick).count(), 1, "{trick}");
        assert!(sentence_like(&trick), "{trick}");
        headline_claims += usize::from(!item.claim.trim_end().ends_with('.'));
    }
    assert!(headline_claims > 0, "some claims have no final full stop");
}

#[test]
fn a_preset_leaves_a_stance_the_lead_chose() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let (claims, _) = covid_fact(dir.path(), 20);
    let mut p = ok(Project::create(
        &common::location(dir.path(), "c.fdesk"),
        Box::new(clock.clone()),
    ));
    let mut settings = ok(p.settings());
    settings.evidence_stance = Some(EvidenceStance::SupportsOrRefutes);
    ok(p.set_settings(&p.lead(), &settings));
    let req = ImportRequest {
        claims: vec![claims],
        preset: Preset::CovidFact,
        ..Default::default()
    };
    let owner = p.lead();
    let report = ok(import(&mut p, &owner, &req, &mut NoProgress));
    assert_eq!(report.evidence_stance, None);
    assert_eq!(ok(p.settings()).stance(), EvidenceStance::SupportsOrRefutes);
    assert!(ok(p.settings())
        .evidence_guideline()
        .contains("supports or refutes"));
}

#[test]
fn the_stance_cannot_change_under_answers_given_with_the_other_guideline() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    answer_all(&mut p, "ana", &|i: &Item| vec![i.options[0].id.clone()]);
    let mut s = ok(p.settings());
    s.evidence_stance = Some(EvidenceStance::SupportsOrRefutes);
    let refused = p
        .set_settings(&p.lead(), &s)
        .err()
        .map(|e| (e.code, e.message));
    assert!(
        matches!(&refused, Some((ErrorCode::Conflict, m)) if m.contains("evidence answers")),
        "{refused:?}"
    );
    s.evidence_stance = Some(EvidenceStance::Supports);
    s.overlap = 2;
    ok(p.set_settings(&p.lead(), &s));
}

#[test]
fn knowing_the_seed_the_claim_ids_and_every_setting_predicts_the_trick_no_better_than_chance() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 200, &clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let settings = ok(p.settings());
    let mut hits = 0;
    // Per item, the chance of a guess and of each slot holding the trick: one in the
    // item's own count of options (none for a slot it does not have).
    let mut chances = Vec::new();
    let mut slot_chances = vec![Vec::new(); 8];
    let mut at_slot = vec![0usize; 8];
    let items = answer_all(&mut p, "ana", &|i: &Item| vec![i.options[0].id.clone()]);
    assert_eq!(items.len(), 200);
    for item in &items {
        let claim_id: i64 = ok(p.store().read().query_row(
            "SELECT claim_id FROM tasks WHERE id = ?1",
            [item.task_id],
            |r| r.get(0),
        ));
        let trick = trick_option(&p, item).unwrap_or_default();
        let actual = item.options.iter().position(|o| o.id == trick);
        let actual = actual.unwrap_or_else(|| panic!("no trick in {item:?}"));
        at_slot[actual] += 1;
        // The attacker's best rule on today's main: the slot is a function of the seed
        // and the claim id, both in every copy of the settings and every pack.
        let n = item.options.len();
        let guess =
            Seeded::for_purpose(settings.seed, &format!("trick:{claim_id}")).below(n as u64);
        hits += usize::from(guess as usize == actual);
        chances.push(1.0 / n as f64);
        for (slot, c) in slot_chances.iter_mut().enumerate() {
            c.push(if slot < n { 1.0 / n as f64 } else { 0.0 });
        }
    }
    // The secret is drawn anew each run, so each check below may fail by chance: the
    // exact tails, with the test's 5e-7 (1e-6 a CI run, which runs it twice) shared by
    // the guess and the slots it checks.
    let shown = items[0].options.len();
    let alpha = 5e-7 / (1 + shown) as f64;
    let most = chance::bound(&chances, alpha);
    assert!(hits <= most.count, "{hits} of 200 predicted ({most:?})");
    // And the slot really varies: every place is used.
    for (slot, &seen) in at_slot[..shown].iter().enumerate() {
        let fewest = chance::floor(&slot_chances[slot], alpha);
        assert!(
            seen >= fewest.count,
            "slot {slot}: {at_slot:?} ({fewest:?})"
        );
    }
}

#[test]
fn the_document_view_never_shows_the_trick_among_real_sentences() {
    for stance in [EvidenceStance::Supports, EvidenceStance::SupportsOrRefutes] {
        let dir = ok(tempfile::tempdir());
        let clock = ManualClock::new(1_000_000);
        let mut p = varied(dir.path(), 12, &clock);
        let mut s = ok(p.settings());
        s.choose_stance(stance);
        ok(p.set_settings(&p.lead(), &s));
        ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
        ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
        ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
        let items = answer_all(&mut p, "ana", &|i: &Item| vec![i.options[0].id.clone()]);
        assert_eq!(items.len(), 12);
        for item in &items {
            let trick = trick_option(&p, item).unwrap_or_default();
            let trick_text = item
                .options
                .iter()
                .find(|o| o.id == trick)
                .map(|o| o.text.clone())
                .unwrap_or_default();
            assert!(!trick_text.is_empty(), "{stance:?}: no trick in {item:?}");
            // Every real candidate, the trick's neighbours first, shows real sentences only.
            for o in item.options.iter().filter(|o| o.id != trick) {
                let passage = ok(p.passage(&p.who("ana"), item.task_id, &o.id));
                assert!(
                    passage.sentences.iter().all(|x| x.text != trick_text),
                    "{stance:?}: the trick in {passage:?}"
                );
                let hits = common::marked(&passage);
                assert_eq!(hits, [o.text.as_str()]);
            }
            // Under either stance the trick is shown among the real sentences of one of
            // the item's documents, as a candidate is: alone the negation was told apart
            // by its size (a hostile tester's finding), and a real sentence in its own
            // document shared no neighbour with the others (issue 31, item 1).
            let passage = ok(p.passage(&p.who("ana"), item.task_id, &trick));
            assert_eq!(passage.title, None, "{stance:?}");
            assert!(passage.sentences.len() > 1, "{stance:?}: {passage:?}");
            let hits = common::marked(&passage);
            assert_eq!(hits, [trick_text.as_str()], "{stance:?}");
            let options: Vec<&str> = item.options.iter().map(|o| o.text.as_str()).collect();
            // Every sentence of a document that holds one of the options.
            let documents: Vec<String> = {
                let conn = p.store().read();
                let mut stmt = ok(conn.prepare("SELECT document_id, text FROM sentences"));
                let rows = ok(stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?))));
                let all: Vec<(i64, String)> = ok(rows.collect::<Result<_, _>>());
                let docs: Vec<i64> = all
                    .iter()
                    .filter(|(_, t)| options.contains(&t.as_str()))
                    .map(|(d, _)| *d)
                    .collect();
                all.into_iter()
                    .filter(|(d, _)| docs.contains(d))
                    .map(|(_, t)| t)
                    .collect()
            };
            for x in passage.sentences.iter().filter(|x| !x.hit) {
                assert!(
                    !options.contains(&x.text.as_str()),
                    "an option in {passage:?}"
                );
                assert!(
                    documents.contains(&x.text),
                    "{stance:?}: {x:?} is from none of the item's documents"
                );
            }
        }
    }
}

#[test]
fn without_an_unrelated_sentence_the_item_shows_no_trick_and_the_tasks_report_says_so() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    // Every document repeats the others' unrelated sentences word for word, so any of them
    // would also stand in the claim's own document; every other sentence names its town.
    let (mut d, mut c) = (String::new(), String::new());
    for i in 0..4 {
        let text = format!(
            "The harbour of town {i} held {i} ships in 1900. Its lighthouse was built in {}. The mayor of town {i} opened a museum. Fishing declined after the war. A ferry linked town {i} to the island. The river flooded twice. Tourism grew in the 1990s.",
            1800 + i
        );
        d.push_str(&format!(
            "{}\n",
            serde_json::json!({"id": format!("d{i}"), "text": text})
        ));
        let claim = format!("Town {i} had a lighthouse built in {}", 1800 + i);
        c.push_str(&format!(
            "{}\n",
            serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")]})
        ));
    }
    let mut p = imported_lines(dir.path(), &clock, &d, &c);
    let report = ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    assert_eq!(report.without_trick, 4);
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let items = answer_all(&mut p, "ana", &|i: &Item| vec![i.options[0].id.clone()]);
    assert_eq!(items.len(), 4);
    for item in &items {
        let candidates = ok(p.store().candidates(ok(p.store().read().query_row(
            "SELECT claim_id FROM tasks WHERE id = ?1",
            [item.task_id],
            |r| r.get::<_, i64>(0),
        ))));
        assert_eq!(item.options.len(), candidates.len(), "only real candidates");
        assert!(item
            .options
            .iter()
            .all(|o| !o.text.starts_with("It is not true")));
    }
}

#[test]
fn the_default_trick_of_an_arabic_project_is_arabic_like_its_neighbours() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    // Sentences written for this test: a town's port, its lighthouse and its ferry.
    let doc = "بنيت المنارة في المدينة الساحلية عام 1860. كان الميناء يستقبل عشرات السفن كل شهر. ربطت العبارة المدينة بالجزيرة القريبة. تراجع الصيد بعد الحرب. فاض النهر مرتين في القرن الماضي. نمت السياحة في التسعينيات.";
    let claim = "بنيت المنارة في المدينة الساحلية عام 1860";
    let mut p = imported_lines(
        dir.path(),
        &clock,
        &format!("{}\n", serde_json::json!({"id": "d0", "text": doc})),
        &format!(
            "{}\n",
            serde_json::json!({"id": "c0", "claim": claim, "doc_ids": ["d0"], "label": "SUPPORTED"})
        ),
    );
    let mut settings = ok(p.settings());
    settings.choose_stance(EvidenceStance::Supports);
    ok(p.set_settings(&p.lead(), &settings));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    let item = ok(p.next_item(&p.who("ana"), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item"));
    let trick = trick_sentence(&ok(p.settings()).trick_template, &item.claim);
    assert_eq!(
        trick,
        "من غير الصحيح القول إنه بنيت المنارة في المدينة الساحلية عام 1860."
    );
    assert!(
        item.options.iter().any(|o| o.text == trick),
        "{:?}",
        item.options
    );
    for o in &item.options {
        assert!(
            !o.text.chars().any(|c| c.is_ascii_alphabetic()),
            "an option in Latin letters stands out: {:?}",
            o.text
        );
    }
}

/// Regression (issue 37, a chance failure of the untrusted-markup end-to-end test): under
/// the `supports` stance, whose trick is the claim's negation, a passage lost any real
/// sentence that another item's unused sentence trick (chosen for a change of stance)
/// happened to be, so what an annotator read depended on the project's secret. Only the
/// stance that shows sentence tricks leaves them out.
#[test]
fn only_the_stance_that_shows_sentence_tricks_leaves_them_out_of_passages() {
    for stance in [EvidenceStance::Supports, EvidenceStance::SupportsOrRefutes] {
        let dir = ok(tempfile::tempdir());
        let clock = ManualClock::new(1_000_000);
        let mut p = varied(dir.path(), 4, &clock);
        let mut s = ok(p.settings());
        s.choose_stance(stance);
        ok(p.set_settings(&p.lead(), &s));
        ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
        ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
        let items = answer_all(&mut p, "ana", &|i: &Item| vec![i.options[0].id.clone()]);
        let (item, other) = (&items[0], &items[1]);
        let trick = trick_option(&p, item).unwrap_or_default();
        let option = item.options.iter().find(|o| o.id != trick);
        let option = option.unwrap_or_else(|| panic!("no real option in {item:?}"));
        let before = ok(p.passage(&p.who("ana"), item.task_id, &option.id));
        let neighbour = before.sentences.iter().find(|x| !x.hit);
        let neighbour = neighbour.unwrap_or_else(|| panic!("no neighbour in {before:?}"));
        // The neighbour becomes the other item's stored trick, one passages leave out.
        let sentence: i64 = ok(p.store().read().query_row(
            "SELECT id FROM sentences WHERE text = ?1",
            [&neighbour.text],
            |r| r.get(0),
        ));
        let hash = factdesk_store::tricks::text_hash(&neighbour.text) as i64;
        ok(p.store().read().execute(
            "UPDATE task_tricks SET sentence_id = ?1, text_hash = ?2, left_out = 1 WHERE task_id = ?3",
            [sentence, hash, other.task_id],
        ));
        let after = ok(p.passage(&p.who("ana"), item.task_id, &option.id));
        let shown = after.sentences.iter().any(|x| x.text == neighbour.text);
        assert_eq!(
            shown,
            stance == EvidenceStance::Supports,
            "{stance:?}: {:?} in {after:?}",
            neighbour.text
        );
    }
}
