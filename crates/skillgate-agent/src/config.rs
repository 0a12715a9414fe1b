//! `agent.toml`: parsing, checking and the file-and-line findings start-up refuses with.
//!
//! The file is read in two steps: serde reads the TOML into spanned raw tables (syntax, unknown
//! keys and wrong types are reported at their line by `toml`), then [`check`] turns the raw
//! tables into a [`AgentConfig`], resolving paths against the config's directory, loading
//! and validating every Skill Interface Document with core and checking each handler.

use serde::Deserialize;
use serde_json::Value;
use skillgate_core::document::{Expectations, Finding, ValidatedDocument};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// Largest config or interface document read (both are written by hand; 4 MiB is generous).
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Environment variables an exec skill keeps when the config names none.
pub const DEFAULT_ENV: &[&str] = &["PATH"];
/// Invocations of one skill that may run at once when the config does not say.
pub const DEFAULT_MAX_CONCURRENCY: usize = 8;
/// Time limit of one invocation when neither the document's `max_duration_ms` nor the
/// config's `timeout_ms` gives one: a handler must never run unbounded.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a config was refused: the file, the line when one is known, and the finding.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config or a document could not be read.
    #[error("{}: cannot read: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The config is not valid TOML for this format, or breaks one of its rules.
    #[error("{}{}: {message}", file.display(), at_line(*line))]
    Invalid {
        /// The config file.
        file: PathBuf,
        /// 1-based line of the offending table or value.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A skill's Skill Interface Document is invalid (every finding is listed).
    #[error("{}{}: interface {}: {}", file.display(), at_line(*line), document.display(), list(findings))]
    Interface {
        /// The config file.
        file: PathBuf,
        /// 1-based line of the skill's `interface = ...`.
        line: Option<usize>,
        /// The document file.
        document: PathBuf,
        /// Core's findings (JSON Pointers into the document).
        findings: Vec<Finding>,
    },
}

fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

fn list(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// `[agent]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    name: String,
    description: String,
    version: String,
    provider: Option<RawProvider>,
    public_url: Option<String>,
}

/// `[agent.provider]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvider {
    organization: String,
    url: String,
}

/// One `[[skills]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSkill {
    interface: Spanned<String>,
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    examples: Vec<String>,
    exec: Option<Spanned<Vec<String>>>,
    http: Option<Spanned<String>>,
    timeout_ms: Option<Spanned<u64>>,
    env: Option<Spanned<Vec<String>>>,
    max_concurrency: Option<Spanned<usize>>,
    #[serde(default)]
    extended: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    agent: RawAgent,
    #[serde(default)]
    skills: Vec<Spanned<RawSkill>>,
}

/// The agent's card-level facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInfo {
    /// Card `name`.
    pub name: String,
    /// Card `description`.
    pub description: String,
    /// Card `version` (the agent's own version).
    pub version: String,
    /// Card `provider`: organization and URL.
    pub provider: Option<(String, String)>,
    /// The base URL to advertise (a `--public-url` flag overrides it).
    pub public_url: Option<String>,
}

/// An exec handler: a program run once per invocation, without a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecConfig {
    /// Program and arguments; a program containing `/` is resolved against the config's
    /// directory, a bare name is looked up on the allowed `PATH`.
    pub argv: Vec<String>,
    /// Working directory: the config's directory.
    pub dir: PathBuf,
    /// Environment variables passed through from the server's environment; all others are
    /// cleared.
    pub env: Vec<String>,
}

/// An http handler: the arguments are POSTed to this URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// `https://...`, or `http://` to a loopback host.
    pub url: url::Url,
}

/// The one handler a skill has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandlerConfig {
    /// `exec = [...]`.
    Exec(ExecConfig),
    /// `http = "..."`.
    Http(HttpConfig),
}

