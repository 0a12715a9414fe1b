//! A2A 0.3 over gRPC on the client side (`a2a.v1.A2AService`, `docs/a2a-0.3.md` 1.11).
//!
//! Each 1.0 operation is written as its 0.3 RPC (resource names `tasks/{id}`, the message in
//! 0.3 ProtoJSON turned into protobuf by the generated pbjson impls) and every answer is
//! handed back exactly as a 0.3 HTTP+JSON answer would be: the answer's ProtoJSON goes
//! through `crate::v03rest`'s readers, a refusal through its 0.3 error reading, so the 0.3
//! protobuf and ProtoJSON share one translation and the client parses 1.0 only.

use serde::Serialize;
use serde_json::Value;
use skillgate_a2a::v03::error::{error_of_grpc_message, grpc_message_text};
use skillgate_a2a::v03::rest::{error_status, task_name, ConfigName, ErrorBody};
use skillgate_a2a::v03::translate::{history_length_to_v03, pj as t};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{methods, CancelTaskRequest, GetTaskRequest, SendMessageRequest};
use skillgate_a2a::{
    ListTaskPushNotificationConfigsRequest, TaskPushNotificationConfig,
    TaskPushNotificationConfigRef,
};
use skillgate_a2a::{SubscribeToTaskRequest, MEDIA_TYPE_JSON};
use skillgate_grpc::pb03;
use skillgate_grpc::pb03::a2a_service_client::A2aServiceClient;
use std::time::Instant;
use tonic::Status;
use url::Url;

use crate::grpc::{extensions_of, json_of, refusal, to_pb, EventSource, Grpc, Messages};
use crate::v03rest::{translate_body, translate_error, Answer};
use crate::{Reply, Sent, StatusCode, Streaming, TransportError};

fn typed<T: serde::de::DeserializeOwned>(params: &impl Serialize) -> Result<T, TransportError> {
    serde_json::to_value(params)
        .and_then(serde_json::from_value)
        .map_err(|e| TransportError::Config(format!("cannot encode the request: {e}")))
}

fn no_form(e: skillgate_a2a::v03::WriteError) -> TransportError {
    TransportError::Config(format!("the request has no A2A 0.3 form: {e}"))
}

fn unsupported(operation: &'static str) -> TransportError {
    TransportError::Unsupported {
        operation,
        version: WireVersion::V0_3,
    }
}

/// A 0.3 gRPC refusal as the 1.0 HTTP+JSON error reply: the A2A error named by the status
/// text (`"TaskNotFoundError: ..."`, as a2a-sdk 0.3 and skillgate write it), at the HTTP
/// status of the 0.3 REST table, read by the one 0.3 error reader. A status that names no
/// A2A error keeps the 1.0 reading of its gRPC code.
fn refusal03(url: &Url, s: &Status) -> Reply {
    let translated = error_of_grpc_message(s.message()).and_then(|kind| {
        let http = error_status(kind);
        let body =
            serde_json::to_vec(&ErrorBody::new(kind, grpc_message_text(s.message()))).ok()?;
        Some((http, translate_error(http, &body)?))
    });
    match translated {
        Some((http, bytes)) => Reply {
            status: StatusCode::from_u16(http).unwrap_or(StatusCode::BAD_REQUEST),
            content_type: MEDIA_TYPE_JSON.to_owned(),
            extensions: None,
            url: url.clone(),
            bytes,
        },
        None => refusal(url, s),
    }
}

