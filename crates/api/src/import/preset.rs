//! Presets: the fields of a published dataset, mapped onto the native ones, and the
//! check that a file is that dataset before its rows are read under the mapping.

use super::rows::Row;
use crate::settings::EvidenceStance;
use crate::{Error, ErrorCode, Result};

/// A known input format, mapped onto the native one.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[strum(
    serialize_all = "kebab-case",
    parse_err_ty = Error,
    parse_err_fn = unknown_preset
)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Preset {
    /// Factdesk's own fields (see docs/formats.md).
    #[default]
    Native,
    /// COVID-Fact JSON Lines: claim, label, evidence, gold_source, flair.
    #[strum(to_string = "covid-fact", serialize = "covidfact")]
    #[cfg_attr(feature = "clap", value(alias = "covidfact"))]
    CovidFact,
    /// WikiFactCheck-English TSV or JSON Lines: id, claim, context, refuted, url.
    #[strum(serialize = "wikifactcheck")]
    #[cfg_attr(feature = "clap", value(name = "wikifactcheck"))]
    WikiFactCheck,
    /// FEVER JSON Lines: id, claim, label, evidence.
    Fever,
    /// Any columns, named with `--map field=column`.
    Generic,
}

impl Preset {
    /// The evidence stance of the preset's dataset: COVID-Fact asked for supporting
    /// sentences, FEVER for supporting or refuting ones; the others do not say.
    pub fn stance(self) -> Option<EvidenceStance> {
        match self {
            Preset::CovidFact => Some(EvidenceStance::Supports),
            Preset::Fever => Some(EvidenceStance::SupportsOrRefutes),
            Preset::Native | Preset::Generic | Preset::WikiFactCheck => None,
        }
    }

    pub fn name(self) -> &'static str {
        self.into()
    }
}

fn unknown_preset(s: &str) -> Error {
    use strum::VariantNames;
    Error::new(
        ErrorCode::InvalidInput,
        format!(
            "unknown preset {s:?}; choose one of {}",
            Preset::VARIANTS.join(", ")
        ),
    )
}

/// The fields a preset's dataset has in every row, and every field the preset reads.
struct Shape {
    preset: Preset,
    dataset: &'static str,
    always: &'static [&'static str],
    known: &'static [&'static str],
}

const SHAPES: [Shape; 3] = [
    Shape {
        preset: Preset::CovidFact,
        dataset: "COVID-Fact",
        always: &["claim", "label", "evidence"],
        known: &["claim", "label", "evidence", "gold_source", "flair"],
    },
    Shape {
        preset: Preset::WikiFactCheck,
        dataset: "WikiFactCheck",
        always: &["id", "claim", "refuted"],
        // The TSV's unnamed index column, as Factdesk, Python's csv and pandas name it.
        known: &[
            "id",
            "claim",
            "context",
            "refuted",
            "url",
            "url_md5",
            "column 1",
            "",
            "Unnamed: 0",
            "index",
            "__index_level_0__",
        ],
    },
    Shape {
        preset: Preset::Fever,
        dataset: "FEVER",
        always: &["id", "claim"],
        known: &["id", "claim", "label", "evidence", "verifiable"],
    },
];

impl Shape {
    fn missing(&self, row: &Row) -> Vec<&'static str> {
        self.always
            .iter()
            .copied()
            .filter(|f| !row.fields.contains_key(*f))
            .collect()
    }

    /// Whether `row` is this dataset's: every field it always has, none it lacks.
    fn fits(&self, row: &Row) -> bool {
        self.missing(row).is_empty() && self.unknown(row).is_empty()
    }

    fn unknown<'a>(&self, row: &'a Row) -> Vec<&'a str> {
        row.fields
            .keys()
            .map(String::as_str)
            .filter(|k| !self.known.contains(k))
            .collect()
    }
}

