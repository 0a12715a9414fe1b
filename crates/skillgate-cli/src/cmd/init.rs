//! `skillgate init DIR`: a starter declarative agent (see `skillgate_agent::init`).

use clap::Args;
use std::path::PathBuf;

use crate::exit;

/// Arguments of `init`.
#[derive(Args, Debug)]
pub struct InitArgs {
    /// Directory to create (or an empty one to fill).
    pub dir: PathBuf,
}

/// Writes the starter agent and says how to serve and check it.
pub fn run(a: InitArgs) -> anyhow::Result<u8> {
    let files = skillgate_agent::init::init(&a.dir)?;
    for f in &files {
        outln!("wrote {}", f.display());
    }
    let config = a.dir.join("agent.toml");
    outln!();
    outln!(
        "serve it:  skillgate serve --config {} --store memory",
        config.display()
    );
    outln!("check it:  skillgate conformance http://127.0.0.1:7420");
    Ok(exit::OK)
}