impl Grpc<'_> {
    async fn client03(
        &self,
    ) -> Result<A2aServiceClient<tonic::transport::Channel>, TransportError> {
        let channel = self.channel().await?;
        let limit = self.transport.config().response_limit;
        Ok(A2aServiceClient::new(channel).max_decoding_message_size(limit))
    }

    /// A unary 1.0 operation (`method` is its JSON-RPC name, `params` its A2A JSON form) on
    /// a 0.3 gRPC interface: every unary RPC 0.3 has. `GetExtendedAgentCard` is 0.3's
    /// `GetAgentCard` (what a2a-sdk 0.3's gRPC client calls for the authenticated card too);
    /// `ListTasks` has no 0.3 form and is refused before anything is sent.
    pub(crate) async fn unary03<P: Serialize>(
        &self,
        method: &'static str,
        params: &P,
        activate: bool,
    ) -> Result<Sent, TransportError> {
        let request = unary_request(method, params)?;
        let mut c = self.client03().await?;
        let url = &self.interface.url;
        let started = Instant::now();
        let reply = match self.call(&mut c, request, activate).await {
            Ok((v, extensions, kind)) => Reply {
                status: StatusCode::OK,
                content_type: MEDIA_TYPE_JSON.to_owned(),
                extensions,
                url: url.clone(),
                bytes: translate_body(kind, v.to_string().as_bytes(), url)?,
            },
            Err(s) => refusal03(url, &s),
        };
        self.trace(started, Ok(reply.status.as_u16()));
        Ok(Sent {
            request_id: None,
            reply,
        })
    }

    /// Sends one unary RPC: the answer's ProtoJSON (a card already in 0.3 JSON), the echoed
    /// extensions, and how the 0.3 HTTP+JSON readers read it.
    async fn call(
        &self,
        c: &mut A2aServiceClient<tonic::transport::Channel>,
        request: Unary,
        activate: bool,
    ) -> Result<(Value, Option<String>, Answer), Status> {
        let url = &self.interface.url;
        fn done<M: Serialize>(
            r: tonic::Response<M>,
            url: &Url,
            kind: Answer,
        ) -> Result<(Value, Option<String>, Answer), Status> {
            Ok((
                to_json(r.get_ref(), url)?,
                extensions_of(r.metadata()),
                kind,
            ))
        }
        match request {
            Unary::Send(m) => {
                let r = c.send_message(self.request(*m, activate)).await?;
                done(r, url, Answer::SendMessage)
            }
            Unary::Get(m) => done(
                c.get_task(self.request(m, activate)).await?,
                url,
                Answer::Task,
            ),
            Unary::Cancel(m) => {
                let r = c.cancel_task(self.request(m, activate)).await?;
                done(r, url, Answer::Task)
            }
            Unary::CreateConfig(m) => {
                let r = c
                    .create_task_push_notification_config(self.request(*m, activate))
                    .await?;
                done(r, url, Answer::PushConfig)
            }
            Unary::GetConfig(m) => {
                let r = c
                    .get_task_push_notification_config(self.request(m, activate))
                    .await?;
                done(r, url, Answer::PushConfig)
            }
            Unary::ListConfigs(m) => {
                let r = c
                    .list_task_push_notification_config(self.request(m, activate))
                    .await?;
                done(r, url, Answer::PushConfigs)
            }
            Unary::DeleteConfig(m) => {
                let r = c
                    .delete_task_push_notification_config(self.request(m, activate))
                    .await?;
                done(r, url, Answer::Deleted)
            }
            Unary::Card(m) => {
                let r = c.get_agent_card(self.request(m, activate)).await?;
                let (v, ext, kind) = done(r, url, Answer::Card)?;
                Ok((skillgate_a2a::v03::card::from_proto_json(&v), ext, kind))
            }
        }
    }

    /// A streaming 1.0 operation (`SendStreamingMessage`, `SubscribeToTask`) on a 0.3 gRPC
    /// interface (`SendStreamingMessage`, `TaskSubscription`): its events are translated to
    /// 1.0 as they are read.
    pub(crate) async fn open03<P: Serialize>(
        &self,
        method: &'static str,
        params: &P,
        activate: bool,
    ) -> Result<Streaming, TransportError> {
        let mut c = self.client03().await?;
        let started = Instant::now();
        let opened = match method {
            methods::SEND_STREAMING_MESSAGE => {
                let s: SendMessageRequest = typed(params)?;
                let pj = t::send_message_request_to_pj(&s).map_err(no_form)?;
                let m: pb03::SendMessageRequest = to_pb(&pj)?;
                c.send_streaming_message(self.request(m, activate)).await
            }
            methods::SUBSCRIBE_TO_TASK => {
                let s: SubscribeToTaskRequest = typed(params)?;
                let m = pb03::TaskSubscriptionRequest {
                    name: task_name(&s.id),
                };
                c.task_subscription(self.request(m, activate)).await
            }
            other => return Err(unsupported(other)),
        };
        let cfg = self.transport.config();
        let url = self.interface.url.clone();
        let (outcome, extensions) = match opened {
            Ok(r) => {
                let extensions = extensions_of(r.metadata());
                let events = EventSource {
                    stream: Messages::V03(r.into_inner()),
                    read_timeout: cfg.read_timeout,
                };
                (Ok(events), extensions)
            }
            Err(s) => (Err(refusal03(&url, &s)), None),
        };
        self.trace(
            started,
            Ok(match &outcome {
                Ok(_) => 200,
                Err(r) => r.status.as_u16(),
            }),
        );
        Ok(Streaming::from_grpc(
            url,
            outcome,
            extensions,
            cfg.response_limit,
        ))
    }
}

