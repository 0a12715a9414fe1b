//! `skillgate interface diff` and `skillgate card diff`: reading the inputs and printing the
//! reports of `skillgate-evolve`, which does every comparison.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use skillgate_client::{Client, ClientConfig, Target};
use skillgate_core::document::{Expectations, Finding, ValidatedDocument};
use skillgate_evolve::{diff, diff_cards, output, SkillChange};
use skillgate_transport::looks_like_url;

use super::client::runtime;
use super::io::read_json;
use crate::exit;

/// Output format of `interface diff`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum DiffFormat {
    /// A verdict line, then one line per change, worst first.
    Text,
    /// One JSON object: the verdict, the algebra's decisions, every finding.
    Json,
    /// SARIF 2.1.0 for code-scanning UIs (results on NEW, or OLD for what NEW lacks).
    Sarif,
}

/// Arguments of `interface diff`.
#[derive(Args)]
pub struct DiffArgs {
    /// The earlier Skill Interface Document (file, or `-` for stdin).
    old: String,
    /// The later Skill Interface Document of the same skill.
    new: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
}

impl DiffArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.format == DiffFormat::Json
    }
}

/// Output format of `card diff`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum CardDiffFormat {
    /// One line per skill, each interface verdict indented below it.
    Text,
    /// `{"ok", "skills": [...]}`.
    Json,
}

/// Arguments of `card diff`.
#[derive(Args)]
pub struct CardDiffArgs {
    /// The earlier Agent Card: a file, `-` for stdin, or a live agent's URL (base or card URL;
    /// the card is fetched as `skillgate describe` fetches it).
    old: String,
    /// The later Agent Card of the same agent (file, `-` or URL).
    new: String,
    /// A Skill Interface Document of either card (repeatable). A re-versioned skill gets its
    /// interface verdict when the documents OLD and NEW advertise (matched by skill id and
    /// digest) are both given.
    #[arg(long = "interface", value_name = "FILE")]
    interfaces: Vec<String>,
    /// For each re-versioned skill, fetch the documents OLD and NEW advertise through
    /// describe_skill from the side(s) given as URLs (each checked three ways against its
    /// card, as `describe` does); `--interface` files fill in for a side given as a file. A
    /// failed fetch stops the diff (exit 2): a verdict never goes missing silently.
    #[arg(long)]
    deep: bool,
    #[command(flatten)]
    net: super::net::NetArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CardDiffFormat::Text)]
    format: CardDiffFormat,
}

impl CardDiffArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.format == CardDiffFormat::Json
    }
}

fn load(path: &str) -> Result<std::result::Result<ValidatedDocument, Vec<Finding>>> {
    let value = read_json(path)?;
    Ok(ValidatedDocument::from_value(&value, &Expectations::default()).map_err(|e| e.findings))
}

fn pretty(v: &impl serde::Serialize) -> Result<String> {
    Ok(serde_json::to_string_pretty(v).context("cannot serialize the report")? + "\n")
}

/// `interface diff`: exit 0 when NEW's version carries the bump the changes need, 1 when it
/// does not (or a document is invalid), 2 when an input is unreadable.
pub fn interface_diff(a: DiffArgs) -> Result<u8> {
    let old = load(&a.old).with_context(|| "OLD document".to_owned())?;
    let new = load(&a.new).with_context(|| "NEW document".to_owned())?;
    let (old, new) = match (old, new) {
        (Ok(o), Ok(n)) => (o, n),
        (o, n) => return invalid(a.format, o.err(), n.err()),
    };
    let report = diff(&old, &new);
    let text = match a.format {
        DiffFormat::Text => output::to_text(&report),
        DiffFormat::Json => pretty(&output::to_json(&report))?,
        DiffFormat::Sarif => pretty(&output::to_sarif(
            &report,
            &super::card::artifact_uri(&a.old),
            &super::card::artifact_uri(&a.new),
        ))?,
    };
    out!("{text}");
    Ok(if report.carried {
        exit::OK
    } else {
        exit::INVALID
    })
}

