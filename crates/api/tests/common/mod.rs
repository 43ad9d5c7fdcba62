//! Projects and items shared by the api's integration tests.

#![allow(dead_code)] // each test binary uses its own part of this module

use factdesk_api::annotate::Item;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::settings::trick_sentence;
use factdesk_api::{ManualClock, NoProgress, Project};
use std::io::Write;

/// A project of `n` claims, each with a document of eight sentences that ranks one of
/// them (the lighthouse) first.
pub fn project(dir: &std::path::Path, n: usize, clock: &ManualClock) -> Project {
    let docs = dir.join("docs.jsonl");
    let claims = dir.join("claims.jsonl");
    let mut d = std::fs::File::create(&docs).unwrap_or_else(|e| panic!("{e}"));
    let mut c = std::fs::File::create(&claims).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..n {
        let text = format!(
            "The harbour of town {i} held {i} ships in 1900. Its lighthouse was built in {}. The mayor of town {i} opened a museum. Fishing declined after the war. A ferry linked town {i} to the island. The river flooded twice. Tourism grew in the 1990s. The port closed in {}.",
            1800 + i,
            1950 + i
        );
        let doc = serde_json::json!({"id": format!("d{i}"), "text": text});
        writeln!(d, "{doc}").unwrap_or_else(|e| panic!("{e}"));
        let claim = format!("Town {i} had a lighthouse built in {}", 1800 + i);
        let row = serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")], "label": "SUPPORTED"});
        writeln!(c, "{row}").unwrap_or_else(|e| panic!("{e}"));
    }
    let mut p = Project::create(&dir.join("p.fdesk"), Box::new(clock.clone()))
        .unwrap_or_else(|e| panic!("{e}"));
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    import(&mut p, &req, &mut NoProgress).unwrap_or_else(|e| panic!("{e}"));
    p
}

/// The option id of the trick sentence in an evidence item, found by its text as only a
/// test playing the annotator can.
pub fn trick_option(p: &Project, item: &Item) -> Option<String> {
    let template = p
        .settings()
        .unwrap_or_else(|e| panic!("{e}"))
        .trick_template;
    let trick = trick_sentence(&template, &item.claim);
    item.options
        .iter()
        .find(|o| o.text == trick)
        .map(|o| o.id.clone())
}
