//! Every metric by name: which apply to a table, computing them from shared prepared
//! data, and their bootstrap intervals.

use super::alpha::{Alpha, Distance};
use super::bootstrap::{intervals, item_classes, Population, Statistic};
use super::cohen::{
    kappa_of_pairs, label_pairs, mean_pairwise, pairs, pairs_over, PairKappa, Weighting,
};
use super::nominal::{fleiss_kappa, percent_agreement, randolph_kappa, unanimous_share};
use super::packed::Packed;
use super::profiles::{Profiles, Weighted};
use super::sets::{pooled_units, MasiModel};
use super::table::{CategoryOrder, RatingTable, Units};
use super::{AgreementOptions, MetricValue, Outcome};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Items from which a table's two populations are prepared on two threads.
const PARALLEL_ITEMS: usize = 20_000;

const NO_CANDIDATES: &str =
    "no (item, candidate) units: nobody selected a candidate and no candidate list was given";

/// Every metric name `compute` knows, in the order of the list.
pub const METRIC_NAMES: [&str; 20] = [
    "percent_agreement",
    "percent_agreement_unanimous",
    "cohen_kappa",
    "cohen_kappa_linear",
    "cohen_kappa_quadratic",
    "cohen_kappa_mean_pairwise",
    "fleiss_kappa",
    "randolph_kappa",
    "krippendorff_alpha_nominal",
    "krippendorff_alpha_ordinal",
    "krippendorff_alpha_interval",
    "krippendorff_alpha_ratio",
    "setsel_pooled_percent_agreement",
    "setsel_pooled_cohen_kappa",
    "setsel_pooled_cohen_kappa_mean_pairwise",
    "setsel_pooled_fleiss_kappa",
    "setsel_pooled_krippendorff_alpha_nominal",
    "setsel_masi_krippendorff_alpha",
    "setsel_exactset_krippendorff_alpha_nominal",
    "masi_distance",
];

/// Every metric that applies to the table, by name: cohen_kappa* with exactly 2
/// annotators (weighted ones undefined without a category order); ordinal alpha when the
/// categories have an order (given, or numeric labels); interval and ratio alpha when
/// every label is a number; setsel_* when labels are sets (the unprefixed nominal metrics
/// then treat each distinct set as one category; with exactly 2 annotators also their mean
/// MASI distance over the items both rated). With `options.bootstrap_reps > 0`,
/// percent agreement, Fleiss, Randolph and alpha values get [`bootstrap`] intervals;
/// Cohen values always carry their Wald interval.
pub fn compute_all(
    table: &RatingTable,
    options: &AgreementOptions,
) -> BTreeMap<String, MetricValue> {
    Prepared::new(table).compute_all(options)
}

/// [`compute_all`] with the pairs behind its mean pairwise kappas, from one preparation
/// of the table (each pair counted once).
#[derive(Debug, Clone)]
pub struct WithPairs {
    pub metrics: BTreeMap<String, MetricValue>,
    /// [`super::pairs`]: behind `cohen_kappa_mean_pairwise`.
    pub pairs: Vec<PairKappa>,
    /// [`pooled_pairs`]: behind `setsel_pooled_cohen_kappa_mean_pairwise`.
    pub pooled_pairs: Vec<PairKappa>,
}

/// [`compute_all`], [`super::pairs`] and [`pooled_pairs`] from one preparation of the table.
pub fn compute_all_with_pairs(table: &RatingTable, options: &AgreementOptions) -> WithPairs {
    let prepared = Prepared::new(table);
    let metrics = prepared.compute_all(options);
    WithPairs {
        metrics,
        pairs: prepared.item_pairs().clone(),
        pooled_pairs: prepared.pooled_pairs_found(),
    }
}

/// One metric by name, whether or not it applies (then undefined with the reason);
/// `None` for an unknown name.
pub fn compute(table: &RatingTable, name: &str) -> Option<MetricValue> {
    let mut metric = Prepared::new(table).value(name)?;
    metric.read_as(name);
    Some(metric)
}

