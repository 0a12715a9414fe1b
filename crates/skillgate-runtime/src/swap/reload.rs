//! Reloading a running server's agent: on each trigger (SIGHUP, for `serve --config` and
//! `gateway`) the agent is rebuilt from its source and swapped in through the server's
//! [`AgentSwap`], so the card and the skills change together for every binding. A rebuild
//! that fails leaves the running agent serving, and the log says why.

use super::AgentSwap;
use crate::agent::Agent;
use futures_util::{Stream, StreamExt};
use std::future::Future;
use std::pin::Pin;

/// Where a reload gets its agent: a configuration read again (and whatever it names: Skill
/// Interface Documents, an upstream agent's card).
pub trait AgentSource: Send + 'static {
    /// Why a rebuild failed (a config's file, line and finding, say), as the log shows it.
    type Error: std::fmt::Display + Send;

    /// The configuration the agent is built from, as the log names it (a file's path).
    fn describe(&self) -> String;

    /// Builds the agent anew. Blocking work (reading files, compiling schemas) must run off
    /// the async workers: the server keeps answering meanwhile.
    fn rebuild(&mut self) -> impl Future<Output = Result<Agent, Self::Error>> + Send;
}

/// Rebuilds an agent from its [`AgentSource`] at each trigger and swaps it in; a failed
/// rebuild is logged (warn, `reload refused`) and the running agent keeps serving.
pub struct Reloader<S> {
    source: S,
    triggers: Pin<Box<dyn Stream<Item = ()> + Send>>,
}

impl<S: AgentSource> Reloader<S> {
    /// Reloads at every SIGHUP. The handler is installed before this returns, so create the
    /// reloader before announcing the server: a SIGHUP from then on reloads (once
    /// [`Reloader::run`] runs) instead of ending the process.
    #[cfg(unix)]
    pub fn on_sighup(source: S) -> std::io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        let hup = signal(SignalKind::hangup())?;
        let triggers = futures_util::stream::unfold(hup, |mut hup| async move {
            hup.recv().await.map(|()| ((), hup))
        });
        Ok(Self::on(source, triggers))
    }

    /// Reloads at each item of `triggers` (a signal, a channel, a timer), until it ends.
    pub fn on(source: S, triggers: impl Stream<Item = ()> + Send + 'static) -> Self {
        Self {
            source,
            triggers: Box::pin(triggers),
        }
    }

    /// Reloads `swap`'s agent at each trigger until the triggers end; a reload finishes
    /// before the next trigger is read.
    pub async fn run(mut self, swap: AgentSwap) {
        while self.triggers.next().await.is_some() {
            self.reload(&swap).await;
        }
    }

    /// Runs [`Reloader::run`] on a task of its own.
    pub fn spawn(self, swap: AgentSwap) -> tokio::task::JoinHandle<()> {
        tokio::spawn(self.run(swap))
    }

    async fn reload(&mut self, swap: &AgentSwap) {
        match self.source.rebuild().await {
            Ok(agent) => {
                let skills = agent.skill_ids().count();
                agent.log_skills();
                swap.replace(agent);
                tracing::info!(config = %self.source.describe(), skills, "reloaded");
            }
            Err(e) => tracing::warn!(
                config = %self.source.describe(),
                error = %e,
                "reload refused, the previous configuration keeps serving"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;
    use crate::ServerConfig;
    use std::collections::VecDeque;

    /// Hands out the versions it holds, one per rebuild; an empty queue fails.
    struct Versions(VecDeque<&'static str>);

    impl AgentSource for Versions {
        type Error = String;

        fn describe(&self) -> String {
            "versions".into()
        }

        async fn rebuild(&mut self) -> Result<Agent, String> {
            let v = self.0.pop_front().ok_or("no version left")?;
            Agent::builder("reloaded", "An agent of many versions", v)
                .build()
                .map_err(|e| e.to_string())
        }
    }

    fn version(swap: &AgentSwap) -> String {
        let card: serde_json::Value = serde_json::from_slice(&swap.card().bytes).unwrap();
        card["version"].as_str().unwrap().to_owned()
    }

    #[tokio::test]
    async fn a_rebuilt_agent_is_swapped_in_and_a_failed_one_keeps_the_running_agent() {
        let agent = Agent::builder("reloaded", "An agent of many versions", "1.0.0")
            .build()
            .unwrap();
        let swap = AgentSwap::new(
            agent,
            &ServerConfig::default(),
            "http://127.0.0.1:1",
            Metrics::disabled(),
        );
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let source = Versions(VecDeque::from(["2.0.0"]));
        let task = Reloader::on(source, tokio_stream::wrappers::ReceiverStream::new(rx))
            .spawn(swap.clone());
        tx.send(()).await.unwrap();
        // Nothing is left to build: these rebuilds fail and 2.0.0 keeps serving.
        tx.send(()).await.unwrap();
        tx.send(()).await.unwrap();
        drop(tx);
        task.await.unwrap();
        assert_eq!(version(&swap), "2.0.0");
    }
}
