//! Every byte the CLI prints goes through here: writes that report their errors instead of
//! panicking like `println!` does when the reader has gone away (`skillgate call ... | head -1`).
//!
//! The first failed write to stdout is remembered and every later write is skipped. A reader
//! that went away (`BrokenPipe`) is not an error of the command: it finishes its work and
//! exits with its usual code, as if stdout were /dev/null (see docs/design.md, 2026-12-03).
//! Any other write error (a full disk behind `> file`) turns the exit code into 2 in `main`.
//! Writes to stderr are best effort: there is nowhere left to report their failure.

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;

enum State {
    Open,
    /// The reader went away.
    Closed,
    /// Another write error; its description.
    Failed(String),
}

static STDOUT: Mutex<State> = Mutex::new(State::Open);

fn record(st: &mut State, e: &io::Error) {
    *st = if e.kind() == io::ErrorKind::BrokenPipe {
        State::Closed
    } else {
        State::Failed(e.to_string())
    };
}

/// Writes to stdout unless an earlier write failed; a failure is recorded for [`finish`].
pub fn stdout(args: fmt::Arguments<'_>) {
    let mut st = STDOUT.lock().unwrap_or_else(|p| p.into_inner());
    if !matches!(*st, State::Open) {
        return;
    }
    if let Err(e) = io::stdout().lock().write_fmt(args) {
        record(&mut st, &e);
    }
}

/// Writes raw bytes to stdout, as [`stdout`] does.
pub fn stdout_bytes(bytes: &[u8]) {
    let mut st = STDOUT.lock().unwrap_or_else(|p| p.into_inner());
    if !matches!(*st, State::Open) {
        return;
    }
    if let Err(e) = io::stdout().lock().write_all(bytes) {
        record(&mut st, &e);
    }
}

/// Writes to stderr, ignoring failure.
pub fn stderr(args: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Flushes stdout. `Err` carries a write error that is not a closed reader: the command's
/// output is incomplete and `main` exits 2.
pub fn finish() -> Result<(), String> {
    let mut st = STDOUT.lock().unwrap_or_else(|p| p.into_inner());
    if matches!(*st, State::Open) {
        if let Err(e) = io::stdout().lock().flush() {
            record(&mut st, &e);
        }
    }
    match &*st {
        State::Open | State::Closed => Ok(()),
        State::Failed(m) => Err(m.clone()),
    }
}

/// `println!` through [`stdout`].
macro_rules! outln {
    () => { $crate::out::stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::out::stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` through [`stdout`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::out::stdout(format_args!($($arg)*)) };
}

/// `eprintln!` through [`stderr`].
macro_rules! errln {
    ($($arg:tt)*) => { $crate::out::stderr(format_args!("{}\n", format_args!($($arg)*))) };
}
