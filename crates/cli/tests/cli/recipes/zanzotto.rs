//! zanzotto: WikiFactCheck's claims and their rewritten versions as S1/S2 pairs,
//! labelled entailment, contradiction or unknown by two annotators, noisy pairs marked.

use super::{add, answer_all, close, cohen, fleiss, init, json_of, read_jsonl, s};
use crate::{data, factdesk, ok};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// What ana and ben answer on their `i`th item (by task id): ben slips every fourth
/// relation, and ana calls every seventh pair noisy.
fn answers(who: &str, task: i64) -> Value {
    let relation = match task % 5 {
        0 => "entailment",
        1..=3 => "contradiction",
        _ => "unknown",
    };
    let relation = match who {
        "ben" if task % 4 == 0 => "unknown",
        _ => relation,
    };
    let noise = if who == "ana" && task % 7 == 0 {
        "noisy"
    } else {
        "clean"
    };
    json!({"relation": relation, "noise": noise})
}

#[test]
fn zanzotto_from_the_recipe_to_gold_with_its_figures_computed_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // Forty claims with their refuted version, in the dev split's own TSV form.
    let text = std::fs::read_to_string(data("wikifactcheck_dev.tsv")).unwrap_or_default();
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let kept: Vec<&str> = lines.take(40).collect();
    let tsv = dir.path().join("pairs.tsv");
    std::fs::write(&tsv, format!("{header}\n{}\n", kept.join("\n")))
        .unwrap_or_else(|e| panic!("{e}"));

    let p = init(dir.path(), "zanzotto");
    let settings = json_of(&["settings", &s(&p)]);
    assert_eq!(settings["overlap"], 2);
    assert_eq!(settings["design"]["questions"][0]["id"], "relation");
    ok([
        "import",
        &s(&p),
        &s(&tsv),
        "--preset",
        "generic",
        "--map",
        "text_a=claim",
        "--map",
        "text_b=refuted",
    ]);
    ok(["tasks", &s(&p), "--kind", "design", "--overlap", "2"]);
    add(&p, &["ana", "ben"]);

    // The item shows the pair and asks the recipe's questions, the comment last.
    let first = json_of(&["next", &s(&p), "--as", "ana", "--task", "design", "--json"]);
    let item = &first["item"];
    assert_eq!(item["shows"], "pair");
    let ids: Vec<&str> = item["questions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|q| q["id"].as_str())
        .collect();
    assert_eq!(ids, ["relation", "noise", "comment"]);
    let columns: Vec<&str> = header.split('\t').collect();
    let at = |name: &str| columns.iter().position(|c| *c == name).unwrap_or(0);
    let row = kept
        .iter()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|r| r[at("claim")] == item["claim"].as_str().unwrap_or_default())
        .unwrap_or_else(|| panic!("the item's first text is no claim of the file: {item}"));
    assert_eq!(item["text_b"], row[at("refuted")]);

    // A label the question lacks, or a field of another kind, is refused by name.
    let task = item["task_id"].clone();
    let (taken, said) = crate::try_submit(
        &p,
        "ana",
        &[json!({"task_id": task, "answers": {"relation": "maybe", "noise": "clean"}})],
    );
    assert!(
        !taken && said.contains("has no label") && said.contains("maybe"),
        "{said}"
    );
    let (taken, said) =
        crate::try_submit(&p, "ana", &[json!({"task_id": task, "label": "REFUTED"})]);
    assert!(!taken && said.contains("label does not belong"), "{said}");

    let mut given: BTreeMap<i64, BTreeMap<&str, Value>> = BTreeMap::new();
    for who in ["ana", "ben"] {
        for (item, a) in answer_all(&p, who, "design", |item| {
            answers(who, item["task_id"].as_i64().unwrap_or(0))
        }) {
            given
                .entry(item["task_id"].as_i64().unwrap_or(0))
                .or_default()
                .insert(who, a);
        }
    }
    assert_eq!(given.len(), 40);
    assert!(given.values().all(|g| g.len() == 2));

    // Once answered, the questions cannot change; a guideline can.
    let mut changed = settings["design"].clone();
    changed["questions"][0]["labels"] = json!(["entailment", "contradiction"]);
    let refused = factdesk(["settings", &s(&p), "--set", &format!("design={changed}")]);
    assert!(!refused.status.success());
    let mut reworded = settings["design"].clone();
    reworded["questions"][0]["guideline"] = json!("Read both sentences.");
    ok(["settings", &s(&p), "--set", &format!("design={reworded}")]);

    // Cohen's and Fleiss' kappa per question, computed again from the answers given.
    let agreement = super::design_agreement(&p);
    assert_eq!(agreement["design"], "revision-pairs");
    for (i, q) in ["relation", "noise"].iter().enumerate() {
        let report = &agreement["questions"][i];
        assert_eq!(report["question"], *q);
        let pairs: Vec<(String, String)> = given
            .values()
            .map(|g| {
                (
                    g["ana"][q].as_str().unwrap_or_default().to_string(),
                    g["ben"][q].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let units: Vec<Vec<String>> = pairs
            .iter()
            .map(|(a, b)| vec![a.clone(), b.clone()])
            .collect();
        let theirs = &report["report"]["metrics"];
        close(
            cohen(&pairs),
            theirs["cohen_kappa"]["value"].as_f64().unwrap_or(f64::NAN),
            q,
        );
        close(
            fleiss(&units),
            theirs["fleiss_kappa"]["value"].as_f64().unwrap_or(f64::NAN),
            q,
        );
        // Unordered labels: no statistic of distances between them.
        assert!(theirs.get("cohen_kappa_linear").is_none(), "{theirs}");
    }

    // Gold: a pair both annotators labelled alike on both questions; the others wait
    // for the lead, who settles one naming a category.
    let out = dir.path().join("gold.jsonl");
    ok(["export", &s(&p), "--design", "--out", &s(&out)]);
    let gold = read_jsonl(&out);
    let agreed = |g: &BTreeMap<&str, Value>| g["ana"] == g["ben"];
    assert_eq!(gold.len(), given.values().filter(|g| agreed(g)).count());
    let by_text: BTreeMap<&str, &Value> = gold
        .iter()
        .map(|l| (l["text_a"].as_str().unwrap_or_default(), l))
        .collect();
    assert_eq!(by_text.len(), gold.len());
    for line in &gold {
        assert_eq!(
            line["answers"]["relation"]["settled"], "unanimous",
            "{line}"
        );
        assert_eq!(line["answers"]["relation"]["agreeing"], 2, "{line}");
    }
    let split = given
        .iter()
        .find(|(_, g)| !agreed(g))
        .map(|(t, _)| *t)
        .unwrap_or(0);
    ok([
        "adjudicate",
        &s(&p),
        "--decide",
        &split.to_string(),
        "--take",
        "ben",
        "--category",
        "annotator slip",
    ]);
    ok(["export", &s(&p), "--design", "--out", &s(&out), "--force"]);
    let gold = read_jsonl(&out);
    let decided: Vec<&Value> = gold
        .iter()
        .filter(|l| l["category"] == "annotator slip")
        .collect();
    assert_eq!(decided.len(), 1);
    assert_eq!(decided[0]["answers"]["relation"]["settled"], "decision");
    assert_eq!(
        decided[0]["answers"]["relation"]["value"],
        given[&split]["ben"]["relation"]
    );
    let card = std::fs::read_to_string(dir.path().join("gold.card.md")).unwrap_or_default();
    for wanted in [
        "Set up by the recipe `zanzotto`",
        "| relation | choice | entailment, contradiction, unknown | yes |",
        "## Word overlap by gold label",
        "## Held back",
    ] {
        assert!(card.contains(wanted), "{wanted:?} not in the card:\n{card}");
    }
}
