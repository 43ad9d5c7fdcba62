//! Measuring how well the rankers put gold evidence among a claim's top candidates, and
//! building such a test from COVID-Fact.

use crate::dto::{EvalReport, RankerScore};
use crate::rank::{
    rank_lexical, semantic_texts, with_semantic, DocumentSet, RankOptions, RankingOverrides,
    Rankings,
};
use crate::semantic::{Need, SemanticRanker};
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::ranking::{Ranker, RetrievalAtK, CUTOFFS};
use factdesk_core::seeded::Seeded;
use factdesk_semantic::Locations;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, Write};
use std::path::Path;

/// Gold evidence for one claim: `{"claim": "<claim id>", "evidence": ["sentence", ...]}`.
#[derive(Debug, Clone, serde::Deserialize)]
struct Gold {
    claim: String,
    evidence: Vec<String>,
}

fn read_gold(path: &Path) -> Result<Vec<Gold>> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| Error::input(&name, 0, None, format!("cannot open: {e}")))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line =
            line.map_err(|e| Error::input(&name, i as u64 + 1, None, format!("cannot read: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let gold: Gold = serde_json::from_str(&line).map_err(|e| {
            Error::input(
                &name,
                i as u64 + 1,
                None,
                format!("expected {{\"claim\", \"evidence\"}}: {e}"),
            )
        })?;
        out.push(gold);
    }
    Ok(out)
}

impl Project {
    /// Hit, recall, precision, F1, MRR and MAP at 1/3/5 of every ranker against gold
    /// evidence sentences (matched by their text among the claim's documents' sentences),
    /// with the project's ranking settings, without the semantic ranker.
    pub fn eval_ranking(&self, lead: &Lead, gold_file: &Path) -> Result<EvalReport> {
        self.acting_lead(lead)?;
        let options = RankOptions::of(&self.settings()?.ranking);
        self.eval_with(lead, gold_file, options, None)
    }

    /// [`Project::eval_ranking`] with some ranking settings overridden for this run
    /// (BM25's `k1` and `b`, Jaccard's stemming, the model's folder), and the semantic
    /// ranker too, inside `fused` and on its own, when `semantic` asks for it, a model
    /// folder is named (which must then hold one) or the project's `ranking.semantic` is
    /// on; the model is then required. The embeddings it computes are cached in the
    /// project when the project is writable.
    pub fn eval_ranking_with(
        &mut self,
        lead: &Lead,
        gold_file: &Path,
        semantic: bool,
        overrides: &RankingOverrides,
    ) -> Result<EvalReport> {
        self.acting_lead(lead)?;
        let mut ranking = overrides.apply(self.settings()?.ranking)?;
        let model = overrides.model.as_deref();
        let semantic = if semantic || model.is_some() || ranking.semantic {
            ranking.semantic = true;
            crate::semantic::semantic_for(&ranking, model, Need::Required, &Locations::from_env())?
        } else {
            None
        };
        let report = self.eval_with(
            lead,
            gold_file,
            RankOptions::of(&ranking),
            semantic.as_ref(),
        )?;
        if let Some(model) = &semantic {
            if self.store.require_writable().is_ok() {
                let tx = self.store.transaction()?;
                model.save(&tx)?;
                tx.commit()?;
            }
        }
        Ok(report)
    }

