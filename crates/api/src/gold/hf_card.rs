//! The README.md of a Hugging Face dataset folder: the YAML header the Hub and
//! `datasets` read, then the dataset card (counts, agreement, who counted, dropped claims).

use super::card_text::{cell, Pseudonyms};
use super::{ExportPreview, GoldRequest};
use crate::agreement::AgreementReport;
use crate::tasks::TaskKind;
use std::fmt::Write;

/// A split as written: its name, lines, and the size of its Parquet file.
pub(crate) struct Split {
    pub name: String,
    pub examples: u64,
    pub bytes: u64,
}

pub(crate) struct Card<'a> {
    pub name: &'a str,
    pub license: &'a str,
    /// The splits written.
    pub splits: &'a [Split],
    /// Splits asked for that got no line.
    pub empty: Vec<String>,
    pub preview: &'a ExportPreview,
    pub req: &'a GoldRequest,
    pub agreement: &'a [(TaskKind, AgreementReport)],
}

/// The Hub's size category of a dataset of `n` examples.
pub(crate) fn size_category(n: u64) -> &'static str {
    match n {
        0..=999 => "n<1K",
        1_000..=9_999 => "1K<n<10K",
        10_000..=99_999 => "10K<n<100K",
        100_000..=999_999 => "100K<n<1M",
        1_000_000..=9_999_999 => "1M<n<10M",
        10_000_000..=99_999_999 => "10M<n<100M",
        100_000_000..=999_999_999 => "100M<n<1B",
        _ => "n>1B",
    }
}

/// The features of a gold line, as the Hub's `dataset_info` YAML lists them.
const FEATURES: &str = "  features:
  - name: id
    dtype: string
  - name: claim
    dtype: string
  - name: label
    dtype: string
  - name: evidence
    list:
    - name: document_id
      dtype: string
    - name: sentence_index
      dtype: int64
    - name: text
      dtype: string
  - name: context
    dtype: string
  - name: source_url
    dtype: string
  - name: parent_id
    dtype: string
  - name: split
    dtype: string
  - name: agreement
    struct:
    - name: answers
      dtype: int64
    - name: share_agreeing
      dtype: float64
  - name: provenance
    struct:
    - name: method
      dtype: string
    - name: lead
      dtype: string
    - name: at
      dtype: int64
    - name: reason
      dtype: string
    - name: taken_from
      dtype: string
";

/// A YAML double-quoted scalar.
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

