//! One sentence per metric name saying what it measures and over which units, so every
//! front end prints the same definition beside the same name.

/// What the metric `name` measures, over which units; `None` for an unknown name. Over
/// set labels (`sets`: evidence) the unprefixed metrics treat each distinct set of
/// sentences as one category (exact set), which the definition then says; the
/// `setsel_pooled_*` ones count each (item, candidate) sentence as a unit, selected or
/// not.
pub fn definition(name: &str, sets: bool) -> Option<String> {
    let exact = matches!(
        name,
        "percent_agreement"
            | "percent_agreement_unanimous"
            | "cohen_kappa"
            | "cohen_kappa_mean_pairwise"
            | "fleiss_kappa"
            | "krippendorff_alpha_nominal"
    );
    let what = meaning(name)?;
    Some(if exact && sets {
        format!("{what}, each distinct set of sentences one category")
    } else {
        what.to_owned()
    })
}

fn meaning(name: &str) -> Option<&'static str> {
    Some(match name {
        "percent_agreement" => "share of agreeing pairs of ratings per item, averaged over items",
        "percent_agreement_unanimous" => "share of items on which every rating is the same",
        "cohen_kappa" => "Cohen's kappa of the two annotators over the items both rated",
        "cohen_kappa_linear" => "Cohen's kappa with linear weights over the category order, two annotators",
        "cohen_kappa_quadratic" => "Cohen's kappa with quadratic weights over the category order, two annotators",
        "cohen_kappa_mean_pairwise" => "mean of Cohen's kappa over every pair of annotators, each over the items both rated",
        "fleiss_kappa" => "Fleiss' kappa over items with two or more ratings",
        "randolph_kappa" => "Randolph's free-marginal kappa over items with two or more ratings",
        "krippendorff_alpha_nominal" => "Krippendorff's alpha, nominal distance, over items",
        "krippendorff_alpha_ordinal" => "Krippendorff's alpha, ordinal distance over the category order",
        "krippendorff_alpha_interval" => "Krippendorff's alpha, interval distance over numeric labels",
        "krippendorff_alpha_ratio" => "Krippendorff's alpha, ratio distance over numeric labels",
        "setsel_pooled_percent_agreement" => "percent agreement per candidate sentence: each (item, candidate) a unit, selected or not",
        "setsel_pooled_cohen_kappa" => "Cohen's kappa of the two annotators per candidate sentence: each (item, candidate) a unit, selected or not",
        "setsel_pooled_cohen_kappa_mean_pairwise" => "mean of Cohen's kappa over every pair of annotators per candidate sentence, each over the (item, candidate) units both rated",
        "setsel_pooled_fleiss_kappa" => "Fleiss' kappa per candidate sentence: each (item, candidate) a unit, selected or not",
        "setsel_pooled_krippendorff_alpha_nominal" => "Krippendorff's alpha per candidate sentence: each (item, candidate) a unit, selected or not",
        "setsel_masi_krippendorff_alpha" => "Krippendorff's alpha over items with MASI distance between the selected sets",
        "setsel_exactset_krippendorff_alpha_nominal" => "Krippendorff's alpha over items, each distinct set one category (the same value as krippendorff_alpha_nominal)",
        "masi_distance" => "mean MASI distance between the two annotators' sets over the items both rated",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::definition;
    use crate::agreement::METRIC_NAMES;

    #[test]
    fn every_metric_has_a_definition() {
        for name in METRIC_NAMES {
            assert!(
                definition(name, false).is_some(),
                "{name} has no definition"
            );
        }
        assert_eq!(definition("no_such_metric", true), None);
    }

    /// Screenshot walk of session 27: the label section's statistics said
    /// "(evidence: exact sets)".
    #[test]
    fn only_set_labels_are_said_to_count_each_set_as_one_category() {
        let over_labels = definition("fleiss_kappa", false).unwrap_or_default();
        let over_sets = definition("fleiss_kappa", true).unwrap_or_default();
        assert!(!over_labels.contains("set"), "{over_labels}");
        assert!(over_sets.ends_with("each distinct set of sentences one category"));
        assert_eq!(
            definition("randolph_kappa", true),
            definition("randolph_kappa", false)
        );
    }
}
