//! Records the git commit the binary is built from, for `skillgate --version`; "unknown" when
//! the source is not a git checkout (a crate tarball) or git is not installed.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=SKILLGATE_GIT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    // A new commit or checkout moves HEAD (its reflog grows), so the commit is read again.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "logs/HEAD"] {
            let p = Path::new(&dir).join(f);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
}
