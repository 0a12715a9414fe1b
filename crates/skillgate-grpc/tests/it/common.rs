//! Both servers over one agent, a tonic client, and JSON helpers (requests are written in
//! ProtoJSON and turned into protobuf messages with the generated pbjson impls).
#![allow(dead_code)]

use serde_json::{json, Value};
use skillgate_grpc::pb;
use skillgate_grpc::pb::a2a_service_client::A2aServiceClient;
use skillgate_runtime::{
    Agent, ServerConfig, Skill, SkillContext, SkillError, SkillOutput, TokenTable,
};
use skillgate_testkit::requests::send_params;
// The testkit's request builders, under the names these tests have always used.
pub use skillgate_testkit::requests::{message_id as uuid, skill_request as call};
use skillgate_testkit::server::{agent_card, http_client, json_rpc};
use std::time::Duration;
use tonic::transport::Channel;

pub const EXT: &str = skillgate_core::wire::EXTENSION_URI;

/// `echo`: returns `n` (an integer) as it received it; `ms` (optional) delays the answer.
/// Cancelable, so a subscriber can be shown a running task.
pub fn echo_skill() -> Skill {
    Skill::builder("echo", "1.0")
        .description("Returns the integer it was given")
        .tags(["test"])
        .input_schema(
            "urn:test:echo:input",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["n"], "additionalProperties": false,
                "properties": {"n": {"type": "integer"}, "ms": {"type": "integer"}}}),
        )
        .output_schema(
            "urn:test:echo:output",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["n"], "properties": {"n": {"type": "integer"}}}),
        )
        .interaction(skillgate_core::wire::Interaction {
            response_modes: vec![
                skillgate_core::wire::ResponseMode::Sync,
                skillgate_core::wire::ResponseMode::Stream,
                skillgate_core::wire::ResponseMode::Poll,
            ],
            cancelable: true,
        })
        .handler(|args: Value, ctx: SkillContext| async move {
            let ms = args["ms"].as_u64().unwrap_or(0);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                () = ctx.cancelled() => return Err(SkillError::execution_failed("canceled")),
            }
            Ok(SkillOutput::new(json!({"n": args["n"]})))
        })
        .build()
}

pub fn agent() -> Agent {
    Agent::builder("grpc-test-agent", "An agent for the gRPC tests", "0.1.0")
        .skill(echo_skill())
        .build()
        .unwrap()
}

/// The HTTP server and the gRPC server of one agent, stopped together.
pub struct Both {
    /// `http://127.0.0.1:<port>` of the HTTP bindings.
    pub base: String,
    /// `127.0.0.1:<port>` of the gRPC binding (as the card lists it).
    pub grpc_addr: String,
    pub http: reqwest::Client,
    /// The served agent and card: a test replaces the agent as a reload would.
    pub swap: skillgate_runtime::AgentSwap,
    stop: tokio::sync::watch::Sender<bool>,
    task: Option<tokio::task::JoinHandle<Result<(), skillgate_server::LaunchError>>>,
}

async fn stopped(mut rx: tokio::sync::watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

impl Both {
    pub async fn start(config: ServerConfig) -> Both {
        Self::start_with(agent(), config, Duration::from_secs(10)).await
    }

    pub async fn start_with(agent: Agent, config: ServerConfig, grace: Duration) -> Both {
        let grpc = skillgate_grpc::GrpcConfig {
            shutdown_grace: grace,
            ..Default::default()
        };
        Self::start_full(agent, config, grpc).await
    }

    /// Both servers, started by one [`skillgate_server::Launch`]; the gRPC one with `grpc`,
    /// its tokens and body limit taken from `config`.
    pub async fn start_full(
        agent: Agent,
        config: ServerConfig,
        grpc: skillgate_grpc::GrpcConfig,
    ) -> Both {
        let http_l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let grpc_l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let grpc_config = skillgate_grpc::GrpcConfig {
            tokens: config.tokens.clone(),
            body_limit: config.body_limit,
            ..grpc
        };
        let launch = skillgate_server::Launch::new(agent, http_l, config)
            .unwrap()
            .with_grpc_config(grpc_l, grpc_config)
            .unwrap();
        let base = launch.base_url().to_owned();
        let grpc_addr = launch.grpc_url().unwrap().to_owned();
        let (stop, rx) = tokio::sync::watch::channel(false);
        let (swap_tx, swap_rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(launch.serve(stopped(rx), move |swap| {
            let _ = swap_tx.send(swap);
        }));
        Both {
            base,
            grpc_addr,
            http: http_client(),
            swap: swap_rx.await.unwrap(),
            stop,
            task: Some(task),
        }
    }

    pub async fn client(&self) -> A2aServiceClient<Channel> {
        A2aServiceClient::connect(format!("http://{}", self.grpc_addr))
            .await
            .unwrap()
    }

    /// Stops both servers and waits for them, failing if either returned an error.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(h) = self.task.take() {
            h.await.unwrap().unwrap();
        }
    }

    /// Signals shutdown without waiting.
    pub fn signal_stop(&self) {
        let _ = self.stop.send(true);
    }

    /// The Agent Card the HTTP server serves.
    pub async fn card(&self) -> Value {
        agent_card(&self.http, &self.base).await
    }

    /// A JSON-RPC call with `A2A-Version: 1.0`; the whole response body.
    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        json_rpc(&self.http, &self.base, method, params).await
    }
}

impl Drop for Both {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// A tonic request carrying `msg` with `A2A-Version: 1.0` (and `metadata`).
pub fn req<T>(msg: T, metadata: &[(&'static str, &str)]) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut()
        .insert("a2a-version", "1.0".parse().unwrap());
    for (k, v) in metadata {
        r.metadata_mut().append(*k, v.parse().unwrap());
    }
    r
}

/// A protobuf message from its ProtoJSON form.
pub fn pb<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap()
}

/// The ProtoJSON form of a protobuf message.
pub fn json_of<T: serde::Serialize>(m: &T) -> Value {
    serde_json::to_value(m).unwrap()
}

/// A SendMessageRequest with one Data Part.
pub fn send(data: Value) -> pb::SendMessageRequest {
    pb(send_params(data))
}

/// The data of the first Data Part of the task's artifact that is not a supporting record.
pub fn output(task: &Value) -> Value {
    task["artifacts"][0]["parts"][0]["data"].clone()
}

/// A token table with one token for every skill.
pub fn tokens(token: &str) -> TokenTable {
    TokenTable::parse(&format!("{token}\n")).unwrap()
}

/// The ErrorInfo of a status (reason, domain).
pub fn error_info(s: &tonic::Status) -> (String, String) {
    use tonic_types::StatusExt;
    let d = s.get_error_details();
    let info = d.error_info().expect("ErrorInfo in the status details");
    (info.reason.clone(), info.domain.clone())
}
