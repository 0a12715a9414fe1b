//! Reloading a declarative agent: [`AgentFile`] is an `agent.toml` as the source the
//! runtime's [`Reloader`](skillgate_runtime::Reloader) rebuilds from, and [`off_workers`] runs
//! a config's blocking work (reading files, compiling schemas) off the async workers, for
//! every config that is reloaded while a server answers (the gateway's too).

use crate::{load, ConfigError, LoadError};
use skillgate_runtime::{Agent, AgentSource};
use std::path::{Path, PathBuf};

/// An `agent.toml` read again at each reload; a reload changes skills, documents and card
/// fields, never the server's settings (`public_url` included), which are start-up ones.
#[derive(Debug, Clone)]
pub struct AgentFile {
    path: PathBuf,
}

impl AgentFile {
    /// The config at `path` (it is read at each rebuild, not now).
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }
}

impl AgentSource for AgentFile {
    type Error = LoadError;

    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    async fn rebuild(&mut self) -> Result<Agent, LoadError> {
        let path = self.path.clone();
        let declared = off_workers(&self.path, move || load(&path)).await?;
        Ok(declared.agent)
    }
}

/// Runs `work` on the blocking pool and returns what it returned; a `work` that panicked is
/// reported as an invalid config of `file` rather than ending the caller.
pub async fn off_workers<T, E>(
    file: &Path,
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, E>
where
    T: Send + 'static,
    E: From<ConfigError> + Send + 'static,
{
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        E::from(ConfigError::Invalid {
            file: file.to_owned(),
            line: None,
            message: format!("reading the config failed: {e}"),
        })
    })?
}
