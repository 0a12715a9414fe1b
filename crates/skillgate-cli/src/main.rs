//! `skillgate`: schema-governed A2A skills from the command line.
//!
//! Exit codes (every subcommand): 0 ok / valid, 1 invalid, not composable or a draft error
//! code, 2 usage error, unreadable input, transport or protocol failure.

#![deny(clippy::print_stdout, clippy::print_stderr)] // every write goes through `out`

#[macro_use]
mod out;
mod cmd;
mod exit;
mod fail;

use std::process::ExitCode;

/// The process allocator. A server's request path is allocation-heavy (parsed JSON, tasks,
/// events); with jemalloc a request costs 17-20% fewer instructions than with glibc malloc
/// and the server's RSS after 100,000 requests is 6-17% lower (docs/benchmarks.md).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// `--version`: the package version, the commit it was built from, the draft revision and the
/// A2A protocol version it implements (a unit test keeps the last in step with skillgate-a2a).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("SKILLGATE_GIT_COMMIT"),
    ")\ndraft: draft-huang-ainetops-agent-schema-interfaces-00\nA2A protocol: 1.0"
);

/// Schema interfaces for A2A agent skills (draft-huang-ainetops-agent-schema-interfaces-00).
#[derive(Parser)]
#[command(name = "skillgate", version = VERSION, about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 ok/valid, 1 invalid or a draft error code, \
2 usage error, unreadable input, transport or protocol failure.\n\n\
Examples:\n  skillgate demo\n  skillgate skills http://127.0.0.1:7420\n  \
skillgate call http://127.0.0.1:7420 collect_interface_counters --args '{\"interface\":\"lo\"}'"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the RFC 8785 canonical form of a JSON file (no trailing newline).
    Canonicalize(cmd::jcs::CanonicalizeArgs),
    /// Print the sha256 digest of a JSON file's canonical form.
    Digest(cmd::jcs::DigestArgs),
    /// Check and compose Skill Interface Documents.
    #[command(subcommand)]
    Interface(cmd::interface::InterfaceCommand),
    /// Lint Agent Cards.
    #[command(subcommand)]
    Card(cmd::card::CardCommand),
    /// Retrieve and validate a skill's interface (client steps 1-6) and print it.
    Describe(cmd::client::DescribeArgs),
    /// Call a skill through all eleven client validation steps.
    Call(cmd::client::CallArgs),
    /// Run a plan of skill calls, checking direct composition before delegating anything.
    Chain(cmd::client::ChainArgs),
    /// Start the netops example agent in-process and walk through describe, call and chain.
    Demo(cmd::demo::DemoArgs),
    /// Run an agent as an A2A 1.0 server (JSON-RPC and HTTP+JSON): a declarative agent with
    /// --config agent.toml, else the netops example agent.
    Serve(Box<cmd::serve::ServeArgs>),
    /// Serve a governed front for an existing A2A 1.0 agent, or for an MCP server's tools (an
    /// [mcp] table in the config): its skills get Skill Interface Documents, input is refused
    /// before it reaches the agent or tool, output is validated.
    Gateway(Box<cmd::gateway::GatewayArgs>),
    /// Write a starter declarative agent (agent.toml, one Python exec skill and its Skill
    /// Interface Document) into a new or empty directory.
    Init(cmd::init::InitArgs),
    /// Manage task stores (`store migrate`).
    #[command(subcommand)]
    Store(cmd::store::StoreCommand),
    /// Serve the web console for any A2A agent on loopback: its card with lint findings,
    /// validated skill documents, conformance, calls and tasks.
    Inspect(cmd::inspect::InspectArgs),
    /// Serve an agent's governed skills as MCP tools (stdio, or Streamable HTTP with --listen):
    /// each tool's interface checked three ways, input validated before anything is sent,
    /// output validated, refusals as isError with the draft's code.
    Mcp(cmd::mcp::McpArgs),
    /// Probe an agent for the schema-interface draft: every check with an id, verdict and evidence.
    Conformance(cmd::conformance::ConformanceArgs),
    /// List an agent's skills: id, version, interface digest, modes, tags.
    Skills(cmd::agent::SkillsArgs),
    /// Read, list, cancel or follow an agent's tasks.
    #[command(subcommand)]
    Task(cmd::task::TaskCommand),
    /// Send a plain A2A message (no schema governance), for agents without the extension.
    Send(cmd::agent::SendArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell).
    Completions(cmd::docs::CompletionsArgs),
    /// Print the man page (roff), every command included.
    Man,
    /// Generated documentation: `docs markdown` prints docs/cli.md.
    #[command(subcommand, hide = true)]
    Docs(cmd::docs::DocsCommand),
}

