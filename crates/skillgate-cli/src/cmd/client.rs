//! `skillgate describe`, `skillgate call` and `skillgate chain`: the validated client.
//!
//! Text output shows every step of the draft's client sequence as it passes; JSON output is
//! one object on stdout. Exit 0 success, 1 any draft error code (local or remote) or a link
//! that does not compose, 2 usage, transport or protocol failure (with a one-line reason on
//! stderr).

use std::borrow::Cow;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use skillgate_client::{
    bounded_text, default_cache_dir, run_chain, ChainEvent, ChainFailure, ChainReport, Client,
    ClientConfig, ClientError, Mode, Plan, Resolved, SkillResult, Step,
};
use skillgate_core::wire::ErrorDetail;
use skillgate_transport::PLAIN_HTTP_NOTE;

use super::io::{read_input, read_json};
use super::net::{BindingArg, NetArgs};
use crate::exit;

/// Output format of the client commands.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum Format {
    /// Steps as they pass, then the result.
    Text,
    /// One JSON object on stdout.
    Json,
}

/// Flags shared by the client commands. No `Debug`: it holds the token.
#[derive(Args, Clone)]
pub struct ClientArgs {
    #[command(flatten)]
    net: NetArgs,
    /// Keep validated interfaces on disk in the user's cache directory ($XDG_CACHE_HOME if
    /// absolute, else ~/.cache; under skillgate/interfaces); every file is validated again on load. Without
    /// --cache or --cache-dir the cache lives in memory only.
    #[arg(long, conflicts_with = "cache_dir")]
    cache: bool,
    /// Keep validated interfaces on disk in DIR (as --cache does in the default directory).
    #[arg(long, value_name = "DIR", value_parser = parse_cache_dir)]
    cache_dir: Option<PathBuf>,
    /// Use this binding of the card (default: the card's first supported interface).
    #[arg(long, value_enum)]
    binding: Option<BindingArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// A directory for `--cache-dir`; a URL there is the agent's, swallowed by the flag.
fn parse_cache_dir(s: &str) -> Result<PathBuf, String> {
    if skillgate_transport::looks_like_url(s) {
        return Err(format!(
            "{s:?} is a URL, not a directory (for the default cache directory use --cache, \
             which takes no value)"
        ));
    }
    Ok(PathBuf::from(s))
}

impl ClientArgs {
    /// Whether the steps are printed as they pass (text mode without `--quiet`).
    fn steps_shown(&self) -> bool {
        self.format == Format::Text && !self.net.quiet
    }

    /// The client configuration for the agents at `targets`; with `stream_events`, each
    /// stream event is printed as it arrives.
    fn config_with(
        &self,
        targets: &[&str],
        stream_events: bool,
    ) -> Result<ClientConfig, ClientError> {
        Ok(ClientConfig {
            events: stream_events.then(|| super::agent::event_printer(self.format)),
            ..self.config(targets)?
        })
    }

    /// The client configuration for the agents at `targets`: the URLs the user gave, whose
    /// origins receive the credentials.
    fn config(&self, targets: &[&str]) -> Result<ClientConfig, ClientError> {
        let cache_dir = match (&self.cache_dir, self.cache) {
            (Some(d), _) => Some(d.clone()),
            (None, true) => Some(default_cache_dir().ok_or_else(|| {
                ClientError::usage(
                    "--cache: XDG_CACHE_HOME is not an absolute path and HOME is not set",
                )
            })?),
            (None, false) => None,
        };
        let t = self.net.transport(targets).map_err(ClientError::usage)?;
        Ok(ClientConfig {
            cache_dir,
            binding: self.binding.map(Into::into),
            ..ClientConfig::from_transport(t)
        })
    }
}

impl DescribeArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.common.format == Format::Json
    }
}

/// Arguments of `describe`.
#[derive(Args)]
pub struct DescribeArgs {
    /// Agent base URL or Agent Card URL.
    url: String,
    /// The skill whose interface to retrieve and validate.
    skill_id: String,
    /// Print only the validated Skill Interface Document (JSON) on stdout, no steps.
    #[arg(long, conflicts_with = "format")]
    document: bool,
    #[command(flatten)]
    common: ClientArgs,
}

