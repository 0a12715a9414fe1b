//! `skillgate completions SHELL` and `skillgate man`: generated from the same clap definitions
//! as `--help`, so they cannot drift from the commands.

use clap::{Args, ValueEnum};
use clap_complete::Shell;

use crate::exit;

/// Shells `completions` writes for.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShellArg {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
}

/// Arguments of `completions`.
#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: ShellArg,
}

/// Prints the completion script of `cmd` for the shell.
pub fn completions(a: CompletionsArgs, mut cmd: clap::Command) -> anyhow::Result<u8> {
    let shell = match a.shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Powershell => Shell::PowerShell,
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "skillgate", &mut buf);
    crate::out::stdout_bytes(&buf);
    Ok(exit::OK)
}

/// Prints the man page of `cmd` (roff), every subcommand included.
pub fn man(cmd: clap::Command) -> anyhow::Result<u8> {
    let mut buf = Vec::new();
    render(cmd, &mut buf)?;
    crate::out::stdout_bytes(&buf);
    Ok(exit::OK)
}

/// The top-level page, then a section per subcommand (nested ones included) with its own
/// usage, arguments and examples.
fn render(cmd: clap::Command, buf: &mut Vec<u8>) -> std::io::Result<()> {
    let mut cmd = cmd;
    cmd.build();
    clap_mangen::Man::new(cmd.clone()).render(buf)?;
    fn walk(cmd: &clap::Command, prefix: &str, buf: &mut Vec<u8>) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = format!("{prefix} {}", sub.get_name());
            buf.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
            let man = clap_mangen::Man::new(sub.clone());
            man.render_synopsis_section(buf)?;
            man.render_description_section(buf)?;
            if sub.get_arguments().any(|a| !a.is_hide_set()) {
                man.render_options_section(buf)?;
            }
            if sub.get_after_help().is_some() {
                man.render_extra_section(buf)?;
            }
            walk(sub, &name, buf)?;
        }
        Ok(())
    }
    walk(&cmd, "skillgate", buf)
}
