//! The gRPC binding on the client side (`lf.a2a.v1.A2AService` over plain HTTP/2, tonic).
//!
//! Every answer is handed back in the HTTP+JSON shapes, so the client and the conformance
//! checker read all bindings alike: a message as its ProtoJSON body (the generated pbjson
//! impls), a refusal as the `google.rpc.Status` body HTTP+JSON sends (HTTP status from the
//! gRPC code, ErrorInfo in `details`), a server stream as server-sent events of ProtoJSON.
//! Requests carry the same service parameters as HTTP headers, as gRPC metadata.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use skillgate_a2a::{methods, RestError, RestErrorBody, MEDIA_TYPE_JSON};
use skillgate_grpc::numbers::{inexact_integers, integral_numbers};
use skillgate_grpc::pb;
use skillgate_grpc::pb::a2a_service_client::A2aServiceClient;
use std::time::{Duration, Instant};
use tonic::metadata::MetadataMap;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;
use url::Url;

use crate::{check_scheme, redact, Interface, Reply, StatusCode, Streaming, TraceEvent};
use crate::{Sent, Transport, TransportError};

/// A gRPC server stream read as server-sent events (see [`Streaming`]).
pub(crate) struct EventSource {
    pub(crate) stream: Messages,
    pub(crate) read_timeout: Duration,
}

/// The messages of a server stream: 1.0 ones, handed on as they are, or 0.3 ones, each
/// translated to its 1.0 form as it is read (`crate::v03rest::event`).
pub(crate) enum Messages {
    /// `lf.a2a.v1` StreamResponses.
    V10(tonic::Streaming<pb::StreamResponse>),
    /// `a2a.v1` StreamResponses.
    V03(tonic::Streaming<skillgate_grpc::pb03::StreamResponse>),
}

impl EventSource {
    /// The next message as the bytes of one event (`data: <ProtoJSON>`), or `None` at the end.
    pub(crate) async fn next_event(
        &mut self,
        url: &Url,
    ) -> Result<Option<Vec<u8>>, TransportError> {
        let next = tokio::time::timeout(self.read_timeout, async {
            match &mut self.stream {
                Messages::V10(s) => s
                    .message()
                    .await
                    .map(|m| m.map(|m| json_of(&m, url).map(|v| v.to_string()))),
                Messages::V03(s) => s.message().await.map(|m| {
                    m.map(|m| {
                        let v = json_of(&m, url)?;
                        crate::v03rest::event(v.to_string().as_bytes(), url)
                    })
                }),
            }
        })
        .await
        .map_err(|_| TransportError::Timeout { url: redact(url) })?;
        match next {
            Ok(None) => Ok(None),
            Ok(Some(text)) => Ok(Some(format!("data: {}\n\n", text?).into_bytes())),
            Err(s) => Err(TransportError::Http {
                url: redact(url),
                reason: format!(
                    "the gRPC stream ended with {}: {}",
                    name_of(s.code()).1,
                    s.message()
                ),
            }),
        }
    }
}

/// A protobuf answer as JSON, whole doubles within the safe range turned back into integers.
pub(crate) fn json_of<M: Serialize>(m: &M, url: &Url) -> Result<Value, TransportError> {
    let mut v = serde_json::to_value(m).map_err(|e| TransportError::Http {
        url: redact(url),
        reason: format!("the gRPC answer has no JSON form: {e}"),
    })?;
    integral_numbers(&mut v);
    Ok(v)
}

/// An A2A request as its protobuf message (integers past 2^53 - 1 become doubles, the only
/// form a `Struct` has for them).
pub(crate) fn to_pb<Q: Serialize, M: DeserializeOwned>(params: &Q) -> Result<M, TransportError> {
    let mut v = serde_json::to_value(params)
        .map_err(|e| TransportError::Config(format!("cannot encode the request: {e}")))?;
    inexact_integers(&mut v);
    serde_json::from_value(v)
        .map_err(|e| TransportError::Config(format!("cannot encode the gRPC request: {e}")))
}

/// The HTTP status and the `status` name the HTTP+JSON binding gives for a gRPC code.
fn name_of(code: Code) -> (u16, &'static str) {
    match code {
        Code::Ok => (200, "OK"),
        Code::Cancelled => (499, "CANCELLED"),
        Code::Unknown => (500, "UNKNOWN"),
        Code::InvalidArgument => (400, "INVALID_ARGUMENT"),
        Code::DeadlineExceeded => (504, "DEADLINE_EXCEEDED"),
        Code::NotFound => (404, "NOT_FOUND"),
        Code::AlreadyExists => (409, "ALREADY_EXISTS"),
        Code::PermissionDenied => (403, "PERMISSION_DENIED"),
        Code::ResourceExhausted => (429, "RESOURCE_EXHAUSTED"),
        Code::FailedPrecondition => (400, "FAILED_PRECONDITION"),
        Code::Aborted => (409, "ABORTED"),
        Code::OutOfRange => (400, "OUT_OF_RANGE"),
        Code::Unimplemented => (501, "UNIMPLEMENTED"),
        Code::Internal => (500, "INTERNAL"),
        Code::Unavailable => (503, "UNAVAILABLE"),
        Code::DataLoss => (500, "DATA_LOSS"),
        Code::Unauthenticated => (401, "UNAUTHENTICATED"),
    }
}

