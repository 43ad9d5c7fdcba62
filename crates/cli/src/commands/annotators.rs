use factdesk_api::annotators::Role;
use std::path::PathBuf;

/// Add or list the people who work on a project.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Add an annotator (or a lead).
    Add {
        name: String,
        /// lead or annotator.
        #[arg(long, default_value = "annotator")]
        role: String,
        /// Read the person's password for signing in to a team server from the first
        /// line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Set the password a person signs in to a team server with, read from the first
    /// line of standard input.
    Password { name: String },
    /// Disable a person: they can no longer sign in or act, and their sessions end.
    Disable { name: String },
    /// Let a disabled person sign in and act again.
    Enable { name: String },
    /// List annotators with their trick-sentence record.
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Count a flagged annotator's answers again (--include) or leave them out
    /// (--exclude); neither: follow the flag.
    Flag {
        name: String,
        #[arg(long, conflicts_with = "exclude")]
        include: bool,
        #[arg(long)]
        exclude: bool,
    },
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open(&a.project)?;
    let by = a.by.resolve(&project)?;
    match a.action {
        Action::Add {
            name,
            role,
            password_stdin,
        } => {
            let role = role.parse::<Role>()?;
            let added = if password_stdin {
                project.add_annotator_with_password(&by, &name, role, &read_password()?)?
            } else {
                project.add_annotator(&by, &name, role)?
            };
            println!("added {} ({})", added.name, added.role.as_str());
        }
        Action::Password { name } => {
            let password = read_password()?;
            project.set_password(&by, &name, &password)?;
            println!("password set for {}", name.trim());
        }
        Action::Disable { name } => {
            project.set_disabled(&by, &name, true)?;
            println!("{} is disabled; their sessions ended", name.trim());
        }
        Action::Enable { name } => {
            project.set_disabled(&by, &name, false)?;
            println!("{} may sign in again", name.trim());
        }
        Action::List { json } => {
            let list = project.annotators(&by)?;
            if json {
                return super::print_json(&list);
            }
            println!(
                "{:<20}{:<11}{:>8}{:>8}{:>10}  status",
                "name", "role", "tricks", "failed", "95% CI"
            );
            for x in list {
                let status = match (x.flagged, x.flag_override.as_deref()) {
                    (_, Some("include")) => "included by the lead",
                    (_, Some("exclude")) => "excluded by the lead",
                    (true, _) => "FLAGGED: answers left out",
                    _ => "ok",
                };
                // The interval the flag is decided on: flagged when its low end is
                // above the threshold.
                let interval = x.trick_failure_ci95.map_or_else(
                    || "-".to_string(),
                    |(lo, hi)| format!("{:.0}-{:.0}%", 100.0 * lo, 100.0 * hi),
                );
                println!(
                    "{:<20}{:<11}{:>8}{:>8}{:>10}  {status}",
                    x.name,
                    x.role.as_str(),
                    x.tricks_seen,
                    x.tricks_failed,
                    interval
                );
            }
        }
        Action::Flag {
            name,
            include,
            exclude,
        } => {
            let decision = match (include, exclude) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            };
            let x = project.set_flag_override(&by, &name, decision)?;
            println!(
                "{}: {}",
                x.name,
                if x.counted {
                    "answers counted"
                } else {
                    "answers left out"
                }
            );
        }
    }
    Ok(())
}

/// The first line of standard input, without its line ending: a password piped in, so
/// it shows in no command line or shell history.
fn read_password() -> anyhow::Result<String> {
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let password = line.trim_end_matches(['\n', '\r']).to_string();
    if password.is_empty() {
        anyhow::bail!("no password on standard input: pipe it in, e.g. `printf '%s\\n' \"$PASSWORD\" | factdesk annotators …`");
    }
    Ok(password)
}