/// Bootstrap 95% percentile intervals for every applicable metric that has one: percent
/// agreement, Fleiss, Randolph and every alpha. Replicates resample the items with 2 or
/// more ratings; for pooled set metrics a drawn item brings all its (item, candidate)
/// units (a cluster bootstrap). A metric undefined in more than 5% of replicates gets no
/// interval. The result depends only on the table, `seed` and `reps`.
pub fn bootstrap(table: &RatingTable, seed: u64, reps: usize) -> BTreeMap<String, (f64, f64)> {
    Prepared::new(table).bootstrap(seed, reps)
}

/// Unweighted Cohen's kappa for every pair of annotators over the (item, candidate) units
/// of a set-label table: whether each annotator selected each candidate, so a pair agrees
/// on every sentence both left out or both chose. Empty without set labels or candidates.
/// The mean of these is `setsel_pooled_cohen_kappa_mean_pairwise`; [`super::pairs`]
/// gives the per-item (exact set) kappas behind `cohen_kappa_mean_pairwise`.
pub fn pooled_pairs(table: &RatingTable) -> Vec<PairKappa> {
    Prepared::new(table).pooled_pairs_found()
}

fn applicable(table: &RatingTable) -> Vec<&'static str> {
    let two = table.annotators.len() == 2;
    let sets = table.sets.is_some();
    let mut names = vec![
        "percent_agreement",
        "percent_agreement_unanimous",
        "cohen_kappa_mean_pairwise",
        "fleiss_kappa",
        "krippendorff_alpha_nominal",
    ];
    if two {
        names.push("cohen_kappa");
    }
    if !sets {
        names.push("randolph_kappa");
        if two {
            names.extend(["cohen_kappa_linear", "cohen_kappa_quadratic"]);
        }
        if table.order != CategoryOrder::Unordered {
            names.push("krippendorff_alpha_ordinal");
        }
        if table.numbers.is_ok() {
            names.extend(["krippendorff_alpha_interval", "krippendorff_alpha_ratio"]);
        }
    } else {
        names.extend([
            "setsel_pooled_percent_agreement",
            "setsel_pooled_cohen_kappa_mean_pairwise",
            "setsel_pooled_fleiss_kappa",
            "setsel_pooled_krippendorff_alpha_nominal",
            "setsel_masi_krippendorff_alpha",
            "setsel_exactset_krippendorff_alpha_nominal",
        ]);
        if two {
            names.extend(["setsel_pooled_cohen_kappa", "masi_distance"]);
        }
    }
    names
}

/// The statistics as closures over their population's profiles, for the bootstrap.
fn boxed<'a>(
    profiles: &'a Profiles,
    list: &'a [(&str, ProfileStatistic<'_>)],
) -> Vec<Box<Statistic<'a>>> {
    list.iter()
        .map(|(_, statistic)| {
            Box::new(move |weighted: &Weighted| statistic.evaluate(profiles, weighted))
                as Box<Statistic<'a>>
        })
        .collect()
}

