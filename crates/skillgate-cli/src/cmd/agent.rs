//! `skillgate skills URL` and `skillgate send URL`: plain A2A 1.0 exchanges outside the draft's
//! governance, with the client commands' output conventions (text for people, one JSON object
//! per line with `--format json`, the one failure shape on exit 2). The formatting of tasks,
//! messages and stream events shared with `task` lives here too.

use clap::Args;
use serde_json::{json, Value};
use skillgate_a2a::{Message, Part, PartContent, SendMessageResponse, StreamResponse, Task};
use skillgate_client::{bounded_text, Client, ClientConfig, ClientError, Content, EventSink};

use super::client::{fail_plain, json_line, runtime, Format};
use super::net::{BindingArg, NetArgs};
use crate::exit;

/// The flags of every plain A2A command (`skills`, `task`, `send`). No `Debug`: it holds the
/// token.
#[derive(Args, Clone)]
pub struct PlainArgs {
    #[command(flatten)]
    pub net: NetArgs,
    /// Use this binding of the card (default: the card's first supported interface).
    #[arg(long, value_enum)]
    pub binding: Option<BindingArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

impl PlainArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.format == Format::Json
    }

    /// A client for these flags talking to the agent at `url` (whose origin receives the
    /// credentials); with `stream_events`, every stream event is printed as it arrives (text:
    /// one line; json: one object per line).
    pub fn client(&self, url: &str, stream_events: bool) -> Result<Client, ClientError> {
        let t = self.net.transport(&[url]).map_err(ClientError::usage)?;
        let format = self.format;
        Client::new(ClientConfig {
            binding: self.binding.map(Into::into),
            events: stream_events.then(|| event_printer(format)),
            ..ClientConfig::from_transport(t)
        })
    }
}

/// Prints each stream event as it arrives.
pub fn event_printer(format: Format) -> EventSink {
    EventSink::new(move |e| match format {
        Format::Json => outln!("{}", json_line(e)),
        Format::Text => outln!("{}", event_line(e)),
    })
}

/// One stream event on one line.
pub fn event_line(e: &StreamResponse) -> String {
    match e {
        StreamResponse::Task(t) => format!("event task {} {}", t.id, t.status.state),
        StreamResponse::Message(m) => format!("event message: {}", parts_text(&m.parts)),
        StreamResponse::StatusUpdate(u) => {
            let said = u
                .status
                .message
                .as_ref()
                .map(|m| format!(": {}", parts_text(&m.parts)))
                .unwrap_or_default();
            format!("event status {} {}{said}", u.task_id, u.status.state)
        }
        StreamResponse::ArtifactUpdate(u) => format!(
            "event artifact {} {}{} ({}): {}",
            u.task_id,
            u.artifact.artifact_id,
            if u.append { " +append" } else { "" },
            if u.artifact.name.is_empty() {
                "unnamed"
            } else {
                &u.artifact.name
            },
            parts_text(&u.artifact.parts)
        ),
    }
}

/// Parts in one bounded line: text as is, data as compact JSON, files by reference.
pub fn parts_text(parts: &[Part]) -> String {
    let one = |p: &Part| match &p.content {
        PartContent::Text(s) => s.clone(),
        PartContent::Data(v) => v.to_string(),
        PartContent::SharedData(v) => v.value().to_string(),
        PartContent::Url(u) => format!("file at {u}"),
        PartContent::Raw(b) => format!("file of {} base64 characters", b.len()),
    };
    let all: Vec<String> = parts.iter().map(one).collect();
    let text = bounded_text(&all.join(" | ")).replace('\n', " ");
    if text.chars().count() > 300 {
        format!("{}…", text.chars().take(300).collect::<String>())
    } else {
        text
    }
}

/// A task in text form: id, state, context, the status message and every artifact.
pub fn print_task(t: &Task) {
    outln!("task {} {}", t.id, t.status.state);
    outln!("  context {}", t.context_id);
    if let Some(ts) = &t.status.timestamp {
        outln!("  updated {ts}");
    }
    if let Some(m) = &t.status.message {
        outln!("  status message: {}", parts_text(&m.parts));
    }
    for a in &t.artifacts {
        outln!(
            "  artifact {} ({}): {}",
            a.artifact_id,
            if a.name.is_empty() {
                "unnamed"
            } else {
                &a.name
            },
            parts_text(&a.parts)
        );
    }
}

