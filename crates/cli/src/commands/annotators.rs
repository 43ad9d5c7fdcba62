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
    let by = a.by.resolve(&project)?;
    match a.action {
        Action::Add { name, role } => {
            let added = project.add_annotator(&by, &name, role.parse::<Role>()?)?;
            println!("added {} ({})", added.name, added.role.as_str());
        }
        Action::List { json } => {
            let list = project.annotators(&by)?;
            if json {
                return super::print_json(&list);
            }
            println!(
                "{:<20}{:<11}{:>8}{:>8}  status",
                "name", "role", "tricks", "failed"
            );
            for x in list {
                let status = match (x.flagged, x.flag_override.as_deref()) {
                    (_, Some("include")) => "included by the lead",
                    (_, Some("exclude")) => "excluded by the lead",
                    (true, _) => "FLAGGED: answers left out",
                    _ => "ok",
                };
                println!(
                    "{:<20}{:<11}{:>8}{:>8}  {status}",
                    x.name,
                    x.role.as_str(),
                    x.tricks_seen,
                    x.tricks_failed
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
