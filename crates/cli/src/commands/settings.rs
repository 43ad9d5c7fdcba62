use factdesk_api::settings::Settings;
use factdesk_api::{Error, ErrorCode};
use std::path::PathBuf;

/// Show or change project settings: overlap, evidence stance, trick template, reservation
/// time, checks, qualification, guidelines.
///
/// --set takes dotted keys and JSON values: --set overlap=5 --set checks.negation_only=false
/// --set evidence_stance=supports (or supports_or_refutes)
/// --set 'trick_template="It is false that {claim}"'. Space around a value is refused
/// (except around a JSON object or array).
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
    let mut pairs = Vec::new();
    for pair in &a.set {
        let (key, raw) = pair
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--set {pair:?}: expected KEY=VALUE"))?;
        pairs.push((key, value_of(key, raw)?));
    }
    let mut shown = project.settings()?;
    if !pairs.is_empty() {
        let before = shown.clone();
        let by = a.by.lead(&project, "change the project's settings")?;
        // Made on the settings as stored, and again on a colleague's save that lands
        // between the read and the write.
        shown = project.change_settings(&by, |settings| changed(settings, &pairs))?;
        if shown.stance() != before.stance() && shown.custom_evidence_guideline() {
            eprintln!(
                "note: the evidence stance is now {}, and your own evidence guideline is kept as written; make sure it asks for what the stance does",
                shown.stance().as_str()
            );
        }
    }
    println!("{}", serde_json::to_string_pretty(&shown)?);
    Ok(())
}

/// The value `raw` stands for: JSON, or else the text as a string, so that
/// --set trick_template=... needs no quotes. Space around a value is refused, as JSON
/// drops it unseen (`seed= 7` set the seed to 7, though a seed is digits alone) and text
/// keeps it unseen; only around an object or array (a design from a file) is it layout.
fn value_of(key: &str, raw: &str) -> Result<serde_json::Value, Error> {
    let parsed = serde_json::from_str(raw);
    if let Ok(value @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) = parsed {
        return Ok(value);
    }
    if raw.trim() != raw {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("--set {key}: {raw:?} begins or ends with a space; write the value without it"),
        ));
    }
    Ok(parsed.unwrap_or_else(|_| serde_json::Value::String(raw.to_string())))
}

/// `settings` with each dotted key of `pairs` set to its value.
fn changed(settings: Settings, pairs: &[(&str, serde_json::Value)]) -> Result<Settings, Error> {
    let invalid = |message: String| Error::new(ErrorCode::InvalidInput, message);
    let mut value = serde_json::to_value(settings).map_err(|e| invalid(e.to_string()))?;
    for (key, new) in pairs {
        let mut slot = &mut value;
        for part in key.split('.') {
            slot = slot
                .get_mut(part)
                .ok_or_else(|| invalid(format!("--set {key}: no such setting")))?;
        }
        *slot = new.clone();
    }
    serde_json::from_value(value).map_err(|e| invalid(format!("invalid settings: {e}")))
}