/// An invalid OLD or NEW: exit 1 with its findings (the same contract as `interface check`).
fn invalid(format: DiffFormat, old: Option<Vec<Finding>>, new: Option<Vec<Finding>>) -> Result<u8> {
    let all: Vec<(&str, Finding)> = [("old", old), ("new", new)]
        .into_iter()
        .flat_map(|(w, f)| f.unwrap_or_default().into_iter().map(move |f| (w, f)))
        .collect();
    if format == DiffFormat::Text {
        outln!("not compared: a document is invalid");
        for (w, f) in &all {
            outln!("  {w}: {f}");
        }
    } else {
        let list: Vec<Value> = all
            .iter()
            .map(|(w, f)| json!({"document": w, "code": f.code, "path": f.path, "message": f.message}))
            .collect();
        outln!(
            "{}",
            json!({"compared": false, "reason": "invalid_document", "findings": list})
        );
    }
    Ok(exit::INVALID)
}

/// `card diff`: exit 0 when no skill has a problem, 1 when one does (removed, re-published
/// under the same version, or re-versioned without the bump its interface needs), 2 when an
/// input is unreadable. Interface files that are not valid documents are refused (exit 2):
/// a verdict must not silently go missing.
pub fn card_diff(a: CardDiffArgs) -> Result<u8> {
    let urls: Vec<&str> = [a.old.as_str(), a.new.as_str()]
        .into_iter()
        .filter(|s| looks_like_url(s))
        .collect();
    if a.deep && urls.is_empty() {
        anyhow::bail!(
            "--deep fetches documents from live agents: give OLD or NEW as an agent URL (for \
             card files, give the documents with --interface)"
        );
    }
    let live = if urls.is_empty() {
        None
    } else {
        let config =
            ClientConfig::from_transport(a.net.transport(&urls).map_err(anyhow::Error::msg)?);
        Some((Client::new(config)?, runtime()?))
    };
    let old = card(&a.old, live.as_ref()).with_context(|| "OLD card".to_owned())?;
    let new = card(&a.new, live.as_ref()).with_context(|| "NEW card".to_owned())?;
    let mut documents = Vec::with_capacity(a.interfaces.len());
    for path in &a.interfaces {
        let value = read_json(path)?;
        let doc =
            ValidatedDocument::from_value(&value, &Expectations::default()).with_context(|| {
                format!("--interface {path} is not a valid Skill Interface Document")
            })?;
        documents.push(doc);
    }
    let mut report = diff_cards(&old.card, &new.card, &documents);
    if let (true, Some((client, rt))) = (a.deep, &live) {
        // The re-versioned skills still without a verdict: their documents are fetched from
        // the live side(s), then the diff is made again with them.
        let wanted: Vec<String> = report
            .skills
            .iter()
            .filter(|s| s.change == SkillChange::Reversioned && s.interface.is_none())
            .map(|s| s.skill_id.clone())
            .collect();
        for id in &wanted {
            for (side, which) in [(&old, "OLD"), (&new, "NEW")] {
                let Some(target) = &side.target else { continue };
                let resolved = rt
                    .block_on(client.resolve_target(target.clone(), id, &mut |_, _| {}))
                    .with_context(|| format!("--deep: describe_skill of {id} on {which}"))?;
                documents.push(resolved.document);
            }
        }
        if !wanted.is_empty() {
            report = diff_cards(&old.card, &new.card, &documents);
        }
    }
    match a.format {
        CardDiffFormat::Text => out!("{}", output::card_to_text(&report)),
        CardDiffFormat::Json => out!("{}", pretty(&output::card_to_json(&report))?),
    }
    Ok(if report.has_problems() {
        exit::INVALID
    } else {
        exit::OK
    })
}

/// One side of `card diff`: the card as JSON and, for a live agent, the fetched target
/// (`--deep` asks it for documents).
struct Side {
    card: Value,
    target: Option<Target>,
}

/// Reads a card file, or fetches a live agent's card (steps 1 of the client: bounds, scheme
/// policy, `--trust-jwks`).
fn card(input: &str, live: Option<&(Client, tokio::runtime::Runtime)>) -> Result<Side> {
    match live {
        Some((client, rt)) if looks_like_url(input) => {
            let target = rt.block_on(client.fetch_target(input, &mut |_, _| {}))?;
            let card = serde_json::to_value(&target.card)
                .context("cannot read the fetched card as JSON")?;
            Ok(Side {
                card,
                target: Some(target),
            })
        }
        _ => Ok(Side {
            card: read_json(input)?,
            target: None,
        }),
    }
}
