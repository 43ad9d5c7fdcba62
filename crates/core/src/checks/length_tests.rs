//! The length check counts words as the 15-token limit does: whitespace-separated, as
//! WikiFactCheck-English counted.

use super::*;

fn length(original: &str, written: &str) -> CheckResult {
    let only_length = CheckSettings {
        empty: false,
        identical: false,
        negation_only: false,
        subject: false,
        ..CheckSettings::default()
    };
    let mut results = check_refutation(original, written, &only_length);
    assert_eq!(results.len(), 1, "{results:?}");
    results.remove(0)
}

#[test]
fn joined_words_count_once_in_the_length_check() {
    // wikifactcheck:106786: 15 whitespace words; the tokenizer makes 16 of them.
    let original = "Grainger is also CEO/Executive producer of the Sydney-based TV Production \
                    companies: GraingerTV, Corporate Video Australia";
    // 15 words; the tokenizer makes 19 of them and once refused it as 3 longer.
    let written = "Grainger is also CEO/CFO/COO/CTO producer of the Sydney-based TV/radio \
                   production companies: GraingerTV, Corporate Video Australia";
    let result = length(original, written);
    assert!(result.passed, "{result:?}");
    assert_eq!(result.message, "15 words; the original has 15 (within 2)");
}

#[test]
fn punctuation_between_spaces_is_no_word() {
    let result = length("Masks work in Spain", "Masks fail \u{2013} in Spain .");
    assert_eq!(result.message, "4 words; the original has 4 (within 2)");
}
