/// List the recipes: projects set up as a published study ran its annotation (`init
/// --recipe NAME`), with the settings each sets and the steps that follow, each marked as
/// the paper's choice or Factdesk's. See docs/recipes.md.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print them as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let recipes = factdesk_api::recipe::recipes();
    if a.json {
        return super::print_json(&recipes);
    }
    for r in recipes {
        println!("{}: {}", r.name, r.title);
        println!("  after {}", r.source);
        for (key, value) in &r.settings {
            println!("  sets {key} = {value}");
        }
        for step in &r.steps {
            let whose = match step.whose {
                factdesk_api::recipe::Whose::Paper => "paper",
                factdesk_api::recipe::Whose::Factdesk => "factdesk",
            };
            println!("  [{whose}] {}    # {}", step.command, step.does);
        }
        println!();
    }
    Ok(())
}