/// The 0.3 unary RPCs this client sends.
enum Unary {
    // Boxed: a message (or a config) is far larger than the name-only requests.
    Send(Box<pb03::SendMessageRequest>),
    Get(pb03::GetTaskRequest),
    Cancel(pb03::CancelTaskRequest),
    CreateConfig(Box<pb03::CreateTaskPushNotificationConfigRequest>),
    GetConfig(pb03::GetTaskPushNotificationConfigRequest),
    ListConfigs(pb03::ListTaskPushNotificationConfigRequest),
    DeleteConfig(pb03::DeleteTaskPushNotificationConfigRequest),
    Card(pb03::GetAgentCardRequest),
}

/// The 0.3 RPC of 1.0 operation `method` with `params`; resource names by `v03::rest`.
fn unary_request<P: Serialize>(method: &'static str, params: &P) -> Result<Unary, TransportError> {
    let config_name = |r: &TaskPushNotificationConfigRef| {
        ConfigName {
            task_id: r.task_id.clone(),
            config_id: r.id.clone(),
        }
        .render()
    };
    Ok(match method {
        methods::SEND_MESSAGE => {
            let s: SendMessageRequest = typed(params)?;
            let pj = t::send_message_request_to_pj(&s).map_err(no_form)?;
            Unary::Send(Box::new(to_pb(&pj)?))
        }
        methods::GET_TASK => {
            let g: GetTaskRequest = typed(params)?;
            Unary::Get(pb03::GetTaskRequest {
                name: task_name(&g.id),
                history_length: history_length_to_v03(g.history_length).unwrap_or(0),
            })
        }
        methods::CANCEL_TASK => {
            let c: CancelTaskRequest = typed(params)?;
            Unary::Cancel(pb03::CancelTaskRequest {
                name: task_name(&c.id),
            })
        }
        methods::CREATE_TASK_PUSH_NOTIFICATION_CONFIG => {
            let c: TaskPushNotificationConfig = typed(params)?;
            Unary::CreateConfig(Box::new(to_pb(&t::create_push_config_to_pj(&c))?))
        }
        methods::GET_TASK_PUSH_NOTIFICATION_CONFIG => {
            let r: TaskPushNotificationConfigRef = typed(params)?;
            Unary::GetConfig(pb03::GetTaskPushNotificationConfigRequest {
                name: config_name(&r),
            })
        }
        methods::LIST_TASK_PUSH_NOTIFICATION_CONFIGS => {
            let l: ListTaskPushNotificationConfigsRequest = typed(params)?;
            Unary::ListConfigs(pb03::ListTaskPushNotificationConfigRequest {
                parent: task_name(&l.task_id),
                ..Default::default()
            })
        }
        methods::DELETE_TASK_PUSH_NOTIFICATION_CONFIG => {
            let r: TaskPushNotificationConfigRef = typed(params)?;
            Unary::DeleteConfig(pb03::DeleteTaskPushNotificationConfigRequest {
                name: config_name(&r),
            })
        }
        methods::GET_EXTENDED_AGENT_CARD => Unary::Card(pb03::GetAgentCardRequest {}),
        other => return Err(unsupported(other)),
    })
}

/// A 0.3 answer's ProtoJSON (whole doubles back to integers); a message with no JSON form
/// is reported as the status the caller maps.
fn to_json<M: Serialize>(m: &M, url: &Url) -> Result<Value, Status> {
    json_of(m, url).map_err(|e| Status::internal(e.to_string()))
}
