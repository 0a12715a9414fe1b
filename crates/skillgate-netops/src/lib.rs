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
//! public Skill API of `skillgate-server`.

#![warn(missing_docs)]

pub mod clock;
pub mod domain;
pub mod error;
pub mod host;
pub mod interfaces;
pub mod schemas;

pub use error::NetopsError;
pub use host::{HostSource, SysfsHost};
