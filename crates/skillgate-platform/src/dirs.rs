//! Per-user directories by the XDG Base Directory rules.
//!
//! A variable counts only when it is set, not empty and an absolute path: the specification
//! says a relative value is invalid and must be ignored, which also keeps a stray `.` from
//! putting the task store in whatever directory the server happened to start in. Without it,
//! the fallback is under `$HOME` (which must be set and non-empty).

use std::ffi::OsString;
use std::path::PathBuf;

/// One kind of XDG base directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseDir {
    /// `$XDG_STATE_HOME`, else `$HOME/.local/state`: data that should survive restarts but is
    /// not worth backing up as documents (the default task store).
    State,
    /// `$XDG_CACHE_HOME`, else `$HOME/.cache`: data that can be fetched again (validated
    /// interfaces).
    Cache,
}

impl BaseDir {
    /// The environment variable that names this directory.
    pub fn variable(self) -> &'static str {
        match self {
            Self::State => "XDG_STATE_HOME",
            Self::Cache => "XDG_CACHE_HOME",
        }
    }

    /// The fallback below `$HOME` when the variable does not count.
    fn under_home(self) -> &'static str {
        match self {
            Self::State => ".local/state",
            Self::Cache => ".cache",
        }
    }
}

/// `skillgate`'s own directory of `kind` for this user (`<base>/skillgate`), from the process
/// environment. `None` when neither the variable nor `$HOME` gives a usable base.
pub fn skillgate_dir(kind: BaseDir) -> Option<PathBuf> {
    skillgate_dir_from(kind, |k| std::env::var_os(k))
}

/// [`skillgate_dir`] over an explicit environment, so the rule can be tested without touching
/// the process's (which other threads may read at the same time).
pub fn skillgate_dir_from(
    kind: BaseDir,
    env: impl Fn(&str) -> Option<OsString>,
) -> Option<PathBuf> {
    let usable = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = usable(kind.variable())
        .filter(|p| p.is_absolute())
        .or_else(|| usable("HOME").map(|h| h.join(kind.under_home())))?;
    Some(base.join("skillgate"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_variable_wins_when_absolute() {
        let e = env(&[("XDG_STATE_HOME", "/var/st"), ("HOME", "/home/u")]);
        assert_eq!(
            skillgate_dir_from(BaseDir::State, e).as_deref(),
            Some(Path::new("/var/st/skillgate"))
        );
    }

    #[test]
    fn relative_or_empty_variables_fall_back_to_home() {
        for v in ["", "relative/dir", "."] {
            let pairs = [("XDG_CACHE_HOME", v), ("HOME", "/home/u")];
            assert_eq!(
                skillgate_dir_from(BaseDir::Cache, env(&pairs)).as_deref(),
                Some(Path::new("/home/u/.cache/skillgate")),
                "XDG_CACHE_HOME={v:?}"
            );
        }
        let pairs = [("HOME", "/home/u")];
        assert_eq!(
            skillgate_dir_from(BaseDir::State, env(&pairs)).as_deref(),
            Some(Path::new("/home/u/.local/state/skillgate"))
        );
    }

    #[test]
    fn no_usable_base_is_none() {
        assert_eq!(skillgate_dir_from(BaseDir::State, env(&[])), None);
        let pairs = [("HOME", ""), ("XDG_STATE_HOME", "rel")];
        assert_eq!(skillgate_dir_from(BaseDir::State, env(&pairs)), None);
    }
}
