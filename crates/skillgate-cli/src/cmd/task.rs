//! `skillgate task get|list|cancel|subscribe URL [TASK_ID]`: the A2A task operations on the
//! card's selected interface (JSON-RPC or HTTP+JSON, `--binding` to choose), with the output
//! conventions of the other client commands.

use clap::{Args, Subcommand};
use serde_json::json;
use skillgate_a2a::{ListTasksRequest, TaskState};

use super::agent::{print_task, task_json, PlainArgs};
use super::client::{fail_plain, runtime, Format};
use crate::exit;

/// The task operations.
#[derive(Subcommand)]
pub enum TaskCommand {
    /// Print a task's state, status message and artifacts (GetTask).
    Get(TaskIdArgs),
    /// List the caller's tasks, newest first (ListTasks, one page).
    List(TaskListArgs),
    /// Ask the agent to cancel a task and print the task it reports (CancelTask).
    Cancel(TaskIdArgs),
    /// Follow a task's events until it ends, one line (or JSON object) per event as it
    /// arrives, then the task (SubscribeToTask).
    Subscribe(TaskIdArgs),
}

impl TaskCommand {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        match self {
            TaskCommand::Get(a) | TaskCommand::Cancel(a) | TaskCommand::Subscribe(a) => {
                a.common.json()
            }
            TaskCommand::List(a) => a.common.json(),
        }
    }
}

/// Arguments of the operations on one task.
#[derive(Args)]
pub struct TaskIdArgs {
    /// Agent base URL or Agent Card URL.
    url: String,
    /// The task id.
    task_id: String,
    #[command(flatten)]
    common: PlainArgs,
}

/// Task states `--state` accepts.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum StateArg {
    /// Submitted.
    Submitted,
    /// Working.
    Working,
    /// Completed.
    Completed,
    /// Failed.
    Failed,
    /// Canceled.
    Canceled,
    /// Input required.
    InputRequired,
    /// Rejected.
    Rejected,
    /// Auth required.
    AuthRequired,
}

impl From<StateArg> for TaskState {
    fn from(s: StateArg) -> Self {
        match s {
            StateArg::Submitted => TaskState::Submitted,
            StateArg::Working => TaskState::Working,
            StateArg::Completed => TaskState::Completed,
            StateArg::Failed => TaskState::Failed,
            StateArg::Canceled => TaskState::Canceled,
            StateArg::InputRequired => TaskState::InputRequired,
            StateArg::Rejected => TaskState::Rejected,
            StateArg::AuthRequired => TaskState::AuthRequired,
        }
    }
}

/// Arguments of `task list`.
#[derive(Args)]
pub struct TaskListArgs {
    /// Agent base URL or Agent Card URL.
    url: String,
    /// Only tasks in this state.
    #[arg(long, value_enum)]
    state: Option<StateArg>,
    /// Only tasks of this context.
    #[arg(long, value_name = "ID")]
    context: Option<String>,
    /// Tasks per page, 1 to 100 (the agent's default: 50).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=100))]
    page_size: Option<i32>,
    /// The page after the one that returned this token.
    #[arg(long, value_name = "TOKEN")]
    page_token: Option<String>,
    #[command(flatten)]
    common: PlainArgs,
}

/// Exit 0 with the task (or page), 2 when it cannot be read (an unknown task is the agent's
/// error, reported as a protocol failure).
pub fn run(c: TaskCommand) -> anyhow::Result<u8> {
    match c {
        TaskCommand::List(a) => list(a),
        TaskCommand::Get(a) => one(a, Op::Get),
        TaskCommand::Cancel(a) => one(a, Op::Cancel),
        TaskCommand::Subscribe(a) => one(a, Op::Subscribe),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Get,
    Cancel,
    Subscribe,
}

fn one(a: TaskIdArgs, op: Op) -> anyhow::Result<u8> {
    let format = a.common.format;
    let result = (|| {
        let client = a.common.client(&a.url, op == Op::Subscribe)?;
        runtime()?.block_on(async {
            let (_, conn) = client.connect(&a.url, &mut |_, _| {}).await?;
            match op {
                Op::Get => conn.task(&a.task_id).await,
                Op::Cancel => conn.cancel(&a.task_id).await,
                Op::Subscribe => conn.subscribe(&a.task_id).await,
            }
        })
    })();
    Ok(match result {
        Ok(t) => {
            match format {
                Format::Json => outln!("{}", task_json(&t)),
                Format::Text => print_task(&t),
            }
            exit::OK
        }
        Err(e) => fail_plain(format, &e),
    })
}

fn list(a: TaskListArgs) -> anyhow::Result<u8> {
    let format = a.common.format;
    let request = ListTasksRequest {
        context_id: a.context.clone().unwrap_or_default(),
        status: a.state.map(Into::into).unwrap_or_default(),
        page_size: a.page_size,
        page_token: a.page_token.clone().unwrap_or_default(),
        ..ListTasksRequest::default()
    };
    let result = (|| {
        let client = a.common.client(&a.url, false)?;
        runtime()?.block_on(async {
            let (_, conn) = client.connect(&a.url, &mut |_, _| {}).await?;
            conn.list_tasks(request).await
        })
    })();
    let page = match result {
        Ok(p) => p,
        Err(e) => return Ok(fail_plain(format, &e)),
    };
    match format {
        Format::Json => outln!(
            "{}",
            json!({
                "ok": true,
                "tasks": page.tasks,
                "next_page_token": page.next_page_token,
                "total_size": page.total_size,
            })
        ),
        Format::Text => {
            for t in &page.tasks {
                outln!(
                    "{}  {}  {}",
                    t.id,
                    t.status.state,
                    t.status.timestamp.as_deref().unwrap_or("-")
                );
            }
            outln!(
                "{} of {} task{}{}",
                page.tasks.len(),
                page.total_size,
                if page.total_size == 1 { "" } else { "s" },
                if page.next_page_token.is_empty() {
                    String::new()
                } else {
                    format!("; next page: --page-token {}", page.next_page_token)
                }
            );
        }
    }
    Ok(exit::OK)
}
