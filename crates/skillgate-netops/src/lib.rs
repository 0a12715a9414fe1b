//! `netops`: an example skillgate agent that observes the host's real network interfaces
//! (`/proc/net/dev`, `/sys/class/net/<if>/`) through three schema-governed, observe-only skills:
//!
//! - `evaluate_resource_condition` (the draft's Appendix B shapes): samples one metric of one
//!   interface and compares it with a threshold, returning a `resource-observation` record;
//! - `collect_interface_counters`: one counters measurement of one interface;
//! - `assess_interface_health`: judges a counters measurement; its input Schema Reference is
//!   exactly collect's output Schema Reference, so the two compose directly.
//!
//! The crate is a user of the runtime, not part of it: everything it does goes through the
//! public Skill API of `skillgate-runtime`.
//!
//! Build the agent (this assembles and validates the three Skill Interface Documents):
//! ```
//! let agent = skillgate_netops::agent().build().expect("the netops documents are valid");
//! let ids: Vec<&str> = agent.skill_ids().collect();
//! assert!(ids.contains(&"evaluate_resource_condition"));
//! ```
//!
//! Serve it on an ephemeral loopback port until Ctrl-C:
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let agent = skillgate_netops::agent().build().expect("valid documents");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! println!("listening on http://{}", listener.local_addr()?);
//! skillgate_server::serve(agent, listener, Default::default(), async {
//!     let _ = tokio::signal::ctrl_c().await;
//! })
//! .await
//! # }
//! ```
//!
//! Point it at another tree laid out like `/` (a container's host mount, a test fixture):
//! ```
//! use std::sync::Arc;
//! use skillgate_netops::{agent_with, SysfsHost};
//! let builder = agent_with(Arc::new(SysfsHost::with_root("/host")));
//! assert!(builder.build().is_ok());
//! ```

pub mod conformance_agent;
pub mod domain;
pub mod error;
pub mod host;
pub mod interfaces;
pub mod schemas;
pub mod skills;

use std::sync::Arc;

pub use error::NetopsError;
pub use host::{HostSource, SysfsHost};
pub use skills::skills;

/// The agent's name in its Agent Card.
pub const AGENT_NAME: &str = "skillgate netops agent";
/// The agent's description in its Agent Card.
pub const AGENT_DESCRIPTION: &str = "Observes this host's network interfaces (/proc/net/dev, \
    /sys/class/net) through observe-only, schema-governed skills: threshold checks, counter \
    measurements and health assessments.";

/// The netops agent on the real host (`/`), ready for `AgentBuilder::build`.
pub fn agent() -> skillgate_runtime::AgentBuilder {
    agent_with(Arc::new(SysfsHost::new()))
}

/// The netops agent reading host facts from `source` (e.g. `SysfsHost::with_root(fixture)`).
pub fn agent_with(source: Arc<dyn HostSource>) -> skillgate_runtime::AgentBuilder {
    skills(source).into_iter().fold(
        skillgate_runtime::Agent::builder(AGENT_NAME, AGENT_DESCRIPTION, env!("CARGO_PKG_VERSION"))
            .provider("skillgate", "https://example.invalid/skillgate"),
        skillgate_runtime::AgentBuilder::skill,
    )
}
