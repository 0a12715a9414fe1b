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

/// Width stdout lines are wrapped at (0: no wrapping).
static WRAP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Wraps every later stdout line wider than `width` characters at spaces, continuing with the
/// line's indent plus four spaces (a word longer than the width is cut). For text read in a
/// terminal (the demo), never for output a program parses.
pub fn wrap_at(width: usize) {
    WRAP.store(width, std::sync::atomic::Ordering::Relaxed);
}

/// `text` with each line wrapped at `width` characters.
fn wrapped(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        wrap_line(line, width, &mut out);
    }
    out
}

fn wrap_line(line: &str, width: usize, out: &mut String) {
    if line.chars().count() <= width {
        out.push_str(line);
        return;
    }
    let indent_len = line.len() - line.trim_start_matches(' ').len();
    let cont = format!("{}    ", &line[..indent_len]);
    let mut cur = line[..indent_len].to_owned();
    let mut cur_len = indent_len;
    let mut fresh = true;
    for word in line[indent_len..].split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let sep = usize::from(!fresh);
            if cur_len + sep + word.len() <= width {
                if !fresh {
                    cur.push(' ');
                }
                cur.extend(word.iter());
                cur_len += sep + word.len();
                fresh = false;
                break;
            }
            if fresh {
                // Wider than a whole line: cut it.
                let fit = width.saturating_sub(cur_len).clamp(1, word.len());
                cur.extend(word[..fit].iter());
                word.drain(..fit);
            }
            out.push_str(&cur);
            out.push('\n');
            cur.clone_from(&cont);
            cur_len = cont.len();
            fresh = true;
            if word.is_empty() {
                break;
            }
        }
    }
    out.push_str(&cur);
}

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
    let width = WRAP.load(std::sync::atomic::Ordering::Relaxed);
    let written = if width == 0 {
        io::stdout().lock().write_fmt(args)
    } else {
        io::stdout()
            .lock()
            .write_all(wrapped(&args.to_string(), width).as_bytes())
    };
    if let Err(e) = written {
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

#[cfg(test)]
mod tests {
    use super::wrapped;

    #[test]
    fn long_lines_wrap_at_spaces_with_a_deeper_indent() {
        let line = format!(
            "  ✓ 8 delegated with digest sha256:{} to task {}",
            "a".repeat(64),
            "b".repeat(30)
        );
        let w = wrapped(&line, 40);
        for l in w.lines() {
            assert!(l.chars().count() <= 40, "{l:?}");
        }
        assert!(
            w.starts_with("  ✓ 8 delegated with digest\n      sha256:"),
            "{w}"
        );
        assert_eq!(
            w.replace("\n      ", " ").replace(' ', ""),
            line.replace(' ', "")
        );
        assert_eq!(wrapped("short\n", 40), "short\n");
        let l = "  [collect] ✓  5 document valid against the trusted skill-interface-v1 schema: interface_version 1.0, collect_interface_counters 1.0";
        for part in wrapped(l, 100).lines() {
            assert!(part.chars().count() <= 100, "{part:?}");
        }
    }
}