impl Card<'_> {
    pub(crate) fn render(&self) -> String {
        let p = self.preview;
        let mut s = String::from("---\n");
        let _ = writeln!(s, "pretty_name: {}", quoted(self.name));
        // Quoted: an identifier such as `null`, `true` or `1.0` is still a string.
        let _ = writeln!(s, "license: {}", quoted(self.license));
        if self.license == "other" {
            let _ = writeln!(s, "license_name: unspecified");
        }
        s.push_str("task_categories:\n- text-classification\ntask_ids:\n- fact-checking\n");
        let _ = writeln!(s, "size_categories:\n- {}", size_category(p.lines));
        s.push_str("configs:\n- config_name: default\n  data_files:\n");
        for Split { name, .. } in self.splits {
            let _ = writeln!(s, "  - split: {name}\n    path: data/{name}.parquet");
        }
        s.push_str("dataset_info:\n");
        s.push_str(FEATURES);
        s.push_str("  splits:\n");
        // `datasets` reads a split's entry only when it has all three fields.
        for Split {
            name,
            examples,
            bytes,
        } in self.splits
        {
            let _ = writeln!(
                s,
                "  - name: {name}\n    num_bytes: {bytes}\n    num_examples: {examples}"
            );
        }
        s.push_str("---\n\n");
        let _ = writeln!(s, "{}\n", super::hf_folder::MARK);
        let _ = writeln!(s, "# {}\n", cell(self.name));
        let _ = writeln!(
            s,
            "Fact-checking claims with their gold label and evidence sentences, exported by Factdesk. Each line has the claim, its label (`SUPPORTED`, `REFUTED`, `NOT ENOUGH INFO`), the gold evidence sentences (document id, sentence index, text), the claim's context and source, the claim a refutation refutes (`parent_id`), how many counted answers decided it and the share agreeing, and whether a lead decided it (`provenance`).\n"
        );
        if self.license == "other" {
            s.push_str("**License:** not chosen at export (`other`). State the terms here before publishing, or export again with `--license` (for example `cc-by-4.0`).\n\n");
        }
        s.push_str("## Files and splits\n\nEach split is in `data/<split>.parquet` (what `datasets.load_dataset` reads, per the `configs` above) and, with the same rows, `data/<split>.jsonl`.\n\n");
        let ratios: Vec<String> = self.req.splits.iter().map(u32::to_string).collect();
        let _ = writeln!(
            s,
            "Splits come from a hash of each root claim's id and the seed {} scaled into the ratios {}, so a claim and its refutations are always in the same split and exporting again after more work moves no claim. `dev` is named `validation`.\n",
            self.req.seed,
            ratios.join(",")
        );
        s.push_str("| split | claims |\n|---|---|\n");
        for Split { name, examples, .. } in self.splits {
            let _ = writeln!(s, "| {name} | {examples} |");
        }
        for name in &self.empty {
            let _ = writeln!(s, "| {name} | 0 (no file written) |");
        }
        for w in &p.split_warnings {
            let _ = writeln!(s, "\n**Warning:** {w}");
        }
        s.push_str("\n## Labels\n\n| label | claims |\n|---|---|\n");
        for (label, n) in &p.per_label {
            let _ = writeln!(s, "| {label} | {n} |");
        }
        self.agreement_section(&mut s);
        let who = Pseudonyms::new(&p.counted_annotators, &p.excluded_annotators);
        let _ = writeln!(
            s,
            "\n## Annotators\n\nAnnotators are numbered, not named.\n\n- Aggregation: {}\n- Counted: {}\n- Left out (flagged for failing trick sentences): {}\n- Answers rejected for picking the trick sentence (kept, counted for nothing): {}",
            p.method.as_str(),
            who.list(&p.counted_annotators),
            who.list(&p.excluded_annotators),
            p.rejected_answers
        );
        if let Some(m) = p.mean_share_agreeing {
            let _ = writeln!(
                s,
                "- Mean share of counted answers agreeing with the gold: {m:.3}"
            );
        }
        super::export_card::choices(&mut s, p);
        super::export_card::under_annotated(&mut s, p);
        let _ = writeln!(s, "\n## Dropped claims ({})\n", p.dropped.len());
        if p.dropped.is_empty() {
            s.push_str("None.\n");
        } else {
            s.push_str("| id | reason | claim |\n|---|---|---|\n");
            for d in &p.dropped {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} |",
                    cell(&d.id),
                    cell(&d.reason),
                    cell(&d.claim)
                );
            }
        }
        s
    }

    fn agreement_section(&self, s: &mut String) {
        s.push_str("\n## Agreement between annotators\n\n");
        if self.agreement.is_empty() {
            s.push_str("No answers to compare.\n");
            return;
        }
        s.push_str("Evidence is scored per (claim, candidate sentence), selected or not; undefined values say why. Intervals are 95% bootstrap intervals over units; a kappa's or an alpha's Landis–Koch reading is given where the interval stays within one band, and \"uncertain\" where it does not.\n\n| task kind | units | annotators | statistic | value |\n|---|---|---|---|---|\n");
        for (kind, r) in self.agreement {
            for (metric, v) in &r.metrics {
                let value = match (v.value, &v.reason, v.ci95) {
                    (Some(x), _, Some((lo, hi))) => match v.reading {
                        Some(r) => format!("{x:.3} [{lo:.3}, {hi:.3}] {r}"),
                        None => format!("{x:.3} [{lo:.3}, {hi:.3}]"),
                    },
                    (Some(x), _, None) => format!("{x:.3}"),
                    (None, Some(why), _) => format!("undefined: {}", cell(why)),
                    (None, None, _) => "undefined".into(),
                };
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {metric} | {value} |",
                    kind.as_str(),
                    r.units,
                    r.annotators
                );
            }
        }
    }
}
