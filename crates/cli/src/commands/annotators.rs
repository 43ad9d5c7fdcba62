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
        /// What the person does on the project.
        #[arg(long, value_enum, default_value = "annotator")]
        role: Role,
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
    /// List the sessions signed in to a team server (who, from where, opened, last used,
    /// expires; never a token), or end them: the holder signs in again with a password.
    Sessions {
        /// End every session of this person.
        #[arg(long, value_name = "NAME", conflicts_with = "end_id")]
        end: Option<String>,
        /// End the one session with this id, as listed.
        #[arg(long, value_name = "ID")]
        end_id: Option<String>,
        /// Print a JSON array (times in unix milliseconds).
        #[arg(long)]
        json: bool,
    },
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
    let by = a.by.lead(&project, "manage the people on the project")?;
    match a.action {
        Action::Add {
            name,
            role,
            password_stdin,
        } => {
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
            println!("password set for {}; their sessions ended", name.trim());
        }
        Action::Disable { name } => {
            project.set_disabled(&by, &name, true)?;
            println!(
                "{} is disabled; their sessions ended and the items they held went back to the pool",
                name.trim()
            );
        }
        Action::Enable { name } => {
            project.set_disabled(&by, &name, false)?;
            println!("{} may sign in again", name.trim());
        }
        Action::Sessions { end, end_id, json } => {
            if let Some(name) = end {
                let ended = project.end_sessions(&by, &name)?;
                println!("ended {ended} session(s) of {}", name.trim());
            } else if let Some(id) = end_id {
                project.end_session(&by, &id)?;
                println!("ended session {}", id.trim());
            } else {
                let sessions = project.sessions(&by)?;
                if json {
                    return super::print_json(&sessions);
                }
                print_sessions(&sessions);
            }
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

fn print_sessions(sessions: &[factdesk_api::sign_in::SessionInfo]) {
    println!(
        "{:<14}{:<20}{:<11}{:<18}{:<18}{:<18}expires",
        "id", "name", "role", "from", "opened", "last seen"
    );
    for s in sessions {
        println!(
            "{:<14}{:<20}{:<11}{:<18}{:<18}{:<18}{}",
            s.id,
            s.name,
            s.role.as_str(),
            s.address.as_deref().unwrap_or("-"),
            utc(s.created_at),
            s.last_seen_at.map_or_else(|| "-".to_string(), utc),
            utc(s.expires_at)
        );
    }
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM` in UTC (the server's clock, whatever the
/// reader's zone).
fn utc(ms: i64) -> String {
    let (days, minute) = (
        ms.div_euclid(86_400_000),
        ms.rem_euclid(86_400_000) / 60_000,
    );
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        minute / 60,
        minute % 60
    )
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

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_shown_in_utc_to_the_minute() {
        assert_eq!(super::utc(0), "1970-01-01 00:00");
        assert_eq!(super::utc(1_700_000_000_000), "2023-11-14 22:13");
        assert_eq!(super::utc(951_782_400_000), "2000-02-29 00:00");
    }
}
