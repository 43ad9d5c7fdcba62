use std::path::PathBuf;

/// Show or change project settings: overlap, trick template, reservation time, checks,
/// qualification, guidelines.
///
/// --set takes dotted keys and JSON values: --set overlap=5 --set checks.negation_only=false
/// --set 'trick_template="It is false that {claim}"'.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
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
        let settings = serde_json::from_value(value.clone())
            .map_err(|e| anyhow::anyhow!("invalid settings: {e}"))?;
        project.set_settings(&settings)?;
    }
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}