/// One checked `[[skills]]` table.
#[derive(Debug, Clone)]
pub struct SkillConfig {
    /// The validated document read from `interface`.
    pub document: ValidatedDocument,
    /// The document's path (resolved).
    pub interface_path: PathBuf,
    /// Card `name`.
    pub name: Option<String>,
    /// Card `description`.
    pub description: Option<String>,
    /// Card `tags`.
    pub tags: Vec<String>,
    /// Card `examples`.
    pub examples: Vec<String>,
    /// The handler.
    pub handler: HandlerConfig,
    /// Time limit of one invocation: the smaller of the document's `max_duration_ms` and the
    /// config's `timeout_ms`, else [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// Invocations that may run at once; one more is refused (`resource_limit_exceeded`).
    pub max_concurrency: usize,
    /// Listed only in the extended Agent Card, for authenticated callers allowed the skill.
    pub extended: bool,
}

/// A checked `agent.toml`.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The config file.
    pub file: PathBuf,
    /// `[agent]`.
    pub agent: AgentInfo,
    /// `[[skills]]`, in file order.
    pub skills: Vec<SkillConfig>,
}

/// 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Reads a file of at most [`MAX_FILE_BYTES`].
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, ConfigError> {
    use std::io::Read;
    let read = |path: &Path| -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        std::fs::File::open(path)?
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut buf)?;
        Ok(buf)
    };
    let buf = read(path).map_err(|source| ConfigError::Read {
        file: path.to_owned(),
        source,
    })?;
    if buf.len() as u64 > MAX_FILE_BYTES {
        return Err(ConfigError::Read {
            file: path.to_owned(),
            source: std::io::Error::other(format!("larger than {MAX_FILE_BYTES} bytes")),
        });
    }
    Ok(buf)
}

/// Reads and checks `path`: the TOML, every document (validated by core) and every handler.
pub fn load(path: &Path) -> Result<AgentConfig, ConfigError> {
    let bytes = read_bounded(path)?;
    let text = String::from_utf8(bytes).map_err(|_| ConfigError::Invalid {
        file: path.to_owned(),
        line: None,
        message: "the config is not UTF-8".into(),
    })?;
    parse(path, &text)
}

/// Checks the text of a config that was read from `path` (paths resolve against its
/// directory).
pub fn parse(path: &Path, text: &str) -> Result<AgentConfig, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Invalid {
        file: path.to_owned(),
        line: e.span().map(|s| line_of(text, s.start)),
        message: e.message().trim().to_owned(),
    })?;
    let cx = Checker::new(path, text);
    let agent = cx.agent(raw.agent)?;
    let mut skills: Vec<SkillConfig> = Vec::new();
    for s in raw.skills {
        let span = s.span();
        let skill = cx.skill(s.into_inner(), span.clone())?;
        let id = skill.document.skill_id();
        if skills.iter().any(|k| k.document.skill_id() == id) {
            return Err(cx.invalid(&span, format!("skill `{id}` is declared twice")));
        }
        skills.push(skill);
    }
    if skills.is_empty() {
        return Err(cx.invalid(
            &(0..0),
            "no [[skills]] table: an agent serves at least one skill",
        ));
    }
    Ok(AgentConfig {
        file: path.to_owned(),
        agent,
        skills,
    })
}

/// What every check needs to name the file and line. Other config formats built on this one
/// (the gateway's) use it to report findings and load documents the same way.
pub struct Checker<'a> {
    path: &'a Path,
    text: &'a str,
    dir: PathBuf,
}

impl<'a> Checker<'a> {
    /// The checker of config `path` whose text is `text`; relative paths resolve against the
    /// config's directory.
    pub fn new(path: &'a Path, text: &'a str) -> Self {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        Self { path, text, dir }
    }

