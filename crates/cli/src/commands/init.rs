use std::path::PathBuf;

/// Create a new, empty project file (or project database), optionally set up as a
/// published study ran its annotation (--recipe; `factdesk recipes` lists them).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file to create, e.g. covid.fdesk. It must not exist yet. Or a
    /// postgres://user@host/database URL of an empty database (password: PGPASSWORD).
    project: PathBuf,
    /// Set the project up by this recipe: covid-fact, wikifactcheck, multilingual,
    /// crowdchecked or zanzotto (docs/recipes.md). The steps that follow are printed.
    #[arg(long, value_name = "NAME")]
    recipe: Option<String>,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    // An unknown recipe is refused before anything is created.
    let recipe = a
        .recipe
        .as_deref()
        .map(factdesk_api::recipe::recipe)
        .transpose()?;
    let mut p = factdesk_api::Project::create(&a.project, Box::new(factdesk_api::SystemClock))?;
    println!("created {}", p.path().display());
    if let Some(recipe) = recipe {
        let lead = p.as_lead(&p.lead_or_owner(None)?, "set a project up by a recipe")?;
        p.apply_recipe(&lead, recipe.name)?;
        println!("set up by the {} recipe: {}", recipe.name, recipe.title);
        println!("next steps (docs/recipes.md):");
        for step in &recipe.steps[1..] {
            println!("  {}    # {}", step.command, step.does);
        }
    }
    Ok(())
}