fn print_message(m: &Message) {
    outln!("message {} from the agent", m.message_id);
    outln!("  {}", parts_text(&m.parts));
}

/// `{"ok": true, "task": TASK}` with the task as A2A puts it on the wire.
pub fn task_json(t: &Task) -> Value {
    json!({"ok": true, "task": t})
}

/// Arguments of `skills`.
#[derive(Args)]
pub struct SkillsArgs {
    /// Agent base URL or Agent Card URL.
    url: String,
    #[command(flatten)]
    common: PlainArgs,
}

impl SkillsArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.common.json()
    }
}

/// Prints `rows` (the first is the header) as left-aligned columns, each line after `indent`.
pub fn table(indent: &str, rows: &[Vec<String>]) {
    let cols = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in rows {
        let mut line = indent.to_owned();
        for (c, cell) in r.iter().enumerate() {
            if c + 1 == cols {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  ", w = widths[c]));
            }
        }
        outln!("{}", line.trim_end());
    }
}

/// `skillgate skills URL`: exit 0 with the card's skills, 2 when no card could be read.
pub fn skills(a: SkillsArgs) -> anyhow::Result<u8> {
    let format = a.common.format;
    let result = (|| {
        let client = a.common.client(&a.url, false)?;
        runtime()?.block_on(client.fetch_target(&a.url, &mut |_, _| {}))
    })();
    let target = match result {
        Ok(t) => t,
        Err(e) => return Ok(fail_plain(format, &e)),
    };
    let skills = skillgate_client::skills(&target.card);
    match format {
        Format::Json => outln!(
            "{}",
            json!({
                "ok": true,
                "agent": target.card.name,
                "card_url": target.card_url.to_string(),
                "skills": skills,
            })
        ),
        Format::Text => {
            let dash = || "-".to_owned();
            let mut rows = vec![["ID", "VERSION", "DIGEST", "MODES", "TAGS"]
                .map(str::to_owned)
                .to_vec()];
            for s in &skills {
                rows.push(vec![
                    s.id.clone(),
                    s.version.clone().unwrap_or_else(dash),
                    s.interface_digest.clone().unwrap_or_else(dash),
                    format!(
                        "{} -> {}",
                        s.input_modes.join(","),
                        s.output_modes.join(",")
                    ),
                    if s.tags.is_empty() {
                        dash()
                    } else {
                        s.tags.join(",")
                    },
                ]);
            }
            table("", &rows);
        }
    }
    Ok(exit::OK)
}

/// Arguments of `send`.
#[derive(Args)]
#[command(group = clap::ArgGroup::new("content").required(true).args(["text", "data"]))]
pub struct SendArgs {
    /// Agent base URL or Agent Card URL.
    url: String,
    /// Send one text part.
    #[arg(long, value_name = "TEXT")]
    text: Option<String>,
    /// Send one data part: inline JSON, or @FILE (@- for stdin).
    #[arg(long, value_name = "JSON|@FILE")]
    data: Option<String>,
    #[command(flatten)]
    common: PlainArgs,
}

impl SendArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        self.common.json()
    }
}

/// `skillgate send URL --text T | --data JSON`: a plain blocking SendMessage. Exit 0 with the
/// agent's answer (a task in any state, or a message), 2 on a usage, transport or protocol
/// failure.
pub fn send(a: SendArgs) -> anyhow::Result<u8> {
    let format = a.common.format;
    let result = (|| {
        let content = match (&a.text, &a.data) {
            (Some(t), _) => Content::Text(t.clone()),
            (None, Some(d)) => Content::Data(super::client::read_json_arg("--data", d)?),
            (None, None) => return Err(ClientError::usage("give --text or --data")),
        };
        let client = a.common.client(&a.url, false)?;
        runtime()?.block_on(async {
            let (_, conn) = client.connect(&a.url, &mut |_, _| {}).await?;
            conn.send_plain(content).await
        })
    })();
    match result {
        Ok(SendMessageResponse::Task(t)) => match format {
            Format::Json => outln!("{}", task_json(&t)),
            Format::Text => print_task(&t),
        },
        Ok(SendMessageResponse::Message(m)) => match format {
            Format::Json => outln!("{}", json!({"ok": true, "message": m})),
            Format::Text => print_message(&m),
        },
        Err(e) => return Ok(fail_plain(format, &e)),
    }
    Ok(exit::OK)
}