    /// The config's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A finding at `span` (a byte range of the config text; `0..0` names no line).
    pub fn invalid(&self, span: &Range<usize>, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.path.to_owned(),
            line: (span.end > 0).then(|| line_of(self.text, span.start)),
            message: message.into(),
        }
    }

    fn agent(&self, a: RawAgent) -> Result<AgentInfo, ConfigError> {
        for (what, v) in [
            ("name", &a.name),
            ("description", &a.description),
            ("version", &a.version),
        ] {
            if v.trim().is_empty() {
                return Err(self.invalid(&(0..0), format!("[agent] {what} must not be empty")));
            }
        }
        if let Some(u) = &a.public_url {
            url::Url::parse(u).map_err(|e| {
                self.invalid(
                    &(0..0),
                    format!("[agent] public_url {u:?} is not a URL: {e}"),
                )
            })?;
        }
        Ok(AgentInfo {
            name: a.name,
            description: a.description,
            version: a.version,
            provider: a.provider.map(|p| (p.organization, p.url)),
            public_url: a.public_url,
        })
    }

    fn skill(&self, s: RawSkill, span: Range<usize>) -> Result<SkillConfig, ConfigError> {
        let (document, interface_path) = self.document(&s.interface)?;
        let id = document.skill_id().to_owned();
        let handler = match (s.exec, s.http) {
            (Some(exec), None) => {
                let env = match s.env {
                    Some(env) => self.env(env)?,
                    None => DEFAULT_ENV.iter().map(|v| (*v).to_owned()).collect(),
                };
                HandlerConfig::Exec(self.exec(exec, env)?)
            }
            (None, Some(http)) => {
                if let Some(env) = &s.env {
                    return Err(self.invalid(&env.span(), "env applies to exec handlers only"));
                }
                HandlerConfig::Http(self.http(http)?)
            }
            (Some(_), Some(_)) | (None, None) => {
                return Err(self.invalid(
                    &span,
                    format!(
                        "skill `{id}` needs exactly one handler: exec = [...] or http = \"...\""
                    ),
                ))
            }
        };
        let (max_concurrency, timeout) = self.limits(&document, s.max_concurrency, s.timeout_ms)?;
        Ok(SkillConfig {
            document,
            interface_path,
            name: s.name,
            description: s.description,
            tags: s.tags,
            examples: s.examples,
            handler,
            timeout,
            max_concurrency,
            extended: s.extended,
        })
    }

    /// A skill's `max_concurrency` (default [`DEFAULT_MAX_CONCURRENCY`]) and time limit: the
    /// smaller of the document's `max_duration_ms` and `timeout_ms`, else [`DEFAULT_TIMEOUT`].
    /// Zero is refused for either, at its line.
    pub fn limits(
        &self,
        document: &ValidatedDocument,
        max_concurrency: Option<Spanned<usize>>,
        timeout_ms: Option<Spanned<u64>>,
    ) -> Result<(usize, Duration), ConfigError> {
        let max_concurrency = match max_concurrency {
            Some(m) if *m.get_ref() == 0 => {
                return Err(self.invalid(&m.span(), "max_concurrency must be at least 1"))
            }
            Some(m) => m.into_inner(),
            None => DEFAULT_MAX_CONCURRENCY,
        };
        let declared = document
            .document()
            .constraints
            .max_duration_ms
            .map(Duration::from_millis);
        let configured = match timeout_ms {
            Some(t) if *t.get_ref() == 0 => {
                return Err(self.invalid(&t.span(), "timeout_ms must be at least 1"))
            }
            Some(t) => Some(Duration::from_millis(t.into_inner())),
            None => None,
        };
        let timeout = match (declared, configured) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => DEFAULT_TIMEOUT,
        };
        Ok((max_concurrency, timeout))
    }

    /// Reads `interface` (relative to the config's directory) and validates it with core.
    pub fn document(
        &self,
        interface: &Spanned<String>,
    ) -> Result<(ValidatedDocument, PathBuf), ConfigError> {
        let path = self.dir.join(interface.get_ref());
        let line = Some(line_of(self.text, interface.span().start));
        let bytes = read_bounded(&path)?;
        let value: Value = skillgate_core::jcs::parse_strict(&bytes).map_err(|e| {
            self.invalid(
                &interface.span(),
                format!("interface {}: not valid I-JSON: {e}", path.display()),
            )
        })?;
        let document =
            ValidatedDocument::from_value(&value, &Expectations::default()).map_err(|e| {
                ConfigError::Interface {
                    file: self.path.to_owned(),
                    line,
                    document: path.clone(),
                    findings: e.findings,
                }
            })?;
        Ok((document, path))
    }

    fn env(&self, env: Spanned<Vec<String>>) -> Result<Vec<String>, ConfigError> {
        let span = env.span();
        let names = env.into_inner();
        if let Some(bad) = names
            .iter()
            .find(|n| n.is_empty() || n.contains('=') || n.contains('\0'))
        {
            return Err(self.invalid(&span, format!("env: {bad:?} is not a variable name")));
        }
        Ok(names)
    }

    fn exec(
        &self,
        exec: Spanned<Vec<String>>,
        env: Vec<String>,
    ) -> Result<ExecConfig, ConfigError> {
        let span = exec.span();
        let mut argv = exec.into_inner();
        let Some(program) = argv.first().cloned() else {
            return Err(self.invalid(
                &span,
                "exec must name a program: exec = [\"python3\", \"skills/x.py\"]",
            ));
        };
        if argv.iter().any(|a| a.contains('\0')) {
            return Err(self.invalid(&span, "exec arguments must not contain NUL"));
        }
        if program.contains('/') {
            // Resolved here so the program does not depend on the server's working directory.
            let p = self.dir.join(&program);
            if !p.is_file() {
                return Err(self.invalid(
                    &span,
                    format!("exec program {} does not exist", p.display()),
                ));
            }
            argv[0] = p.to_string_lossy().into_owned();
        } else if !on_path(&program, &env) {
            return Err(self.invalid(
                &span,
                format!(
                    "exec program `{program}` is not on the PATH the skill gets (env = {env:?})"
                ),
            ));
        }
        Ok(ExecConfig {
            argv,
            dir: self.dir.clone(),
            env,
        })
    }

    fn http(&self, http: Spanned<String>) -> Result<HttpConfig, ConfigError> {
        let span = http.span();
        let url = url::Url::parse(http.get_ref()).map_err(|e| {
            self.invalid(
                &span,
                format!("http {:?} is not a URL: {e}", http.get_ref()),
            )
        })?;
        let ok = match url.scheme() {
            "https" => true,
            "http" => skillgate_runtime::a2a::url_policy::is_loopback(&url),
            _ => false,
        };
        if !ok {
            return Err(self.invalid(
                &span,
                format!(
                    "http handler {url}: use https, or plain http to a loopback host (127.0.0.1, ::1, localhost); {} is not",
                    url.host_str().unwrap_or("the host")
                ),
            ));
        }
        Ok(HttpConfig { url })
    }
}

/// Whether a bare program name is found on the `PATH` the skill will get (the server's own,
/// when `PATH` is passed through).
fn on_path(program: &str, env: &[String]) -> bool {
    if !env.iter().any(|e| e == "PATH") {
        return false;
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_based() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }

    #[test]
    fn a_syntax_error_names_file_and_line() {
        let e = parse(
            Path::new("x/agent.toml"),
            "[agent]\nname = \"a\"\ndescription = 3\n",
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("x/agent.toml:3: "), "{text}");
    }

    #[test]
    fn a_skill_without_handler_is_refused_at_its_table() {
        let dir = tempfile::tempdir().unwrap();
        let doc = include_str!("../../../examples/interfaces/evaluate_resource_condition.json");
        std::fs::write(dir.path().join("i.json"), doc).unwrap();
        let cfg = "[agent]\nname = \"a\"\ndescription = \"d\"\nversion = \"1\"\n\n[[skills]]\ninterface = \"i.json\"\n";
        let e = parse(&dir.path().join("agent.toml"), cfg).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("agent.toml:6: "), "{text}");
        assert!(text.contains("exactly one handler"), "{text}");
    }
}
