//! Finding everything an exec call started, so that none of it outlives the call (Linux).
//!
//! The process group reaches only what stays in it; a program can leave it (`setsid`, a double
//! fork) and be reparented away from the call's process tree. So each call's program gets a
//! marker in its environment ([`MARKER_VAR`], unique per call), which its descendants inherit,
//! and when the call ends [`sweep`] kills every live process that is either in the tree under
//! the program's pid or carries the call's marker, with everything under those. A descendant
//! that both leaves the tree and replaces its whole environment is not found: that needs a
//! cgroup (not used yet; see the README's security notes).

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that marks a call's processes.
pub const MARKER_VAR: &str = "SKILLGATE_EXEC_CALL";
/// Most bytes of a process's environment read when looking for the marker.
const MAX_ENVIRON_BYTES: u64 = 256 * 1024;

/// A marker no other call of this server has.
pub(crate) fn new_marker() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Marks every descriptor from 3 up close-on-exec before a spawn: std opens its own with the
/// flag, but one the server inherited without it (from a launcher, say) would reach the skill.
pub(crate) fn close_inherited_fds() {
    close_fds::set_fds_cloexec_threadsafe(3, &[]);
}

/// The parent of each live process (zombies left out: they are already dead).
fn processes() -> HashMap<i32, i32> {
    let mut parents = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return parents;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so the fields
        // are read after the last ')'.
        let mut rest = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let (state, ppid) = (rest.next(), rest.next().and_then(|p| p.parse::<i32>().ok()));
        if let (Some(s), Some(ppid)) = (state, ppid) {
            if s != "Z" && s != "X" {
                parents.insert(pid, ppid);
            }
        }
    }
    parents
}

/// Whether `pid`'s environment holds `MARKER_VAR=marker`.
fn carries(pid: i32, needle: &[u8]) -> bool {
    let Ok(file) = std::fs::File::open(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let mut env = Vec::new();
    if file.take(MAX_ENVIRON_BYTES).read_to_end(&mut env).is_err() {
        return false;
    }
    env.split(|b| *b == 0).any(|var| var == needle)
}

/// Kills (SIGKILL) every live process of the call whose program had pid `main` and whose
/// marker is `marker` (see the module docs); returns how many were signalled.
pub(crate) fn sweep(main: u32, marker: &str) -> usize {
    let Ok(main) = i32::try_from(main) else {
        return 0;
    };
    let me = i32::try_from(std::process::id()).unwrap_or(0);
    let needle = format!("{MARKER_VAR}={marker}").into_bytes();
    let parents = processes();
    let mut doomed: HashSet<i32> = parents
        .keys()
        .copied()
        .filter(|&p| {
            // The program itself only while it is still our child: once reaped, its pid
            // could be another process's.
            (p == main && parents.get(&p) == Some(&me)) || (p != me && carries(p, &needle))
        })
        .collect();
    // Everything under a doomed process, to a fixed point (each pass adds a generation).
    loop {
        let before = doomed.len();
        for (&pid, ppid) in &parents {
            if pid != me && doomed.contains(ppid) {
                doomed.insert(pid);
            }
        }
        if doomed.len() == before {
            break;
        }
    }
    let mut signalled = 0;
    for pid in doomed {
        if kill(Pid::from_raw(pid), Signal::SIGKILL).is_ok() {
            signalled += 1;
        }
    }
    signalled
}
