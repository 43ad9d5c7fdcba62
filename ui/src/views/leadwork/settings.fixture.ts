import type { Settings } from "../../ipc";

/** A project's settings as the lead's screens read them, for their tests. */
export function settingsFixture(): Settings {
  return {
    seed: "1",
    overlap: 3,
    evidence_stance: "supports",
    trick_template: "It is not true that {claim}",
    reservation_minutes: 30,
    refute_max_tokens: 40,
    trick_flag_threshold: 0.2,
    trick_min_seen: 5,
    qualification_items: 5,
    qualification_min_accepted: 4,
    checks: { empty: true, identical: true, length: true, negation_only: true, subject: true, max_length_difference: 3 },
    guidelines: { evidence: "Pick.", refute: "Write.", verify: "Judge.", label: "Label." },
    routing: "fill_first",
    highlight_claim_words: null,
    ranking: { semantic: false, model_dir: null, rerank_depth: 50, bm25_k1: 1.2, bm25_b: 0.75, jaccard_stemming: false },
    study_answers_in_gold: false,
    disagreement_categories: ["ambiguous item", "other"],
    recipe: null,
    design: null,
  };
}