/// The per-profile columns the statistics sum over the weights: each alpha's observed
/// disagreement.
fn columns<'a>(list: &'a [(&str, ProfileStatistic<'_>)]) -> Vec<&'a [f64]> {
    list.iter()
        .filter_map(|(_, statistic)| match statistic {
            ProfileStatistic::Alpha(alpha) => alpha.observed(),
            _ => None,
        })
        .collect()
}

/// The population's profiles packed by shape (see `packed`), when its statistics allow.
fn packed(
    profiles: &Profiles,
    list: &[(&str, ProfileStatistic<'_>)],
    columns: &[&[f64]],
) -> Option<Packed> {
    if !list.iter().all(|(_, statistic)| statistic.packable()) {
        return None;
    }
    let similar = list.iter().find_map(|(_, statistic)| match statistic {
        ProfileStatistic::Alpha(alpha) => alpha.masi().map(MasiModel::similar),
        _ => None,
    });
    Packed::new(profiles, columns, similar)
}

/// A statistic computed from unit profiles, so it can be bootstrapped.
enum ProfileStatistic<'a> {
    PercentAgreement,
    Unanimous,
    Fleiss,
    Randolph(usize),
    Alpha(Alpha<'a>),
}

impl ProfileStatistic<'_> {
    /// Whether a packed replicate's sums are all it reads.
    fn packable(&self) -> bool {
        match self {
            ProfileStatistic::Alpha(alpha) => alpha.packable(),
            _ => true,
        }
    }

    fn evaluate(&self, profiles: &Profiles, weighted: &Weighted) -> Outcome {
        match self {
            ProfileStatistic::PercentAgreement => percent_agreement(weighted),
            ProfileStatistic::Unanimous => unanimous_share(weighted),
            ProfileStatistic::Fleiss => fleiss_kappa(weighted),
            ProfileStatistic::Randolph(q) => randolph_kappa(weighted, *q),
            ProfileStatistic::Alpha(alpha) => alpha.evaluate(profiles, weighted),
        }
    }
}

/// The (item, candidate) units of a set-label table.
struct Pooled {
    units: Units,
    profiles: Profiles,
    /// Item `u` has pooled units `item_starts[u]..item_starts[u + 1]`.
    item_starts: Vec<usize>,
}

impl Pooled {
    fn new((units, item_starts): (Units, Vec<usize>)) -> Pooled {
        let profiles = Profiles::new(&units);
        Pooled {
            units,
            profiles,
            item_starts,
        }
    }
}

struct Prepared<'t> {
    table: &'t RatingTable,
    profiles: Profiles,
    unpairable: Option<String>,
    /// (item, candidate) units, for set labels.
    pooled: Option<Pooled>,
    masi: Option<MasiModel<'t>>,
    /// Cohen's kappa per pair over the items, once asked for.
    item_pairs: OnceLock<Vec<PairKappa>>,
    /// [`Prepared::pooled_pairs`], once asked for.
    pooled_pairs: OnceLock<Option<Result<Vec<PairKappa>, MetricValue>>>,
}

impl<'t> Prepared<'t> {
    /// At scale the (item, candidate) units and their profiles are made beside the items'
    /// profiles: the two take about as long, and the rest waits for both.
    fn new(table: &'t RatingTable) -> Prepared<'t> {
        Prepared::new_on(table, table.units.len() >= PARALLEL_ITEMS)
    }

    /// [`Prepared::new`], the two populations on two threads when `beside`.
    fn new_on(table: &'t RatingTable, beside: bool) -> Prepared<'t> {
        let pooled = || {
            table
                .sets
                .as_ref()
                .map(|sets| Pooled::new(pooled_units(&table.units, sets)))
        };
        let (profiles, pooled) = if table.sets.is_some() && beside {
            std::thread::scope(|s| {
                let pooled = s.spawn(pooled);
                let profiles = Profiles::new(&table.units);
                let pooled = pooled
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (profiles, pooled)
            })
        } else {
            (Profiles::new(&table.units), pooled())
        };
        Prepared {
            table,
            profiles,
            unpairable: table.unpairable_reason(),
            pooled,
            masi: table.sets.as_ref().map(MasiModel::new),
            item_pairs: OnceLock::new(),
            pooled_pairs: OnceLock::new(),
        }
    }

    fn item_pairs(&self) -> &Vec<PairKappa> {
        self.item_pairs.get_or_init(|| pairs(self.table))
    }

    /// The profile statistic behind a name, on the item population (`false`) or the
    /// pooled one (`true`), or why it cannot be computed for this table.
    fn profile_statistic(
        &self,
        name: &str,
    ) -> Option<Result<(bool, ProfileStatistic<'_>), String>> {
        let table = self.table;
        let not_sets = || Err("labels are not sets of candidates".to_string());
        let on_items = |statistic| Ok((false, statistic));
        let pooled = |statistic| match &self.pooled {
            Some(pooled) if pooled.units.len() == 0 => Err(NO_CANDIDATES.to_string()),
            Some(_) => Ok((true, statistic)),
            None => not_sets(),
        };
        let alpha = |distance| {
            on_items(ProfileStatistic::Alpha(Alpha::new(
                &self.profiles,
                distance,
            )))
        };
        Some(match name {
            "percent_agreement" => on_items(ProfileStatistic::PercentAgreement),
            "percent_agreement_unanimous" => on_items(ProfileStatistic::Unanimous),
            "fleiss_kappa" => on_items(ProfileStatistic::Fleiss),
            "randolph_kappa" if table.sets.is_some() => {
                Err("Randolph's kappa needs a fixed set of categories, not set labels".to_string())
            }
            "randolph_kappa" => on_items(ProfileStatistic::Randolph(table.categories.len())),
            "krippendorff_alpha_nominal" => alpha(Distance::Nominal),
            "krippendorff_alpha_ordinal" if table.order == CategoryOrder::Unordered => Err(
                "ordinal alpha needs a category order: give the categories in order".to_string(),
            ),
            "krippendorff_alpha_ordinal" => alpha(Distance::Ordinal),
            "krippendorff_alpha_interval" | "krippendorff_alpha_ratio" => match &table.numbers {
                Err(reason) => Err(reason.clone()),
                Ok(numbers) if name.ends_with("interval") => alpha(Distance::Interval(numbers)),
                Ok(numbers) => alpha(Distance::Ratio(numbers)),
            },
            "setsel_exactset_krippendorff_alpha_nominal" if table.sets.is_none() => not_sets(),
            "setsel_exactset_krippendorff_alpha_nominal" => alpha(Distance::Nominal),
            "setsel_masi_krippendorff_alpha" => match &self.masi {
                Some(model) => alpha(Distance::Masi(model)),
                None => not_sets(),
            },
            "setsel_pooled_percent_agreement" => pooled(ProfileStatistic::PercentAgreement),
            "setsel_pooled_fleiss_kappa" => pooled(ProfileStatistic::Fleiss),
            "setsel_pooled_krippendorff_alpha_nominal" => match &self.pooled {
                Some(population) => pooled(ProfileStatistic::Alpha(Alpha::new(
                    &population.profiles,
                    Distance::Nominal,
                ))),
                None => not_sets(),
            },
            _ => return None,
        })
    }

    /// Every statistic that applies, with its interval when `options` asks for one.
    fn compute_all(&self, options: &AgreementOptions) -> BTreeMap<String, MetricValue> {
        let mut metrics: BTreeMap<String, MetricValue> = applicable(self.table)
            .into_iter()
            .filter_map(|name| self.value(name).map(|value| (name.to_string(), value)))
            .collect();
        if options.bootstrap_reps > 0 {
            for (name, ci95) in self.bootstrap(options.seed, options.bootstrap_reps) {
                if let Some(metric) = metrics.get_mut(&name) {
                    if metric.value.is_some() {
                        metric.ci95 = Some(ci95);
                    }
                }
            }
        }
        for (name, metric) in &mut metrics {
            metric.read_as(name);
        }
        metrics
    }

    /// [`pooled_pairs`]: empty without set labels or candidates.
    fn pooled_pairs_found(&self) -> Vec<PairKappa> {
        match self.pooled_pairs() {
            Some(Ok(found)) => found.clone(),
            _ => Vec::new(),
        }
    }

    /// Cohen's kappa per pair over the (item, candidate) units; `None` without set labels.
    fn pooled_pairs(&self) -> Option<&Result<Vec<PairKappa>, MetricValue>> {
        self.pooled_pairs
            .get_or_init(|| {
                let population = self.pooled.as_ref()?;
                Some(if population.units.len() == 0 {
                    Err(MetricValue::undefined(NO_CANDIDATES))
                } else {
                    Ok(pairs_over(&population.units, &self.table.annotators))
                })
            })
            .as_ref()
    }

    fn population(&self, pooled: bool) -> &Profiles {
        match (&self.pooled, pooled) {
            (Some(population), true) => &population.profiles,
            _ => &self.profiles,
        }
    }

    fn value(&self, name: &str) -> Option<MetricValue> {
        if let Some(found) = self.profile_statistic(name) {
            let value = match (found, &self.unpairable) {
                (Err(reason), _) => MetricValue::undefined(reason),
                (Ok(_), Some(reason)) => MetricValue::undefined(reason.clone()),
                (Ok((pooled, statistic)), None) => {
                    let profiles = self.population(pooled);
                    let weighted = profiles.weigh(&profiles.multiplicity);
                    MetricValue::from_outcome(statistic.evaluate(profiles, &weighted))
                }
            };
            return Some(value);
        }
        let two_annotators = || {
            (self.table.annotators.len() == 2)
                .then_some(())
                .ok_or_else(|| {
                    MetricValue::undefined(format!(
                        "{name} needs exactly 2 annotators (there are {}); see cohen_kappa_pairs",
                        self.table.annotators.len()
                    ))
                })
        };
        let cohen = |units: &Units, weighting| match two_annotators() {
            Err(undefined) => undefined,
            Ok(()) => kappa_of_pairs(&label_pairs(units, 0, 1), units.value_count, weighting).value,
        };
        let weighted = |weighting| {
            if self.table.order == CategoryOrder::Unordered {
                MetricValue::undefined(
                    "weighted kappa needs a category order: give the categories in order",
                )
            } else {
                cohen(&self.table.units, weighting)
            }
        };
        Some(match name {
            "cohen_kappa" => cohen(&self.table.units, Weighting::Unweighted),
            "cohen_kappa_linear" => weighted(Weighting::Linear),
            "cohen_kappa_quadratic" => weighted(Weighting::Quadratic),
            "cohen_kappa_mean_pairwise" => {
                mean_pairwise(self.table.annotators.len(), self.item_pairs())
            }
            "setsel_pooled_cohen_kappa_mean_pairwise" => match self.pooled_pairs() {
                Some(Ok(found)) => mean_pairwise(self.table.annotators.len(), found),
                Some(Err(undefined)) => undefined.clone(),
                None => MetricValue::undefined("labels are not sets of candidates"),
            },
            "masi_distance" => match (two_annotators(), &self.masi) {
                (_, None) => MetricValue::undefined("labels are not sets of candidates"),
                (Err(undefined), _) => undefined,
                (Ok(()), Some(model)) => mean_masi_distance(&self.table.units, model),
            },
            "setsel_pooled_cohen_kappa" => match &self.pooled {
                Some(population) if population.units.len() == 0 => {
                    MetricValue::undefined(NO_CANDIDATES)
                }
                Some(population) => cohen(&population.units, Weighting::Unweighted),
                None => MetricValue::undefined("labels are not sets of candidates"),
            },
            _ => return None,
        })
    }

    fn bootstrap(&self, seed: u64, reps: usize) -> BTreeMap<String, (f64, f64)> {
        let mut result = BTreeMap::new();
        if self.unpairable.is_some() || reps == 0 {
            return result;
        }
        // Exact-set alpha is nominal alpha on the same items: computed once, reported twice.
        const EXACT_SET: &str = "setsel_exactset_krippendorff_alpha_nominal";
        let names: Vec<&str> = applicable(self.table)
            .into_iter()
            .filter(|&name| name != EXACT_SET)
            .collect();
        let chosen = |pooled: bool| -> Vec<(&str, ProfileStatistic<'_>)> {
            names
                .iter()
                .filter_map(|&name| match self.profile_statistic(name) {
                    Some(Ok((on_pooled, statistic))) if on_pooled == pooled => {
                        Some((name, statistic))
                    }
                    _ => None,
                })
                .collect()
        };
        let on_items = chosen(false);
        let on_pooled = chosen(true);
        let item_closures = boxed(&self.profiles, &on_items);
        let (class_of_item, item_expansion, pooled_expansion) = item_classes(
            &self.profiles,
            self.pooled
                .as_ref()
                .map(|p| (&p.profiles, p.item_starts.as_slice())),
        );
        let item_columns = columns(&on_items);
        let mut populations = vec![Population {
            profiles: &self.profiles,
            expansion: item_expansion,
            statistics: item_closures.iter().map(|c| c.as_ref()).collect(),
            packed: packed(&self.profiles, &on_items, &item_columns),
            columns: item_columns,
        }];
        let pooled_closures = match &self.pooled {
            Some(pooled) => boxed(&pooled.profiles, &on_pooled),
            None => Vec::new(),
        };
        if let Some(pooled) = &self.pooled {
            populations.push(Population {
                profiles: &pooled.profiles,
                expansion: pooled_expansion,
                statistics: pooled_closures.iter().map(|c| c.as_ref()).collect(),
                columns: columns(&on_pooled),
                packed: None,
            });
        }
        let class_count = populations[0].expansion.classes();
        let found = intervals(&class_of_item, class_count, &populations, seed, reps);
        let names = on_items.iter().chain(&on_pooled).map(|(name, _)| *name);
        for (name, ci95) in names.zip(found.into_iter().flatten()) {
            if let Some(ci95) = ci95 {
                result.insert(name.to_string(), ci95);
            }
        }
        if self.table.sets.is_some() {
            if let Some(&ci95) = result.get("krippendorff_alpha_nominal") {
                result.insert(EXACT_SET.to_string(), ci95);
            }
        }
        result
    }
}

/// The two annotators' mean MASI distance over the items both rated (Passonneau 2006; for
/// one item, the distance between their two sets).
fn mean_masi_distance(units: &Units, model: &MasiModel<'_>) -> MetricValue {
    let pairs = label_pairs(units, 0, 1);
    if pairs.is_empty() {
        return MetricValue::undefined("no item was rated by both annotators");
    }
    let total: f64 = pairs
        .iter()
        .map(|&(a, b)| model.distance(a as usize, b as usize))
        .sum();
    MetricValue::from_outcome(Ok(total / pairs.len() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agreement::{Label, Rating};

    /// The two populations prepared on two threads give every statistic and interval the
    /// one-thread preparation gives, on a set-label table past [`PARALLEL_ITEMS`].
    #[test]
    fn populations_prepared_beside_each_other_equal_those_prepared_in_turn() {
        let ratings: Vec<Rating> = (0..PARALLEL_ITEMS + 1)
            .flat_map(|i| {
                let item = format!("c{i}");
                ["a", "b", "c"]
                    .into_iter()
                    .enumerate()
                    .map(move |(k, who)| Rating {
                        item: item.clone(),
                        annotator: who.into(),
                        label: Label::Set(
                            (0..(i + k) % 3)
                                .map(|s| format!("s{}", (i * 7 + s * (k + 1)) % 5))
                                .collect(),
                        ),
                    })
            })
            .collect();
        let table = RatingTable::new(&ratings, None, None).unwrap_or_else(|e| panic!("{e}"));
        let options = AgreementOptions {
            bootstrap_reps: 20,
            seed: 7,
        };
        let shown = |beside: bool| {
            let prepared = Prepared::new_on(&table, beside);
            format!(
                "{:?} {:?}",
                prepared.compute_all(&options),
                prepared.pooled_pairs_found()
            )
        };
        let (one, two) = (shown(false), shown(true));
        assert!(one.contains("setsel_pooled_fleiss_kappa"), "{one}");
        assert_eq!(one, two);
    }
}
