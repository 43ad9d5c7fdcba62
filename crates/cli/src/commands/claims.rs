use factdesk_api::claim_view::ClaimStanding;
use std::path::PathBuf;

/// List the project's claims by number (#12), with their imported ids and how their
/// tasks stand, as the lead's Claims screen does.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Only claims whose imported id or text holds these words, or the claim "#12".
    #[arg(long)]
    filter: Option<String>,
    /// Only claims whose tasks stand so.
    #[arg(long, value_enum, default_value_t = ClaimStanding::Any)]
    standing: ClaimStanding,
    /// How many claims to show (at most 500).
    #[arg(long, default_value_t = 50)]
    limit: u64,
    /// Skip this many first.
    #[arg(long, default_value_t = 0)]
    offset: u64,
    /// Print one JSON object (total, offset, lines).
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let standing = a.standing;
    let page = project.claims_list(
        &a.by.lead(&project, "list the claims")?,
        a.filter.as_deref(),
        standing,
        a.offset,
        a.limit,
    )?;
    if a.json {
        return super::print_json(&page);
    }
    let rows: Vec<[String; 4]> = page
        .lines
        .iter()
        .map(|l| {
            let tasks = if l.tasks == 0 {
                "no tasks".to_string()
            } else {
                format!("{}/{} answers", l.answered, l.wanted)
            };
            [
                factdesk_core::claim::number_text(l.id),
                l.ext_id.clone(),
                tasks,
                l.text.clone(),
            ]
        })
        .collect();
    for line in table(&rows) {
        println!("{line}");
    }
    let shown = page.lines.len() as u64;
    println!(
        "{} claim{} match{}",
        page.total,
        if page.total == 1 { "" } else { "s" },
        if shown < page.total {
            format!(", {}–{} shown", page.offset + 1, page.offset + shown)
        } else {
            String::new()
        }
    );
    Ok(())
}

/// The widest an id column gets; a longer id keeps its start and end around an ellipsis.
const MAX_ID: usize = 40;

/// `text` in at most `max` characters: its start, "…", and its end (where hashes and
/// model suffixes differ).
fn shortened(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let tail = (max - 1) / 2;
    let head = max - 1 - tail;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// Rows of (number, id, tasks, text) as aligned lines: each column as wide as its widest
/// cell on the page (ids at most [`MAX_ID`]), two spaces apart, the text last.
fn table(rows: &[[String; 4]]) -> Vec<String> {
    let rows: Vec<[String; 4]> = rows
        .iter()
        .map(|[n, id, t, text]| [n.clone(), shortened(id, MAX_ID), t.clone(), text.clone()])
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    rows.iter()
        .map(|[n, id, t, text]| format!("{n:<w0$}  {id:<w1$}  {t:<w2$}  {text}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_ids_keep_the_columns_aligned() {
        let long = "covid-fact:3f9a2b7c/model/0123456789abcdef0123456789abcdef";
        let rows = [
            [
                "#1".into(),
                "c1".into(),
                "no tasks".into(),
                "A claim".into(),
            ],
            [
                "#12".into(),
                long.into(),
                "1/2 answers".into(),
                "Another".into(),
            ],
        ];
        let lines = table(&rows);
        // Where `what` starts in `l`, in characters (the ellipsis is one).
        let at = |l: &str, what: &str| {
            let byte = l.find(what).unwrap_or_else(|| panic!("{what} in {l}"));
            l[..byte].chars().count()
        };
        // The tasks and the text start in the same column on every line.
        assert_eq!(at(&lines[0], "no tasks"), at(&lines[1], "1/2 answers"));
        assert_eq!(at(&lines[0], "A claim"), at(&lines[1], "Another"));
        let shown = shortened(long, MAX_ID);
        assert_eq!(shown.chars().count(), MAX_ID);
        assert!(
            shown.starts_with("covid-fact:") && shown.ends_with("456789abcdef"),
            "{shown}"
        );
        assert!(lines[1].contains(&shown));
    }
}
