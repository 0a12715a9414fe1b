//! Runs a built binary as a child process and captures what it printed and how it exited.
//! The path comes from the calling test crate (`env!("CARGO_BIN_EXE_skillgate")` exists only
//! there), e.g. `Bin::new(env!("CARGO_BIN_EXE_skillgate"))`.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// A binary plus the environment every run of it gets; cheap to clone and adjust per test.
#[derive(Debug, Clone)]
pub struct Bin {
    path: PathBuf,
    env: Vec<(OsString, Option<OsString>)>,
}

impl Bin {
    /// The binary at `path`, run with the test process's environment.
    pub fn new(path: impl Into<PathBuf>) -> Bin {
        Bin {
            path: path.into(),
            env: Vec::new(),
        }
    }

    /// The same binary with `key` set to `value` in every run.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Bin {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    /// The same binary with `key` removed from every run's environment (so a variable set
    /// where the tests run cannot leak into them).
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Bin {
        self.env.push((key.into(), None));
        self
    }

    /// A `Command` for the binary with the environment applied, for tests that need more
    /// control (a kept-open stdout, signals).
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.path);
        for (k, v) in &self.env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        c
    }

    /// Runs it with `args` and no stdin, waiting for it to exit.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// Starts a server command (`serve`, `gateway`) with `args`, its stderr going to `stderr`,
    /// and waits for its first stdout line, `listening on http://HOST:PORT`: the child and
    /// that URL.
    pub fn spawn_server(&self, args: &[&str], stderr: Stdio) -> (Child, String) {
        let mut child = self
            .command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let url = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line: {first:?}"))
            .to_owned();
        (child, url)
    }

    /// Runs it with `args`, writes `input` to its stdin and closes it, waiting for it to exit.
    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        child.wait_with_output().unwrap()
    }
}

/// Sends SIGTERM to a server started by [`Bin::spawn_server`] and requires a clean exit.
pub fn stop(mut child: Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success(), "clean shutdown");
}

/// The exit code; fails the test (showing stderr) if the process was killed by a signal.
pub fn code(o: &Output) -> i32 {
    o.status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {}", stderr(o)))
}

/// Stdout as text, invalid UTF-8 replaced.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text, invalid UTF-8 replaced.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Stdout parsed as one JSON value; fails the test showing stdout and stderr if it is not.
pub fn stdout_json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            stdout(o),
            stderr(o)
        )
    })
}
