#[derive(Debug, clap::Args)] pub struct Args {} pub fn run(_a: Args) -> anyhow::Result<()> { Ok(()) }