    /// Ranks every gold claim with the lexical rankers, then (with a model) embeds what
    /// the semantic ranker needs for all of them in one call, then scores.
    fn eval_with(
        &self,
        lead: &Lead,
        gold_file: &Path,
        options: RankOptions,
        semantic: Option<&SemanticRanker>,
    ) -> Result<EvalReport> {
        let golds = read_gold(gold_file)?;
        let mut bm25 = self.search_index(lead)?.bm25_corpus_with(options.bm25)?;
        let mut ranked: Vec<(String, DocumentSet, HashSet<i64>, Rankings)> = Vec::new();
        for gold in &golds {
            let claim = self.store.claim_by_ext_id(&gold.claim)?.ok_or_else(|| {
                Error::new(
                    ErrorCode::NotFound,
                    format!(
                        "gold file names claim {:?}, which the project does not have",
                        gold.claim
                    ),
                )
            })?;
            let docs = DocumentSet::for_claim(self.store.read(), claim.id, None)?;
            let wanted: HashSet<&str> = gold.evidence.iter().map(|s| s.trim()).collect();
            let relevant: HashSet<i64> = docs
                .sentences()
                .filter(|(_, t)| wanted.contains(t.trim()))
                .map(|(id, _)| *id)
                .collect();
            if relevant.is_empty() {
                continue;
            }
            let rankings = rank_lexical(&mut bm25, &claim.text, &docs, options)?;
            ranked.push((claim.text, docs, relevant, rankings));
        }
        if let Some(model) = semantic {
            let texts: Vec<&str> = ranked
                .iter()
                .flat_map(|(claim, docs, _, r)| semantic_texts(claim, r, docs, model.depth()))
                .collect();
            model.prefill(self.store.read(), texts.iter().copied())?;
            model.vectors(&texts)?;
            for (claim, docs, _, rankings) in &mut ranked {
                *rankings = with_semantic(std::mem::take(rankings), claim, docs, model)?;
            }
        }
        // Each ranker's figures per claim, one list per cut-off in `CUTOFFS` order.
        let mut per_claim: BTreeMap<&'static str, [Vec<RetrievalAtK>; 4]> = BTreeMap::new();
        for (_, _, relevant, rankings) in &ranked {
            for ranker in rankers(semantic.is_some()) {
                let is_gold: Vec<bool> = rankings
                    .get(ranker)
                    .iter()
                    .take(CUTOFFS[CUTOFFS.len() - 1])
                    .map(|s| relevant.contains(&s.sentence_id))
                    .collect();
                let lists = per_claim.entry(ranker.as_str()).or_default();
                for (list, k) in lists.iter_mut().zip(CUTOFFS) {
                    list.push(RetrievalAtK::of(&is_gold, relevant.len(), k));
                }
            }
        }
        let claims = ranked.len() as u64;
        let rankers = rankers(semantic.is_some())
            .map(|r| {
                let lists = per_claim.remove(r.as_str()).unwrap_or_default();
                score(r.as_str(), lists.each_ref().map(|l| RetrievalAtK::mean(l)))
            })
            .collect();
        Ok(EvalReport {
            claims,
            rankers,
            semantic_model: semantic.map(|m| m.model_id().to_string()),
        })
    }
}

/// The rankers an evaluation reports: the semantic one only when its model is loaded.
fn rankers(semantic: bool) -> impl Iterator<Item = Ranker> {
    Ranker::ALL
        .into_iter()
        .filter(move |&r| semantic || r != Ranker::Semantic)
}

/// A ranker's mean figures at k = 1, 2, 3 and 5 as the report carries them.
fn score(ranker: &str, [one, two, three, five]: [RetrievalAtK; 4]) -> RankerScore {
    RankerScore {
        ranker: ranker.to_string(),
        hit_at_1: one.hit,
        hit_at_2: two.hit,
        hit_at_3: three.hit,
        hit_at_5: five.hit,
        recall_at_1: one.recall,
        recall_at_2: two.recall,
        recall_at_3: three.recall,
        recall_at_5: five.recall,
        precision_at_1: one.precision,
        precision_at_2: two.precision,
        precision_at_3: three.precision,
        precision_at_5: five.precision,
        f1_at_1: one.f1,
        f1_at_2: two.f1,
        f1_at_3: three.f1,
        f1_at_5: five.f1,
        mrr_at_1: one.mrr,
        mrr_at_2: two.mrr,
        mrr_at_3: three.mrr,
        mrr_at_5: five.mrr,
        map_at_1: one.map,
        map_at_2: two.map,
        map_at_3: three.map,
        map_at_5: five.map,
    }
}