impl Command {
    /// Whether the command was asked for `--format json` (its failures are then JSON too).
    fn json(&self) -> bool {
        match self {
            Command::Interface(c) => c.json(),
            Command::Card(c) => c.json(),
            Command::Describe(a) => a.json(),
            Command::Call(a) => a.json(),
            Command::Chain(a) => a.json(),
            Command::Conformance(a) => a.json(),
            Command::Skills(a) => a.json(),
            Command::Task(c) => c.json(),
            Command::Send(a) => a.json(),
            _ => false,
        }
    }
}

/// Whether the raw arguments ask for `--format json` (for errors found before parsing ends).
fn json_requested() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--format=json")
        || args
            .windows(2)
            .any(|w| w[0] == "--format" && w[1] == "json")
}

/// A clap error on one line: its text up to the usage, lines joined.
fn clap_one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts = Vec::new();
    for line in text.lines() {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        let line = line.trim();
        if !line.is_empty() {
            parts.push(line.trim_start_matches("error: "));
        }
    }
    parts.join(" ")
}

/// The clap definition of every command, with the examples of each `--help`.
fn command() -> clap::Command {
    cmd::examples::apply(Cli::command())
}

fn main() -> ExitCode {
    let parsed = command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::from(exit::OK);
            }
            if json_requested() {
                let message = clap_one_line(&e);
                errln!("skillgate: {message}");
                fail::print(fail::json("usage_error", &message));
            } else {
                let _ = e.print();
            }
            let _ = out::finish();
            return ExitCode::from(exit::USAGE);
        }
    };
    let json = cli.command.json();
    let result = match cli.command {
        Command::Canonicalize(a) => cmd::jcs::canonicalize(a),
        Command::Digest(a) => cmd::jcs::digest(a),
        Command::Interface(c) => cmd::interface::run(c),
        Command::Card(c) => cmd::card::run(c),
        Command::Describe(a) => cmd::client::describe(a),
        Command::Call(a) => cmd::client::call(a),
        Command::Chain(a) => cmd::client::chain(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Serve(a) => cmd::serve::run(*a),
        Command::Gateway(a) => cmd::gateway::run(*a),
        Command::Init(a) => cmd::init::run(a),
        Command::Conformance(a) => cmd::conformance::run(a),
        Command::Inspect(a) => cmd::inspect::run(a),
        Command::Mcp(a) => cmd::mcp::run(a),
        Command::Store(c) => cmd::store::run(c),
        Command::Skills(a) => cmd::agent::skills(a),
        Command::Task(c) => cmd::task::run(c),
        Command::Send(a) => cmd::agent::send(a),
        Command::Completions(a) => cmd::docs::completions(a, command()),
        Command::Man => cmd::docs::man(command()),
        Command::Docs(c) => cmd::docs::docs(c, command()),
    };
    // Log lines still queued for stderr go out before the command's own last words.
    skillgate_server::logs::flush();
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            let message = skillgate_transport::redact_text(&chain_text(&e));
            errln!("skillgate: {message}");
            if json {
                fail::print(fail::json("usage_error", &message));
            }
            exit::USAGE
        }
    };
    // A reader that went away is not a failure (the code stands); any other write error is.
    match out::finish() {
        Ok(()) => ExitCode::from(code),
        Err(e) => {
            errln!("skillgate: cannot write to stdout: {e}");
            ExitCode::from(exit::USAGE)
        }
    }
}

/// An error and its causes in one line, joined by `: ` as anyhow's `{:#}` does, except that a
/// cause whose text the line already holds is left out: many errors (thiserror's `{source}`
/// in the message) print their cause themselves, and `{:#}` then printed it twice, e.g. the
/// gateway's "upstream agent URL: transport failure ...: transport failure ...".
fn chain_text(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn a_cause_the_message_already_shows_is_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = anyhow::Error::new(io).context("x.json: cannot read: gone");
        assert_eq!(super::chain_text(&e), "x.json: cannot read: gone");
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(super::chain_text(&e), "outer: inner");
    }

    /// Every command a user can run has an `Examples:` section in its `--help`.
    #[test]
    fn every_command_has_examples() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            let subs: Vec<_> = cmd
                .get_subcommands()
                .filter(|s| s.get_name() != "help")
                .collect();
            if subs.is_empty() {
                let has = cmd
                    .get_after_help()
                    .is_some_and(|h| h.to_string().contains("Examples:"));
                if !has {
                    missing.push(path.to_owned());
                }
            }
            for s in subs {
                walk(s, &format!("{path} {}", s.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&command(), "skillgate", &mut missing);
        assert!(missing.is_empty(), "no examples: {missing:?}");
        command().debug_assert();
    }

    #[test]
    fn version_names_the_a2a_version_of_the_wire_layer() {
        assert!(VERSION.contains(&format!(
            "A2A protocol: {}",
            skillgate_a2a::PROTOCOL_VERSION
        )));
    }
}
