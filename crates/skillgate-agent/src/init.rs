//! `skillgate init DIR`: a starter agent directory that serves and passes
//! `skillgate conformance` as written: `agent.toml`, one Python exec skill and its Skill
//! Interface Document, assembled (digests included) by core's builder.

use serde_json::json;
use skillgate_core::document::{InterfaceBuilder, InterfaceError, ValidatedDocument};
use skillgate_core::wire::{Constraints, Interaction, ResponseMode};
use std::path::{Path, PathBuf};

/// The starter skill's id.
pub const SKILL_ID: &str = "echo_latency";

/// Why `init` wrote nothing (or stopped).
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The directory exists and has something in it.
    #[error("{} is not empty; init writes only into a new or empty directory", .0.display())]
    NotEmpty(PathBuf),
    /// A file or directory could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The built-in document is invalid (a bug in skillgate).
    #[error("the starter document is invalid: {0}")]
    Document(#[from] InterfaceError),
}

const SCHEMA: &str = "https://json-schema.org/draft/2020-12/schema";

/// The starter skill's Skill Interface Document.
pub fn document() -> Result<ValidatedDocument, InterfaceError> {
    InterfaceBuilder::new(SKILL_ID, "1.0")
        .input(
            "urn:example:echo-latency:input",
            "1.0",
            json!({
                "$schema": SCHEMA,
                "type": "object",
                "additionalProperties": false,
                "required": ["host", "samples"],
                "properties": {
                    "host": {"type": "string", "minLength": 1, "maxLength": 253},
                    "samples": {"type": "integer", "minimum": 1, "maximum": 5}
                }
            }),
        )
        .output(
            "urn:example:echo-latency:output",
            "1.0",
            json!({
                "$schema": SCHEMA,
                "type": "object",
                "additionalProperties": false,
                "required": ["host", "samples", "latency_ms"],
                "properties": {
                    "host": {"type": "string"},
                    "samples": {"type": "integer", "minimum": 1},
                    "latency_ms": {"type": "number", "minimum": 0}
                }
            }),
        )
        .record(
            "latency-samples",
            "urn:example:echo-latency:samples",
            "1.0",
            json!({
                "$schema": SCHEMA,
                "type": "object",
                "additionalProperties": false,
                "required": ["samples_ms"],
                "properties": {
                    "samples_ms": {"type": "array", "items": {"type": "number", "minimum": 0}}
                }
            }),
        )
        .interaction(Interaction {
            response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll],
            cancelable: true,
        })
        .constraints(Constraints {
            max_input_bytes: Some(4096),
            max_duration_ms: Some(5000),
            ..Default::default()
        })
        .build()
}

const AGENT_TOML: &str = r#"# A skillgate declarative agent: `skillgate serve --config agent.toml`.
# Paths are relative to this file's directory, which is also each exec skill's working directory.

[agent]
name = "my skillgate agent"
description = "Schema-governed skills served by skillgate"
version = "0.1.0"
# provider = { organization = "Example Org", url = "https://example.org" }
# public_url = "https://agent.example.org"

[[skills]]
# The Skill Interface Document: after editing a schema, `skillgate interface fix --write FILE`.
interface = "interfaces/echo_latency.json"
name = "Echo latency"
description = "Echoes a host name back with the time a local echo took"
tags = ["example", "latency"]
examples = ['{"skill":"echo_latency","arguments":{"host":"localhost","samples":3}}']
# No shell: the validated arguments arrive as JSON on stdin.
exec = ["python3", "skills/echo_latency.py"]
# Environment variables kept (all others are cleared).
env = ["PATH"]
# Invocations at once; one more is refused with resource_limit_exceeded.
max_concurrency = 4
# The document's constraints.max_duration_ms (5000) limits each run; timeout_ms may lower it.
# timeout_ms = 2000
"#;

const SKILL_PY: &str = r#"#!/usr/bin/env python3
"""echo_latency: a skillgate exec skill.

skillgate validated the arguments against interfaces/echo_latency.json before starting this
process; they arrive as one JSON object on stdin. Print exactly one JSON object on stdout:

  success (exit 0):
    {"output": {...}, "records": [{"kind": "latency-samples", "data": {...}}]}
  refusal (exit 1):
    {"error": {"code": "constraint_rejected" | "execution_failed", "message": "..."}}

skillgate validates the output and every record before it reports completion. Anything else
(a traceback, a crash, other text) reaches the caller as execution_failed; stderr goes to the
agent's log only.
"""
import json
import sys
import time


def main():
    args = json.load(sys.stdin)
    host = args["host"]
    samples = args["samples"]
    if host.endswith(".invalid"):
        refusal = {"code": "constraint_rejected", "message": "hosts under .invalid are never measured"}
        print(json.dumps({"error": refusal}))
        return 1
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        json.loads(json.dumps({"host": host}))
        times.append(round((time.perf_counter() - start) * 1000, 6))
    output = {"host": host, "samples": samples, "latency_ms": sum(times) / len(times)}
    record = {"kind": "latency-samples", "data": {"samples_ms": times}}
    print(json.dumps({"output": output, "records": [record]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
"#;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InitError + '_ {
    move |source| InitError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Writes the starter agent into `dir` (created if missing; refused if not empty) and returns
/// the files written.
pub fn init(dir: &Path) -> Result<Vec<PathBuf>, InitError> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(io(dir))?;
        if entries.next().is_some() {
            return Err(InitError::NotEmpty(dir.to_owned()));
        }
    }
    let doc = document()?;
    let mut pretty = serde_json::to_string_pretty(doc.value()).map_err(|e| InitError::Io {
        path: dir.to_owned(),
        source: std::io::Error::other(e),
    })?;
    pretty.push('\n');
    let files = [
        (PathBuf::from("agent.toml"), AGENT_TOML.to_owned()),
        (PathBuf::from("interfaces/echo_latency.json"), pretty),
        (PathBuf::from("skills/echo_latency.py"), SKILL_PY.to_owned()),
    ];
    let mut written = Vec::new();
    for (rel, text) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, text).map_err(io(&path))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_directory_loads() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("agent");
        let files = init(&target).unwrap();
        assert_eq!(files.len(), 3);
        let declared = crate::load(&target.join("agent.toml")).unwrap();
        assert_eq!(declared.agent.skill_ids().collect::<Vec<_>>(), [SKILL_ID]);
        assert!(matches!(init(&target), Err(InitError::NotEmpty(_))));
    }
}
