use std::path::PathBuf;

/// Show or change project settings: overlap, evidence stance, trick template, reservation
/// time, checks, qualification, guidelines.
///
/// --set takes dotted keys and JSON values: --set overlap=5 --set checks.negation_only=false
/// --set evidence_stance=supports (or supports_or_refutes)
/// --set 'trick_template="It is false that {claim}"'.
///
/// Factdesk's own evidence guideline follows the stance; one you wrote is kept as written
/// when the stance changes, so match it yourself.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// KEY=VALUE, repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    set: Vec<String>,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open(&a.project)?;
    let mut value = serde_json::to_value(project.settings()?)?;
    for pair in &a.set {
        let (key, raw) = pair
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--set {pair:?}: expected KEY=VALUE"))?;
        // A bare word is taken as a string, so --set trick_template=... needs no quotes.
        let new: serde_json::Value = serde_json::from_str(raw)
            .unwrap_or_else(|_| serde_json::Value::String(raw.to_string()));
        let mut slot = &mut value;
        for part in key.split('.') {
            slot = slot
                .get_mut(part)
                .ok_or_else(|| anyhow::anyhow!("--set {key}: no such setting"))?;
        }
        *slot = new;
    }
    if !a.set.is_empty() {
        let before = project.settings()?;
        let settings: factdesk_api::settings::Settings = serde_json::from_value(value.clone())
            .map_err(|e| anyhow::anyhow!("invalid settings: {e}"))?;
        let by = a.by.lead(&project, "change the project's settings")?;
        project.set_settings(&by, &settings)?;
        let after = project.settings()?;
        if after.stance() != before.stance() && after.custom_evidence_guideline() {
            eprintln!(
                "note: the evidence stance is now {}, and your own evidence guideline is kept as written; make sure it asks for what the stance does",
                after.stance().as_str()
            );
        }
        value = serde_json::to_value(after)?;
    }
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}