/// Writes a ranking test set made from COVID-Fact into `out`: for each SUPPORTED claim,
/// a document of its evidence sentences mixed at seeded positions with about
/// `distractors` sentences from other claims of the same flair; `claims.jsonl`,
/// `documents.jsonl` and `gold.jsonl`. Returns the number of claims.
pub fn covid_fact_eval_set(
    covidfact: &Path,
    out: &Path,
    distractors: usize,
    seed: u64,
) -> Result<u64> {
    let name = covidfact.display().to_string();
    let text = std::fs::read_to_string(covidfact)
        .map_err(|e| Error::input(&name, 0, None, format!("cannot read: {e}")))?;
    let mut rows: Vec<Value> = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        rows.push(
            serde_json::from_str(line).map_err(|e| {
                Error::input(&name, i as u64 + 1, None, format!("invalid JSON: {e}"))
            })?,
        );
    }
    let evidence = |r: &Value| -> Vec<String> {
        r["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|s| s.trim().to_string())
            .collect()
    };
    // Distractors come from other claims' evidence of the same flair, each sentence once.
    let mut pool: HashMap<String, Vec<String>> = HashMap::new();
    let mut seen = HashSet::new();
    for r in &rows {
        let flair = r["flair"].as_str().unwrap_or("").to_string();
        for s in evidence(r) {
            if seen.insert(s.clone()) {
                pool.entry(flair.clone()).or_default().push(s);
            }
        }
    }
    // The three files appear together, and never over the input.
    let names = ["claims.jsonl", "documents.jsonl", "gold.jsonl"];
    let inputs = crate::output::Inputs::default().file(covidfact);
    for name in names {
        crate::output::check(&out.join(name), &inputs)?;
    }
    let (mut claims_w, mut docs_w, mut gold_w) = (Vec::new(), Vec::new(), Vec::new());
    let mut rng = Seeded::for_purpose(seed, "covid-fact-eval-set");
    let mut n = 0u64;
    for r in rows.iter().filter(|r| r["label"] == "SUPPORTED") {
        let own = evidence(r);
        if own.is_empty() {
            continue;
        }
        let own_set: HashSet<&String> = own.iter().collect();
        let flair = r["flair"].as_str().unwrap_or("");
        let mut others: Vec<&String> = pool
            .get(flair)
            .into_iter()
            .flatten()
            .filter(|s| !own_set.contains(s))
            .collect();
        rng.shuffle(&mut others);
        let mut sentences: Vec<&String> = others
            .into_iter()
            .take(distractors)
            .chain(own.iter())
            .collect();
        rng.shuffle(&mut sentences);
        n += 1;
        let lines: Vec<String> = sentences
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{i}\t{s}"))
            .collect();
        let doc = json!({"id": format!("eval-doc-{n}"), "text": sentences.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "), "lines": lines.join("\n")});
        let claim = json!({"id": format!("eval-{n}"), "claim": r["claim"], "label": "SUPPORTED", "doc_ids": [format!("eval-doc-{n}")], "metadata": {"flair": flair}});
        let gold = json!({"claim": format!("eval-{n}"), "evidence": own});
        for (w, v) in [
            (&mut claims_w, claim),
            (&mut docs_w, doc),
            (&mut gold_w, gold),
        ] {
            writeln!(w, "{v}").map_err(|e| Error::io("cannot write the evaluation set", &e))?;
        }
    }
    let mut outputs = crate::output::Outputs::new(inputs);
    for (name, bytes) in names.into_iter().zip([claims_w, docs_w, gold_w]) {
        outputs
            .file_in_new_folder(&out.join(name))?
            .write_all(&bytes)
            .map_err(|e| Error::io(&format!("cannot write {name}"), &e))?;
    }
    outputs.commit()?;
    Ok(n)
}