/// A gRPC refusal as the HTTP+JSON error reply (`google.rpc.Status` body, ErrorInfo kept).
pub(crate) fn refusal(url: &Url, s: &Status) -> Reply {
    let (http, name) = name_of(s.code());
    let details = s
        .get_error_details()
        .error_info()
        .map(|i| {
            let mut info = skillgate_a2a::ErrorInfo::new(i.reason.clone());
            info.domain.clone_from(&i.domain);
            info.metadata = i
                .metadata
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            vec![info.to_value()]
        })
        .unwrap_or_default();
    let body = RestErrorBody {
        error: RestError {
            code: http,
            status: name.to_owned(),
            message: s.message().to_owned(),
            details,
        },
    };
    Reply {
        status: StatusCode::from_u16(http).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        content_type: MEDIA_TYPE_JSON.to_owned(),
        extensions: None,
        url: url.clone(),
        bytes: serde_json::to_vec(&body).unwrap_or_default(),
    }
}

/// The echoed extensions of an answer, under either name (`x-a2a-extensions` is 0.3's).
pub(crate) fn extensions_of(md: &MetadataMap) -> Option<String> {
    let all: Vec<&str> = [
        skillgate_a2a::A2A_EXTENSIONS_HEADER.to_ascii_lowercase(),
        "x-a2a-extensions".to_owned(),
    ]
    .iter()
    .flat_map(|k| md.get_all(k.as_str()).iter())
    .filter_map(|v| v.to_str().ok())
    .collect();
    (!all.is_empty()).then(|| all.join(","))
}

/// One gRPC exchange on `interface` through `transport`'s configuration.
pub(crate) struct Grpc<'a> {
    pub(crate) transport: &'a Transport,
    pub(crate) interface: &'a Interface,
}

