//! The task-store options of `serve` and the `skillgate store` commands.

use anyhow::Context;
use clap::{Args, Subcommand};
use skillgate_store::StoreLimits;
use std::sync::Arc;
use std::time::Duration;

use crate::exit;

/// Where `serve` keeps tasks, and the bounds it holds them to.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// Task store: `memory` (lost on exit), `sqlite:PATH` (one process; survives restarts) or
    /// `postgres://USER@HOST/DB` (replicas: run several `serve` with the same URL and
    /// --public-url). Default: SQLite at $XDG_STATE_HOME/skillgate/tasks.db (an absolute
    /// path), else ~/.local/state/skillgate/tasks.db, created on first start.
    /// `sqlite:PATH?synchronous=normal` syncs only checkpoints, not every commit: faster, and
    /// still safe against the process being killed, but a power loss or kernel crash can lose
    /// the last commits (up to about 4 MiB of log).
    #[arg(long, env = "SKILLGATE_STORE", value_name = "URL")]
    pub store: Option<String>,
    /// Byte budget of the whole store; the oldest finished tasks are evicted beyond it
    /// [default: 16MiB for memory, 1GiB otherwise]. Suffixes: KiB, MiB, GiB.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub store_max_bytes: Option<u64>,
    /// Byte budget of one task: a request message over half of it is kept as a note, a result
    /// over it fails the task with resource_limit_exceeded [default: 256KiB].
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub task_max_bytes: Option<u64>,
    /// Most unfinished tasks (running or waiting for input) one caller may hold, so one
    /// token cannot lock out another; anonymous callers share one allowance [default: 1000].
    #[arg(long, value_name = "N")]
    pub max_running_per_caller: Option<usize>,
    /// Tasks waiting for input fail after this long [default: 1h].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub interrupted_ttl: Option<Duration>,
    /// Finished tasks are deleted after this long [default: 24h].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub retention: Option<Duration>,
    /// PostgreSQL: a running task whose replica stopped renewing its lease for this long is
    /// failed by another replica [default: 15s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub lease_ttl: Option<Duration>,
}

/// `1048576`, `512KiB`, `64MiB`, `1GiB` (also KB/MB/GB, read as powers of 1024).
fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a byte count (e.g. 1048576, 512KiB, 64MiB, 1GiB)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        other => return Err(format!("unknown unit {other:?}: use KiB, MiB or GiB")),
    };
    n.checked_mul(1 << shift)
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{s:?} must be a positive byte count that fits in 64 bits"))
}

impl StoreArgs {
    /// The store URL in effect.
    pub fn url(&self) -> anyhow::Result<String> {
        match &self.store {
            Some(u) => Ok(u.clone()),
            None => skillgate_store::default_url().context(
                "no --store given, XDG_STATE_HOME is not an absolute path and HOME is not set; pass --store memory or --store sqlite:PATH",
            ),
        }
    }

    /// The bounds: the store kind's defaults with every given flag applied.
    pub fn limits(&self, url: &str) -> StoreLimits {
        let mut l = StoreLimits::for_url(url);
        if let Some(v) = self.store_max_bytes {
            l.max_bytes = v;
        }
        if let Some(v) = self.task_max_bytes {
            l.max_task_bytes = v;
        }
        if let Some(v) = self.max_running_per_caller {
            l.max_running_per_caller = v;
        }
        if let Some(v) = self.interrupted_ttl {
            l.interrupted_ttl = v;
        }
        if let Some(v) = self.retention {
            l.retention = v;
        }
        if let Some(v) = self.lease_ttl {
            l.lease_ttl = v;
        }
        l
    }

    /// Opens the store (running its migrations).
    pub async fn open(&self) -> anyhow::Result<Arc<dyn skillgate_store::TaskStore>> {
        let url = self.url()?;
        let limits = self.limits(&url);
        skillgate_store::open(&url, limits).await.with_context(|| {
            format!(
                "cannot open the task store {}",
                skillgate_store::redact(&url)
            )
        })
    }
}

/// `skillgate store ...`.
#[derive(Subcommand, Debug)]
pub enum StoreCommand {
    /// Create or upgrade a SQLite or PostgreSQL task store's schema, then exit (serve does
    /// this at start-up too); refuses a schema newer than this skillgate.
    Migrate(MigrateArgs),
}

/// Arguments of `store migrate`.
#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// The store: `sqlite:PATH` or `postgres://USER@HOST/DB`.
    #[arg(long, env = "SKILLGATE_STORE", value_name = "URL")]
    pub store: String,
}

/// Runs a `store` command.
pub fn run(c: StoreCommand) -> anyhow::Result<u8> {
    match c {
        StoreCommand::Migrate(a) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let (before, after) = rt
                .block_on(skillgate_store::migrate(&a.store))
                .with_context(|| format!("cannot migrate {}", skillgate_store::redact(&a.store)))?;
            let url = skillgate_store::redact(&a.store);
            if before == after {
                outln!("{url}: schema version {after}, up to date");
            } else {
                outln!("{url}: schema version {before} -> {after}");
            }
            Ok(exit::OK)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts() {
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("1 GiB"), Ok(1 << 30));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("99999999999GiB").is_err());
    }
}
