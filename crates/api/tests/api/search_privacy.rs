//! An annotator's search and claim view never show another annotator's written
//! refutation, nor the uuid of the answer that wrote one, nor which document a sentence
//! comes from; a lead's show everything.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::dto::SearchHitKind;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};

use crate::common;
use common::Acting;
use common::{project, reference_of};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// `writer` writes a refutation of the next claim they are served, naming `word`;
/// returns the written claim's row id and stored ext id.
fn write(p: &mut Project, writer: &str, word: &str) -> (i64, String) {
    let item = must(p.next_item(&p.who(writer), TaskKind::Refute))
        .item
        .unwrap_or_else(|| panic!("a refute item"));
    must(
        p.submit(
            &p.who(writer),
            &Answer {
                task_id: item.task_id,
                text: Some(
                    item.claim
                        .replace("lighthouse", &format!("{word} defences")),
                ),
                ..Default::default()
            },
        ),
    );
    must(p.store().read().query_row(
        "SELECT c.id, c.ext_id FROM claims c JOIN annotations a ON a.id = c.written_in
         WHERE a.task_id = ?1 ORDER BY c.id DESC LIMIT 1",
        [item.task_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    ))
}

/// The written (or model) refutations `who` finds: each one's text and own id as shown.
fn written_hits(p: &Project, who: &str, query: &str) -> Vec<(String, String)> {
    let actor = if who == "lead" {
        (*p.lead()).clone()
    } else {
        p.who(who)
    };
    must(p.search(&actor, query, 20))
        .into_iter()
        .filter(|h| h.kind == SearchHitKind::Claim && h.text.contains("defences"))
        .map(|h| (h.text, h.ext_id))
        .collect()
}

/// Claim `id`'s text.
fn text_of(p: &Project, id: i64) -> String {
    must(
        p.store()
            .read()
            .query_row("SELECT text FROM claims WHERE id = ?1", [id], |r| r.get(0)),
    )
}

#[test]
fn an_annotator_finds_only_their_own_written_refutations_and_never_an_answer_uuid() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 4, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Refute, Some(2)));
    for n in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let (anas, anas_ext) = write(&mut p, "ana", "Sedgeford");
    let (bens, _) = write(&mut p, "ben", "Holloway");
    must(p.reindex(&p.lead()));
    let uuid = anas_ext.rsplit('/').next().unwrap_or_default().to_string();
    assert!(
        uuid.len() > 8,
        "the stored id carries the answer's uuid: {anas_ext}"
    );

    let (anas_text, bens_text) = (text_of(&p, anas), text_of(&p, bens));
    let bens_view = written_hits(&p, "ben", "Sedgeford defences");
    assert!(
        bens_view.iter().all(|(text, _)| *text != anas_text),
        "ben found ana's refutation: {bens_view:?}"
    );
    let anas_reference = reference_of(&p, "ana", anas).unwrap_or_default();
    for asked in [anas_reference.clone(), format!("#{anas}")] {
        let err = p.claim_view(&p.who("ben"), &asked).err();
        assert_eq!(err.map(|e| e.code), Some(ErrorCode::NotFound), "{asked}");
    }
    let bens_own = written_hits(&p, "ben", "Holloway defences");
    assert!(
        bens_own.iter().any(|(text, _)| *text == bens_text),
        "{bens_own:?}"
    );

    let anas_view = written_hits(&p, "ana", "Sedgeford defences");
    assert!(
        anas_view.iter().any(|(text, _)| *text == anas_text),
        "{anas_view:?}"
    );
    assert!(anas_view.iter().all(|(_, ext)| !ext.contains(&uuid)));
    let seen = must(p.claim_view(&p.who("ana"), &anas_reference));
    assert!(!seen.ext_id.contains(&uuid), "{}", seen.ext_id);

    let leads = written_hits(&p, "lead", "defences");
    assert!(leads
        .iter()
        .any(|(text, ext)| *text == anas_text && ext.contains(&uuid)));
    assert!(leads.iter().any(|(text, _)| *text == bens_text));
}

#[test]
fn an_annotators_sentence_hits_name_no_document() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = project(dir.path(), 3, &clock);
    let mut p = p;
    must(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    must(p.reindex(&p.lead()));
    let hits = must(p.search(&p.who("ana"), "ferry linked", 20));
    let sentences: Vec<_> = (hits.iter())
        .filter(|h| h.kind == SearchHitKind::Sentence)
        .collect();
    assert!(!sentences.is_empty());
    for h in sentences {
        assert_eq!(h.document_id, None);
        assert_eq!(h.id, 0);
        assert!(h.ext_id.is_empty(), "{}", h.ext_id);
    }
    let leads = must(p.search(&p.lead(), "ferry linked", 20));
    assert!(leads.iter().any(|h| h.kind == SearchHitKind::Sentence
        && h.document_id.is_some()
        && !h.ext_id.is_empty()));
}

#[test]
fn an_annotator_never_finds_a_models_counter_claim_or_its_id_and_a_lead_does() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 4, &clock);
    must(p.add_annotator(&p.lead(), "lead", Role::Lead));
    must(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let path = dir.path().join("predictions.jsonl");
    let line = serde_json::json!({"claim_id": "c1", "model": "m", "refuted": "Town 1 had Quarrington defences built in 1801"});
    must(std::fs::write(&path, line.to_string()));
    must(p.import_predictions(&p.lead_named("lead"), &path, None));
    must(p.reindex(&p.lead()));
    let counter: i64 = must(p.store().read().query_row(
        "SELECT id FROM claims WHERE ext_id LIKE 'c1/model/%'",
        [],
        |r| r.get(0),
    ));

    let counter_text = text_of(&p, counter);
    for query in ["Quarrington defences", &format!("#{counter}")] {
        let hits = must(p.search(&p.who("ana"), query, 20));
        assert!(
            hits.iter()
                .all(|h| h.text != counter_text && !h.ext_id.contains("/model/")),
            "{query}: {hits:?}"
        );
    }
    let err = p.claim_view(&p.who("ana"), &format!("#{counter}")).err();
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::NotFound));
    // ana still verifies it, from a screen that names no id.
    let item = must(p.next_item(&p.who("ana"), TaskKind::Verify))
        .item
        .unwrap_or_else(|| panic!("no verify item"));
    assert!(!must(serde_json::to_string(&item)).contains("/model/"));

    let leads = written_hits(&p, "lead", "Quarrington defences");
    assert!(
        leads
            .iter()
            .any(|(text, ext)| *text == counter_text && ext.starts_with("c1/model/")),
        "{leads:?}"
    );
    assert!(must(p.claim_view(&p.lead(), &format!("#{counter}")))
        .ext_id
        .starts_with("c1/model/"));
}