impl Grpc<'_> {
    async fn client(&self) -> Result<A2aServiceClient<Channel>, TransportError> {
        let channel = self.channel().await?;
        let limit = self.transport.config().response_limit;
        Ok(A2aServiceClient::new(channel).max_decoding_message_size(limit))
    }

    /// The HTTP/2 channel to the interface, under the transport's scheme policy and timers
    /// (shared by the 1.0 and the 0.3 clients).
    pub(crate) async fn channel(&self) -> Result<Channel, TransportError> {
        let url = &self.interface.url;
        let cfg = self.transport.config();
        check_scheme(url, cfg.allow_http).map_err(|e| TransportError::Refused(e.to_string()))?;
        if url.scheme() != "http" {
            return Err(TransportError::Refused(format!(
                "gRPC interface {}: only plain HTTP/2 (h2c) is supported by this client, not TLS",
                redact(url)
            )));
        }
        let endpoint = tonic::transport::Endpoint::from_shared(url.to_string())
            .map_err(|e| TransportError::BadUrl(format!("{}: {e}", redact(url))))?
            .connect_timeout(cfg.connect_timeout)
            .timeout(cfg.timeout);
        let channel = endpoint.connect().await.map_err(|e| {
            let mut reason = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                reason = format!("{reason}: {s}");
                src = s.source();
            }
            TransportError::Connect {
                url: redact(url),
                reason,
            }
        })?;
        Ok(channel)
    }

    /// The service parameters of every request (the HTTP headers the transport would send,
    /// `A2A-Version`, `A2A-Extensions`, `Authorization`, `--header`s) as metadata.
    pub(crate) fn request<M>(&self, msg: M, activate: bool) -> tonic::Request<M> {
        let mut headers = self.transport.headers(
            MEDIA_TYPE_JSON,
            activate,
            self.interface.version,
            &self.interface.url,
        );
        headers.remove(reqwest::header::ACCEPT);
        tonic::Request::from_parts(
            MetadataMap::from_headers(headers),
            tonic::Extensions::default(),
            msg,
        )
    }

    pub(crate) fn trace(&self, started: Instant, outcome: Result<u16, String>) {
        if let Some(t) = &self.transport.config().trace {
            t.emit(&TraceEvent {
                method: "gRPC",
                url: redact(&self.interface.url),
                outcome,
                elapsed: started.elapsed(),
            });
        }
    }

    /// A unary A2A method (`method` is its JSON-RPC name) with `params` in its A2A JSON form.
    pub(crate) async fn unary<P: Serialize>(
        &self,
        method: &str,
        params: &P,
        activate: bool,
    ) -> Result<Sent, TransportError> {
        let mut c = self.client().await?;
        let started = Instant::now();
        let answer = match method {
            methods::SEND_MESSAGE => {
                let r = self.request(to_pb::<_, pb::SendMessageRequest>(params)?, activate);
                c.send_message(r)
                    .await
                    .map(|r| split(r, &self.interface.url))
            }
            methods::GET_TASK => {
                let r = self.request(to_pb::<_, pb::GetTaskRequest>(params)?, activate);
                c.get_task(r).await.map(|r| split(r, &self.interface.url))
            }
            methods::LIST_TASKS => {
                let r = self.request(to_pb::<_, pb::ListTasksRequest>(params)?, activate);
                c.list_tasks(r).await.map(|r| split(r, &self.interface.url))
            }
            methods::CANCEL_TASK => {
                let r = self.request(to_pb::<_, pb::CancelTaskRequest>(params)?, activate);
                c.cancel_task(r)
                    .await
                    .map(|r| split(r, &self.interface.url))
            }
            methods::GET_EXTENDED_AGENT_CARD => {
                let r = self.request(
                    to_pb::<_, pb::GetExtendedAgentCardRequest>(params)?,
                    activate,
                );
                c.get_extended_agent_card(r)
                    .await
                    .map(|r| split(r, &self.interface.url))
            }
            methods::CREATE_TASK_PUSH_NOTIFICATION_CONFIG => {
                let r = self.request(
                    to_pb::<_, pb::TaskPushNotificationConfig>(params)?,
                    activate,
                );
                c.create_task_push_notification_config(r)
                    .await
                    .map(|r| split(r, &self.interface.url))
            }
            methods::GET_TASK_PUSH_NOTIFICATION_CONFIG => {
                let r = self.request(
                    to_pb::<_, pb::GetTaskPushNotificationConfigRequest>(params)?,
                    activate,
                );
                c.get_task_push_notification_config(r)
                    .await
                    .map(|r| split(r, &self.interface.url))
            }
            methods::LIST_TASK_PUSH_NOTIFICATION_CONFIGS => {
                let r = self.request(
                    to_pb::<_, pb::ListTaskPushNotificationConfigsRequest>(params)?,
                    activate,
                );
                c.list_task_push_notification_configs(r)
                    .await
                    .map(|r| split(r, &self.interface.url))
            }
            methods::DELETE_TASK_PUSH_NOTIFICATION_CONFIG => {
                let r = self.request(
                    to_pb::<_, pb::DeleteTaskPushNotificationConfigRequest>(params)?,
                    activate,
                );
                c.delete_task_push_notification_config(r)
                    .await
                    .map(|r| split(r, &self.interface.url))
            }
            other => {
                return Err(TransportError::Config(format!(
                    "{other} is not a unary gRPC method of this client"
                )))
            }
        };
        let reply = match answer {
            Ok((body, extensions)) => Reply {
                status: StatusCode::OK,
                content_type: MEDIA_TYPE_JSON.to_owned(),
                extensions,
                url: self.interface.url.clone(),
                bytes: body?,
            },
            Err(s) => refusal(&self.interface.url, &s),
        };
        self.trace(started, Ok(reply.status.as_u16()));
        Ok(Sent {
            request_id: None,
            reply,
        })
    }

    /// A streaming A2A method (`SendStreamingMessage`, `SubscribeToTask`).
    pub(crate) async fn open<P: Serialize>(
        &self,
        method: &str,
        params: &P,
        activate: bool,
    ) -> Result<Streaming, TransportError> {
        let mut c = self.client().await?;
        let started = Instant::now();
        let opened = match method {
            methods::SEND_STREAMING_MESSAGE => {
                let r = self.request(to_pb::<_, pb::SendMessageRequest>(params)?, activate);
                c.send_streaming_message(r).await
            }
            methods::SUBSCRIBE_TO_TASK => {
                let r = self.request(to_pb::<_, pb::SubscribeToTaskRequest>(params)?, activate);
                c.subscribe_to_task(r).await
            }
            other => {
                return Err(TransportError::Config(format!(
                    "{other} is not a streaming gRPC method of this client"
                )))
            }
        };
        let cfg = self.transport.config();
        let url = self.interface.url.clone();
        let (outcome, extensions) = match opened {
            Ok(r) => {
                let extensions = extensions_of(r.metadata());
                let events = EventSource {
                    stream: Messages::V10(r.into_inner()),
                    read_timeout: cfg.read_timeout,
                };
                (Ok(events), extensions)
            }
            Err(s) => (Err(refusal(&url, &s)), None),
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

/// A unary answer's ProtoJSON body and its echoed extensions.
fn split<M: Serialize>(
    r: tonic::Response<M>,
    url: &Url,
) -> (Result<Vec<u8>, TransportError>, Option<String>) {
    let extensions = extensions_of(r.metadata());
    let body = json_of(r.get_ref(), url).map(|v| v.to_string().into_bytes());
    (body, extensions)
}