impl CallArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.common.format == Format::Json
    }
}

/// Arguments of `call`.
#[derive(Args)]
pub struct CallArgs {
    /// Agent base URL or Agent Card URL.
    url: String,
    /// The skill to call.
    skill_id: String,
    /// The arguments: inline JSON, or @FILE (@- for stdin).
    #[arg(long, value_name = "JSON|@FILE")]
    args: String,
    /// Use SendStreamingMessage (server-sent events) instead of a blocking SendMessage.
    #[arg(long)]
    stream: bool,
    #[command(flatten)]
    common: ClientArgs,
}

impl ChainArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.common.format == Format::Json
    }
}

/// Arguments of `chain`.
#[derive(Args)]
pub struct ChainArgs {
    /// The plan: {"steps": [{"name", "agent", "skill", "arguments"} | {..., "from": STEP}]}.
    plan: String,
    /// Use SendStreamingMessage for every step.
    #[arg(long)]
    stream: bool,
    #[command(flatten)]
    common: ClientArgs,
}

/// A current-thread runtime for one command.
pub fn runtime() -> Result<tokio::runtime::Runtime, ClientError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ClientError::usage(format!("cannot start the async runtime: {e}")))
}

/// Prints one passed step.
pub fn print_step(indent: &str, step: Step, summary: &str) {
    outln!("{indent}✓ {:>2} {summary}", step.number());
}

fn detail_line(d: &ErrorDetail) -> String {
    let path = if d.instance_path.is_empty() {
        "/"
    } else {
        &d.instance_path
    };
    let mut s = format!("{path}:");
    if let Some(k) = &d.keyword {
        s.push_str(&format!(" {k}"));
    }
    if let Some(e) = &d.expected {
        s.push_str(&format!(" expected {e}"));
    }
    if let Some(a) = &d.actual {
        s.push_str(&format!(", found {a}"));
    }
    if let Some(p) = &d.schema_path {
        s.push_str(&format!(" (schema {p})"));
    }
    s
}

/// How the CLI ends the message of a 401 answer.
const TOKEN_HINT: &str = " (send a bearer token with --token or SKILLGATE_TOKEN)";

/// How the CLI words the scheme policy's refusal of plain HTTP (the library's
/// [`PLAIN_HTTP_NOTE`] names no flag).
const ALLOW_HTTP_HINT: &str = "HTTPS is required; --allow-http overrides";

/// `e` as the CLI reports it: a 401 answer says which flag or variable passes the bearer
/// token the agent wants, and a refusal of plain HTTP names `--allow-http` (the client
/// library names neither: an embedder has no such flags).
pub fn with_cli_hint(e: &ClientError) -> Cow<'_, ClientError> {
    match e {
        ClientError::Transport {
            step,
            message,
            status: Some(401),
        } if !message.ends_with(TOKEN_HINT) => {
            let base = message
                .strip_suffix(skillgate_client::BEARER_HINT)
                .unwrap_or(message);
            Cow::Owned(ClientError::Transport {
                step: *step,
                message: format!("{base}{TOKEN_HINT}"),
                status: Some(401),
            })
        }
        ClientError::Local { message, .. }
        | ClientError::Transport { message, .. }
        | ClientError::Protocol { message, .. }
        | ClientError::Usage { message }
            if message.contains(PLAIN_HTTP_NOTE) =>
        {
            let mut e = e.clone();
            if let ClientError::Local { message, .. }
            | ClientError::Transport { message, .. }
            | ClientError::Protocol { message, .. }
            | ClientError::Usage { message } = &mut e
            {
                *message = message.replace(PLAIN_HTTP_NOTE, ALLOW_HTTP_HINT);
            }
            Cow::Owned(e)
        }
        _ => Cow::Borrowed(e),
    }
}

