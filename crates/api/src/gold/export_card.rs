//! The dataset card written beside a gold file: counts, agreement, method, drops. It
//! names no annotator (they are numbered) and keeps imported text as text.

use super::card_text::{cell, Pseudonyms};
use super::{ExportFormat, ExportPreview, GoldRequest};
use std::fmt::Write;

/// The card's Markdown.
pub(crate) fn card(p: &ExportPreview, req: &GoldRequest, format: ExportFormat) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Gold dataset card\n");
    let _ = writeln!(
        s,
        "- Claims: {}\n- Format: {}\n- Aggregation: {}\n- Splits: {} (seed {}), by a hash of each root claim's id, so a claim and its refutations share a split",
        p.lines,
        match format {
            ExportFormat::Factdesk => "factdesk",
            ExportFormat::Fever => "fever",
        },
        p.method.as_str(),
        req.splits
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(","),
        req.seed
    );
    let who = Pseudonyms::new(&p.counted_annotators, &p.excluded_annotators);
    let _ = writeln!(
        s,
        "- Annotators counted: {}\n- Annotators left out (flagged for failing trick sentences): {}",
        who.list(&p.counted_annotators),
        who.list(&p.excluded_annotators)
    );
    let _ = writeln!(
        s,
        "- Answers rejected because they picked the trick sentence (kept, counted for nothing): {}",
        p.rejected_answers
    );
    if let Some(m) = p.mean_share_agreeing {
        let _ = writeln!(
            s,
            "- Mean share of counted answers agreeing with the gold: {m:.3}"
        );
    }
    choices(&mut s, p);
    let _ = writeln!(s, "\n## Claims per label\n\n| label | claims |\n|---|---|");
    for (label, n) in &p.per_label {
        let _ = writeln!(s, "| {label} | {n} |");
    }
    let _ = writeln!(s, "\n## Claims per split\n\n| split | claims |\n|---|---|");
    for (split, n) in &p.per_split {
        let _ = writeln!(s, "| {split} | {n} |");
    }
    for w in &p.split_warnings {
        let _ = writeln!(s, "\n**Warning:** {w}");
    }
    let _ = writeln!(
        s,
        "\n## Written refutations\n\nOnly current refutations that are accepted, or written by a qualified writer and so needing no review, are verified and exported.\n\n| state | refutations |\n|---|---|"
    );
    for (state, n) in &p.refutations {
        let _ = writeln!(s, "| {} | {n} |", state.replace('_', " "));
    }
    if !p.accuracy.is_empty() {
        let _ = writeln!(
            s,
            "\n## Estimated annotator accuracy (Dawid-Skene)\n\n| task kind | annotator | accuracy |\n|---|---|---|"
        );
        for (kind, by) in &p.accuracy {
            for (name, a) in by {
                let _ = writeln!(s, "| {kind} | {} | {a:.3} |", who.of(name));
            }
        }
    }
    under_annotated(&mut s, p);
    let _ = writeln!(s, "\n## Dropped claims ({})\n", p.dropped.len());
    if !p.dropped.is_empty() {
        let _ = writeln!(s, "| id | reason | claim |\n|---|---|---|");
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

/// The methodology lines both cards print: the recipe and the design, the gold rule, the
/// trick, who was left out, the study answers and the under-annotated claims.
pub(crate) fn choices(s: &mut String, p: &ExportPreview) {
    for line in recipe_line(p).into_iter().chain(design_line(p)) {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s, "{}", aggregation_rule(p));
    let _ = writeln!(s, "{}", trick_rule(p));
    let _ = writeln!(s, "{}", flag_rule(p));
    let _ = writeln!(s, "{}", study_answers(p));
    let _ = writeln!(s, "{}", under_annotated_rule(p));
}

/// The card's line on how answers became gold lines.
pub(crate) fn aggregation_rule(p: &ExportPreview) -> String {
    match p.method.as_str() {
        "majority" => "- Gold rule: strict majority of the counted answers (more than half) for each sentence, label and verification; an answer that picked the trick sentence is rejected on its own (the default, as COVID-Fact and WikiFactCheck)".into(),
        other => format!("- Gold rule: {other} (`--method`; the default is a strict majority); an answer that picked the trick sentence is rejected on its own"),
    }
}

/// The card's line naming the recipe the project was set up by; none without one, so a
/// project set up by hand writes the card it always did.
pub(crate) fn recipe_line(p: &ExportPreview) -> Option<String> {
    p.recipe.as_ref().map(|name| {
        format!("- Set up by the `{name}` recipe (`factdesk init --recipe {name}`; docs/recipes.md says which choices are the paper's and which Factdesk's)")
    })
}

/// The card's line naming the project's own design, whose gold this file does not hold;
/// none without one.
pub(crate) fn design_line(p: &ExportPreview) -> Option<String> {
    p.design.as_ref().map(|name| {
        format!("- The project also declares the design `{name}`: its items' gold, question by question, is written by `factdesk export --design` (docs/designs.md)")
    })
}

/// The card's line on the evidence stance and what its trick sentence checks.
pub(crate) fn trick_rule(p: &ExportPreview) -> String {
    format!(
        "- Evidence asked for: sentences that {} the claim (setting `evidence_stance` `{}`); {}",
        p.evidence_stance.asks_for(),
        p.evidence_stance.as_str(),
        p.evidence_stance.trick_measures()
    )
}

/// The card's line on when a person's answers are all left out.
pub(crate) fn flag_rule(p: &ExportPreview) -> String {
    format!(
        "- Flagged annotators: after at least {} trick sentences (`trick_min_seen`), a person whose trick-failure rate has a Wilson 95% lower bound above {} (`trick_flag_threshold`) is left out, unless the lead includes them",
        p.trick_min_seen, p.trick_flag_threshold
    )
}

/// The card's line on re-annotation studies' answers: which way the project chose.
pub(crate) fn study_answers(p: &ExportPreview) -> String {
    if p.study_answers_in_gold {
        "- Re-annotation study answers: pooled with the first group's in the gold (setting `study_answers_in_gold` on; COVID-Fact kept them apart)".into()
    } else {
        format!(
            "- Re-annotation study answers: kept apart from the gold, which comes from the first group as in COVID-Fact; they only measure agreement (setting `study_answers_in_gold` off, the default): {} left out",
            p.study_answers_apart
        )
    }
}

/// The card's line on claims short of answers: held back (the default) or marked.
pub(crate) fn under_annotated_rule(p: &ExportPreview) -> String {
    let n = p.under_annotated.len();
    if p.include_under_annotated {
        format!("- Claims with fewer counted answers than the overlap: {n}, exported as asked (`--include-under-annotated`), each line marked `\"under_annotated\": true`")
    } else {
        format!("- Claims with fewer counted answers than the overlap: {n}, held back (the default; `--include-under-annotated` exports them marked)")
    }
}

/// The table of claims short of answers, with their counts.
pub(crate) fn under_annotated(s: &mut String, p: &ExportPreview) {
    let _ = writeln!(
        s,
        "\n## Under-annotated claims ({})\n",
        p.under_annotated.len()
    );
    if p.under_annotated.is_empty() {
        return;
    }
    let what = if p.include_under_annotated {
        "Exported as asked, each line marked `\"under_annotated\": true`, unless dropped for a reason listed under the dropped claims"
    } else {
        "Held back from the gold file until their tasks have the counted answers their overlap asks for (or the lead decides them)"
    };
    let _ = writeln!(
        s,
        "{what}.\n\n| id | task | counted answers | overlap | claim |\n|---|---|---|---|---|"
    );
    for u in &p.under_annotated {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            cell(&u.id),
            u.kind,
            u.answers,
            u.needed,
            cell(&u.claim)
        );
    }
}
