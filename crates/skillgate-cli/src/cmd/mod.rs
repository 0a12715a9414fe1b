//! One module per subcommand group; each returns an exit code or an error (exit 2).

pub mod agent;
pub mod authoring;
pub mod card;
pub mod client;
pub mod conformance;
pub mod demo;
pub mod docs;
pub mod evolve;
pub mod examples;
pub mod from_mcp;
pub mod gateway;
pub mod init;
pub mod inspect;
pub mod interface;
pub mod io;
pub mod jcs;
pub mod mcp;
pub mod net;
pub mod serve;
pub mod signing;
pub mod store;
pub mod task;