/// Prints a failure in text form: the failed step, code, side, task, and details.
pub fn print_error_text(indent: &str, e: &ClientError) {
    let e = &*with_cli_hint(e);
    let step = e
        .step()
        .map(|s| format!("{:>2} ", s.number()))
        .unwrap_or_default();
    outln!(
        "{indent}✗ {step}{} ({}): {}",
        e.code_str(),
        e.where_().as_str(),
        bounded_text(e.message())
    );
    if let ClientError::Remote { task_id, state, .. } = e {
        outln!("{indent}     remote task {task_id} ended {state}");
    }
    let details = match e {
        ClientError::Local { details, .. } | ClientError::Remote { details, .. } => {
            details.as_slice()
        }
        _ => &[],
    };
    for d in details {
        outln!("{indent}     {}", bounded_text(&detail_line(d)));
    }
}

fn one_line(e: &ClientError) {
    let e = &*with_cli_hint(e);
    if exit::client(e.outcome()) == exit::USAGE {
        errln!("skillgate: {}", bounded_text(e.message()));
    }
}

/// Prints a failure: JSON on stdout with `--format json`; in text mode a finding (exit 1) on
/// stdout with its details, a failure (exit 2) only as the one line on stderr, never both.
fn fail(format: Format, e: &ClientError) -> u8 {
    let e = &*with_cli_hint(e);
    let code = exit::client(e.outcome());
    match format {
        Format::Json => outln!("{}", json_line(&e.output())),
        Format::Text if code != exit::USAGE => print_error_text("", e),
        Format::Text => {}
    }
    one_line(e);
    code
}

/// A failure of a plain A2A command (`skills`, `task`, `send`): as [`fail`], without the
/// step of the eleven (these commands run none of them after the card).
pub fn fail_plain(format: Format, e: &ClientError) -> u8 {
    let e = &*with_cli_hint(e);
    let code = exit::client(e.outcome());
    if format == Format::Json {
        let mut out = e.output();
        out.step = None;
        outln!("{}", json_line(&out));
    }
    one_line(e);
    code
}

