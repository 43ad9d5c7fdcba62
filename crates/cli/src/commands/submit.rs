use factdesk_api::annotate::Answer;
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Submit answers as JSON lines on stdin; one ack line is printed per committed answer.
///
/// Each line: {"task_id", "selected": [option ids], "no_evidence", "text", "label",
/// "comment"}, or by question as `next --json` lists them: {"task_id", "answers":
/// {"QUESTION": "LABEL" | ["LABEL", ...] | {"spans": [[start, end], ...]} | "text"}} (a
/// design task takes only this form; docs/designs.md). The ack {"ack": uuid, "task_id"} is printed and flushed only after the
/// answer is committed to the project file. A bad line gets {"error": {code, message},
/// "line"} and changes nothing; the next lines are still read.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file, or a pack.
    project: PathBuf,
    /// The annotator's name.
    #[arg(long = "as", value_name = "NAME")]
    annotator: String,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open_work(&a.project)?;
    let actor = project.actor(&a.annotator)?;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut failed = 0u64;
    for (i, line) in stdin.lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let result = serde_json::from_str::<Answer>(&line)
            .map_err(|e| {
                factdesk_api::Error::input(
                    "stdin",
                    i as u64 + 1,
                    None,
                    format!("invalid answer: {e}"),
                )
            })
            .and_then(|answer| project.submit(&actor, &answer));
        let reply = match result {
            Ok(ack) => serde_json::to_string(&ack)?,
            Err(e) => {
                failed += 1;
                serde_json::to_string(
                    &serde_json::json!({"error": {"code": e.code, "message": e.message}, "line": i + 1}),
                )?
            }
        };
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    if failed > 0 {
        anyhow::bail!("{failed} answers were refused; see the error lines");
    }
    Ok(())
}
