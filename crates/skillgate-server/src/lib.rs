//! skillgate-server: the HTTP bindings of the skillgate runtime (JSON-RPC 2.0 at `/`,
//! HTTP+JSON at `/message:send`, `/tasks/{id}`, ... with server-sent event streaming), the web
//! console (feature `console`, on by default), and the connection discipline under them
//! (header-read and idle timers, the connection cap, graceful shutdown).
//!
//! Everything an agent *is* (skills, the gate, the A2A service, tasks, push delivery) lives in
//! [`skillgate_runtime`], re-exported here as [`runtime`]; this crate only decodes HTTP
//! requests, runs the checks every binding shares and calls the one service. [`Launch`]
//! starts a server: it checks what the card will advertise (the public URL rule), then serves
//! the HTTP bindings and, with the `grpc` feature, the gRPC binding, all stopped by one
//! shutdown. With the `logs` feature (on by default), `logs::install` installs the log
//! subscriber a server process uses (`RUST_LOG`, text or JSON lines on stderr); the crate itself
//! only emits `tracing` events and spans.
//!
//! ```
//! use serde_json::json;
//! use skillgate_server::runtime::{Agent, ServerConfig, Skill, SkillContext, SkillOutput};
//!
//! let echo = Skill::builder("echo_interface", "1.0")
//!     .description("Returns the interface name it was given")
//!     .input_schema("urn:example:echo:input", "1.0", json!({
//!         "$schema": "https://json-schema.org/draft/2020-12/schema",
//!         "type": "object", "required": ["resource_id"],
//!         "properties": {"resource_id": {"type": "string"}}}))
//!     .output_schema("urn:example:echo:output", "1.0", json!({
//!         "$schema": "https://json-schema.org/draft/2020-12/schema",
//!         "type": "object", "required": ["resource_id"]}))
//!     .handler(|args: serde_json::Value, _ctx: SkillContext| async move {
//!         Ok(SkillOutput::new(json!({"resource_id": args["resource_id"]})))
//!     })
//!     .build();
//! let agent = Agent::builder("echo agent", "An example", "0.1.0").skill(echo).build().unwrap();
//! // Serve it: `skillgate_server::serve(agent, listener, ServerConfig::default(), shutdown).await`
//! // (or `Launch`, which with the `grpc` feature adds the gRPC binding over the same service),
//! // or embed the axum router in an application of your own:
//! let _app = skillgate_server::router(agent, ServerConfig::default(), "http://127.0.0.1:7420".into());
//! ```

#[cfg(feature = "console")]
pub mod console;
#[cfg(not(feature = "console"))]
#[path = "console_off.rs"]
mod console;
mod http;
mod launch;
#[cfg(feature = "logs")]
pub mod logs;
mod state;

pub use http::{router, router_with_swap, serve_app, OriginGuard, OriginRefused};
pub use launch::{serve, AppFactory, Launch, LaunchError, Listener};
pub use skillgate_runtime as runtime;