/// One JSON document on one line; output structs hold only JSON-representable data.
pub fn json_line<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("{{\"ok\":false,\"message\":\"{e}\"}}"))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn indent_block(s: &str, by: &str) -> String {
    s.lines()
        .map(|l| format!("{by}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints a validated result in text form.
pub fn print_result_text(indent: &str, r: &SkillResult) {
    outln!(
        "{indent}{} {} completed: task {} {} (interface {})",
        r.skill_id,
        r.skill_version,
        r.task_id,
        r.state,
        r.interface_digest
    );
    outln!("{indent}output:");
    outln!(
        "{}",
        indent_block(&pretty(&r.output), &format!("{indent}  "))
    );
    if r.records.is_empty() {
        outln!("{indent}records: none");
    } else {
        outln!("{indent}records:");
        for rec in &r.records {
            outln!("{indent}  {} ({}):", rec.artifact_id, rec.kind);
            outln!(
                "{}",
                indent_block(&pretty(&rec.data), &format!("{indent}    "))
            );
        }
    }
}

fn text_observer(show: bool) -> impl FnMut(Step, &str) {
    move |step, summary| {
        if show {
            print_step("", step, summary)
        }
    }
}

/// `skillgate describe URL SKILL_ID`
pub fn describe(a: DescribeArgs) -> anyhow::Result<u8> {
    let format = a.common.format;
    let result = (|| {
        let client = Client::new(a.common.config(&[&a.url])?)?;
        let mut obs = text_observer(a.common.steps_shown() && !a.document);
        runtime()?.block_on(client.resolve(&a.url, &a.skill_id, &mut obs))
    })();
    Ok(match result {
        Ok(r) => {
            match format {
                // Through a Value so members print sorted, as they always have.
                Format::Json => outln!(
                    "{}",
                    serde_json::to_value(r.output())
                        .unwrap_or_else(|e| json!({"ok": false, "message": e.to_string()}))
                ),
                Format::Text if a.document => outln!("{}", pretty(r.document.value())),
                Format::Text => print_interface_summary(&r, &a.url),
            }
            exit::OK
        }
        Err(e) => fail(format, &e),
    })
}

/// The text form of a resolved interface: digest, a field table of the arguments, the
/// card's examples, and where the document itself is.
fn print_interface_summary(r: &Resolved, url: &str) {
    let doc = r.document.document();
    outln!(
        "{} {} (interface {})",
        r.document.skill_id(),
        r.document.skill_version(),
        r.document.interface_digest()
    );
    outln!(
        "arguments ({} {}):",
        doc.input_schema.schema_uri,
        doc.input_schema.version
    );
    let fields = skillgate_core::fields::field_rows(&doc.input_schema.resolution.schema);
    if fields.is_empty() {
        outln!("  (no named fields; see the document)");
    } else {
        let mut rows = vec![
            ["NAME", "TYPE", "REQUIRED", "ENUM", "BOUNDS", "DESCRIPTION"]
                .map(str::to_owned)
                .to_vec(),
        ];
        let dash = |s: String| if s.is_empty() { "-".to_owned() } else { s };
        for f in fields {
            let allowed: Vec<String> = f.allowed.iter().map(Value::to_string).collect();
            rows.push(vec![
                f.name,
                f.kind,
                if f.required { "yes" } else { "no" }.to_owned(),
                dash(allowed.join(",")),
                dash(f.bounds.join(", ")),
                dash(bounded_text(&f.description)),
            ]);
        }
        super::agent::table("  ", &rows);
    }
    outln!(
        "output: {} {}; records: {}",
        doc.output_schema.schema_uri,
        doc.output_schema.version,
        if doc.supporting_record_schemas.is_empty() {
            "none".to_owned()
        } else {
            doc.supporting_record_schemas
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let examples = r
        .target
        .card
        .skills
        .iter()
        .find(|s| s.id == r.document.skill_id())
        .map(|s| s.examples.as_slice())
        .unwrap_or_default();
    if !examples.is_empty() {
        outln!("examples (from the card):");
        for e in examples {
            outln!("  {}", bounded_text(e));
        }
    }
    outln!(
        "the document: skillgate describe {url} {} --document (or --format json)",
        r.document.skill_id()
    );
}

/// Reads a JSON flag (`--args`, `--data`): inline JSON or `@FILE` (`@-` = stdin), strictly
/// parsed.
pub fn read_json_arg(flag: &str, spec: &str) -> Result<Value, ClientError> {
    if let Some(path) = spec.strip_prefix('@') {
        return read_json(path).map_err(|e| ClientError::usage(format!("{flag}: {e:#}")));
    }
    if !super::io::is_blank(spec.as_bytes()) && std::path::Path::new(spec).is_file() {
        // `--args args.json` meant the file.
        if skillgate_core::jcs::parse_strict(spec.as_bytes()).is_err() {
            return Err(ClientError::usage(format!(
                "{flag} takes inline JSON or @FILE: to read the file {spec}, write {flag} @{spec}"
            )));
        }
    }
    super::io::parse_json(flag, spec.as_bytes()).map_err(ClientError::usage)
}

/// `skillgate call URL SKILL_ID --args JSON|@FILE`
pub fn call(a: CallArgs) -> anyhow::Result<u8> {
    let format = a.common.format;
    let mode = if a.stream { Mode::Stream } else { Mode::Sync };
    let result = (|| {
        let arguments = read_json_arg("--args", &a.args)?;
        let client = Client::new(a.common.config_with(&[&a.url], a.stream)?)?;
        let mut obs = text_observer(a.common.steps_shown());
        runtime()?.block_on(client.call(&a.url, &a.skill_id, &arguments, mode, &mut obs))
    })();
    Ok(match result {
        Ok(r) => {
            match format {
                Format::Json => outln!("{}", json_line(&r.output())),
                Format::Text => print_result_text("", &r),
            }
            exit::OK
        }
        Err(e) => fail(format, &e),
    })
}

/// Prints one chain event in text form, each line after `indent`.
pub fn print_chain_event(indent: &str, e: ChainEvent<'_>) {
    match e {
        ChainEvent::Step {
            name,
            step,
            summary,
        } => print_step(&format!("{indent}[{name}] "), step, summary),
        ChainEvent::Composes {
            upstream,
            downstream,
            schema,
        } => outln!("{indent}✓ {upstream} -> {downstream} composes directly: {schema}"),
        ChainEvent::Ready => {
            outln!("{indent}✓ every interface resolved and every link composes; delegating")
        }
        ChainEvent::Correlated(c) => outln!(
            "{indent}↳ correlation {} -> {}: {} ({}) -> {} ({})",
            c.upstream.step,
            c.downstream.step,
            c.upstream.task_id,
            c.upstream.interface_url,
            c.downstream.task_id,
            c.downstream.interface_url
        ),
    }
}

/// Prints a chain's per-step results in text form; the correlations too unless the events
/// already showed them as they happened (`correlations_shown`).
pub fn print_chain_report(report: &ChainReport, correlations_shown: bool) {
    for s in &report.steps {
        outln!("[{}] {} at {}", s.name, s.skill, s.result.card_url);
        print_result_text("  ", &s.result);
    }
    if correlations_shown {
        return;
    }
    for c in &report.correlations {
        outln!(
            "correlation {} -> {}: {} ({}) -> {} ({})",
            c.upstream.step,
            c.downstream.step,
            c.upstream.task_id,
            c.upstream.interface_url,
            c.downstream.task_id,
            c.downstream.interface_url
        );
    }
}

/// `skillgate chain PLAN.json`
pub fn chain(a: ChainArgs) -> anyhow::Result<u8> {
    let format = a.common.format;
    let mode = if a.stream { Mode::Stream } else { Mode::Sync };
    let setup = (|| {
        let bytes = read_input(&a.plan).map_err(|e| ClientError::usage(format!("{e:#}")))?;
        let value = super::io::parse_json(&a.plan, &bytes).map_err(ClientError::usage)?;
        let plan = Plan::from_value(value).map_err(|e| ClientError::usage(e.to_string()))?;
        // Every agent the plan names was named by the user: each gets the credentials.
        let agents: Vec<&str> = plan.steps.iter().map(|s| s.agent.as_str()).collect();
        let client = Client::new(a.common.config(&agents)?)?;
        Ok::<_, ClientError>((plan, client, runtime()?))
    })();
    let (plan, client, rt) = match setup {
        Ok(t) => t,
        Err(e) => return Ok(fail(format, &e)),
    };
    let show = a.common.steps_shown();
    let mut obs = |e: ChainEvent<'_>| {
        if show {
            print_chain_event("", e)
        }
    };
    Ok(
        match rt.block_on(run_chain(&client, &plan, mode, &mut obs)) {
            Ok(report) => {
                match format {
                    Format::Json => outln!("{}", json_line(&report.output(None))),
                    Format::Text => print_chain_report(&report, show),
                }
                exit::OK
            }
            Err((failure, report)) => {
                let failure = match failure {
                    ChainFailure::Step {
                        name,
                        error,
                        delegated,
                    } => ChainFailure::Step {
                        name,
                        error: with_cli_hint(&error).into_owned(),
                        delegated,
                    },
                    other => other,
                };
                match format {
                    Format::Json => outln!("{}", json_line(&report.output(Some(&failure)))),
                    Format::Text => {
                        print_chain_report(&report, show);
                        match &failure {
                            ChainFailure::NotComposable { .. } => {
                                outln!("✗ {failure}; nothing was delegated")
                            }
                            // On stderr only (below).
                            ChainFailure::InvalidPlan(_) => {}
                            ChainFailure::Step {
                                name,
                                error,
                                delegated,
                            } => {
                                if exit::client(error.outcome()) != exit::USAGE {
                                    print_error_text(&format!("[{name}] "), error);
                                }
                                if !delegated {
                                    outln!("  nothing was delegated");
                                }
                            }
                        }
                    }
                }
                match &failure {
                    ChainFailure::Step { error, .. } => one_line(error),
                    ChainFailure::InvalidPlan(m) => errln!("skillgate: {m}"),
                    ChainFailure::NotComposable { .. } => {}
                }
                exit::client(failure.outcome())
            }
        },
    )
}