impl Preset {
    /// The fields of the published dataset the preset reads, if it reads one.
    fn shape(self) -> Option<&'static Shape> {
        SHAPES.iter().find(|s| s.preset == self)
    }

    /// Whether the preset reads a published dataset whose fields are known.
    pub(super) fn has_shape(self) -> bool {
        self.shape().is_some()
    }

    /// Refuses a row that is not the preset's dataset: one lacking a field the dataset
    /// always has, or holding one the preset does not read (which it would drop, while
    /// the row may carry its own label or evidence there).
    pub(super) fn check_row(self, file: &str, row: &Row) -> Result<()> {
        let Some(shape) = self.shape() else {
            return Ok(());
        };
        if let Some(field) = shape.missing(row).first() {
            return Err(Error::input(
                file,
                row.line,
                Some(field),
                format!(
                    "missing: every {} row has this field; is this row from another dataset?",
                    shape.dataset
                ),
            ));
        }
        if let Some(field) = shape.unknown(row).first() {
            return Err(Error::input(
                file,
                row.line,
                Some(field),
                format!(
                    "the {} preset does not read this field, which {} rows do not have; is \
                     this row from another dataset? --preset native keeps every field",
                    self.name(),
                    shape.dataset
                ),
            ));
        }
        Ok(())
    }

    /// Refuses a file whose first rows are not the preset's dataset: one missing a field
    /// the dataset always has, or one with fields the preset does not read that another
    /// preset reads whole. Read under the wrong mapping, such a file imports without
    /// error into wrong ids, labels and evidence.
    /// `rows`: the file's first readable rows; one that fits is enough (the others are
    /// refused one by one, or set aside under --skip-invalid), and the error names the
    /// first.
    pub(super) fn check_fits(self, file: &str, rows: &[Row]) -> Result<()> {
        let Some(shape) = self.shape() else {
            return Ok(());
        };
        let Some(first) = rows.first() else {
            return Ok(());
        };
        if rows.iter().any(|r| shape.fits(r)) {
            return Ok(());
        }
        let better = SHAPES.iter().find(|s| s.preset != self && s.fits(first));
        let hint = match better {
            Some(s) => format!(
                "it looks like {}: import it with --preset {}",
                s.dataset,
                s.preset.name()
            ),
            None => "import it with --preset native, or --preset generic with --map".to_string(),
        };
        let fields = first
            .fields
            .keys()
            .map(|k| format!("{k:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        let missing = shape.missing(first);
        let unknown = shape.unknown(first);
        let (field, problem) = if let Some(field) = missing.first() {
            (
                *field,
                format!(
                    "the {} preset reads {} rows, which always have {}; this row lacks {}",
                    self.name(),
                    shape.dataset,
                    shape.always.join(", "),
                    missing.join(", ")
                ),
            )
        } else if let (Some(field), Some(_)) = (unknown.first(), better) {
            (
                *field,
                format!(
                    "the {} preset does not read the fields {} of this row",
                    self.name(),
                    unknown.join(", ")
                ),
            )
        } else {
            return Ok(());
        };
        Err(Error::input(
            file,
            first.line,
            Some(field),
            format!("{problem} (its fields: {fields}); {hint} (nothing was imported)"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::Preset;

    /// The names derived from the variants are the ones documented (and clap's), and
    /// COVID-Fact's old spelling still reads.
    #[test]
    fn preset_names_round_trip_and_the_old_spelling_reads() {
        use strum::VariantNames;
        assert_eq!(
            Preset::VARIANTS,
            ["native", "covid-fact", "wikifactcheck", "fever", "generic"]
        );
        for name in Preset::VARIANTS {
            let preset: Preset = name.parse().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(preset.name(), *name);
        }
        assert_eq!("covidfact".parse::<Preset>().ok(), Some(Preset::CovidFact));
        let refused = "snopes".parse::<Preset>().err().map(|e| e.message);
        assert_eq!(
            refused.as_deref(),
            Some("unknown preset \"snopes\"; choose one of native, covid-fact, wikifactcheck, fever, generic")
        );
    }
}
