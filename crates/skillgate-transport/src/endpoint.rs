//! The A2A operations on one interface, put on the wire for its binding.
//!
//! JSON-RPC: one `POST` to the interface URL with a fresh string id; on an A2A 0.3 interface
//! the 0.3 method and params, the answer translated to 1.0 (see the `v03` module). HTTP+JSON: the
//! operation's path under the interface URL (and the tenant, when the card names one):
//! `POST message:send`, `POST message:stream`, `GET tasks/{id}`, `POST tasks/{id}:cancel`,
//! `GET tasks/{id}:subscribe`, `GET tasks?QUERY`; on an A2A 0.3 interface the same operations
//! under `v1/` with ProtoJSON bodies, the answers translated to 1.0 (see the `v03rest`
//! module). gRPC: the `A2AService` method, its answer
//! handed back in the HTTP+JSON shapes (see the `grpc` module); on an A2A 0.3 interface the
//! `a2a.v1` RPC, its answer translated to 1.0 as a 0.3 HTTP+JSON answer is (`grpc03`).

use serde::Serialize;
use skillgate_a2a::v03::rest::PUSH_CONFIGS;
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{
    methods, CancelTaskRequest, GetTaskRequest, JsonRpcId, JsonRpcRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, SendMessageRequest,
    SubscribeToTaskRequest, TaskPushNotificationConfig, TaskPushNotificationConfigRef,
    MEDIA_TYPE_A2A_JSON, MEDIA_TYPE_EVENT_STREAM, MEDIA_TYPE_JSON,
};
use url::Url;

use crate::v03rest::Verb03;
use crate::{fresh_id, Binding, Interface, Reply, Streaming, Transport, TransportError};

/// What one unary operation got back: the whole reply and, for JSON-RPC, the id the request
/// carried (the caller decides how strictly the response's id must match it).
#[derive(Debug, Clone)]
pub struct Sent {
    /// The JSON-RPC request id; `None` on HTTP+JSON.
    pub request_id: Option<JsonRpcId>,
    /// The reply.
    pub reply: Reply,
}

/// One interface of one agent, reached through a [`Transport`]. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Endpoint {
    transport: Transport,
    interface: Interface,
}

enum Verb {
    Get,
    Post,
    Delete,
}

fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, TransportError> {
    serde_json::to_vec(value)
        .map_err(|e| TransportError::Config(format!("cannot encode the request: {e}")))
}

impl Endpoint {
    /// `interface` reached through `transport`.
    pub fn new(transport: Transport, interface: Interface) -> Self {
        Self {
            transport,
            interface,
        }
    }

    /// The interface.
    pub fn interface(&self) -> &Interface {
        &self.interface
    }

    /// The transport (and so its configuration).
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The HTTP+JSON URL of `segments` (each percent-encoded here) under the interface URL
    /// and its tenant.
    pub fn rest_url(&self, segments: &[&str]) -> Result<Url, TransportError> {
        let mut url = self.interface.url.clone();
        {
            let mut path = url.path_segments_mut().map_err(|()| {
                TransportError::BadUrl(format!(
                    "interface URL {} cannot be a base",
                    crate::redact(&self.interface.url)
                ))
            })?;
            path.pop_if_empty();
            if !self.interface.tenant.is_empty() {
                path.push(&self.interface.tenant);
            }
            path.extend(segments);
        }
        Ok(url)
    }

    fn grpc(&self) -> crate::grpc::Grpc<'_> {
        crate::grpc::Grpc {
            transport: &self.transport,
            interface: &self.interface,
        }
    }

    fn rpc(
        &self,
        method: &str,
        params: impl Serialize,
    ) -> Result<(JsonRpcId, Vec<u8>), TransportError> {
        let params = serde_json::to_value(params)
            .map_err(|e| TransportError::Config(format!("cannot encode the request: {e}")))?;
        let id = JsonRpcId::String(fresh_id("req"));
        let body = encode(&JsonRpcRequest::new(id.clone(), method, params))?;
        Ok((id, body))
    }

    /// Opens one operation; the caller reads the reply whole or as a stream.
    async fn open<P: Serialize>(
        &self,
        method: &'static str,
        params: P,
        rest: (Verb, &[&str]),
        accept: &str,
        activate: bool,
    ) -> Result<(Option<JsonRpcId>, Streaming), TransportError> {
        let t = &self.transport;
        match self.interface.binding {
            Binding::Grpc if self.interface.version == WireVersion::V0_3 => {
                let open = self.grpc().open03(method, &params, activate).await?;
                Ok((None, open))
            }
            Binding::Grpc => {
                let open = self.grpc().open(method, &params, activate).await?;
                Ok((None, open))
            }
            Binding::JsonRpc if self.interface.version == WireVersion::V0_3 => {
                self.open_v03(method, &params, accept, activate).await
            }
            Binding::HttpJson if self.interface.version == WireVersion::V0_3 => {
                self.open_v03_rest(method, &params, accept, activate).await
            }
            Binding::JsonRpc => {
                let (id, body) = self.rpc(method, params)?;
                let open = t
                    .post(&self.interface.url, MEDIA_TYPE_JSON, accept, activate, body)
                    .await?;
                Ok((Some(id), open))
            }
            Binding::HttpJson => {
                let (verb, segments) = rest;
                let url = self.rest_url(segments)?;
                let open = match verb {
                    Verb::Get => t.get(&url, accept, activate).await?,
                    Verb::Delete => {
                        t.delete_as(WireVersion::V1_0, &url, accept, activate)
                            .await?
                    }
                    Verb::Post => {
                        t.post(
                            &url,
                            MEDIA_TYPE_A2A_JSON,
                            accept,
                            activate,
                            encode(&params)?,
                        )
                        .await?
                    }
                };
                Ok((None, open))
            }
        }
    }

    /// Opens one operation on a 0.3 JSON-RPC interface. An event stream is translated event
    /// by event as it is read; any other answer is read whole now (within the limit) and
    /// translated, so a 0.3 error before streaming reaches the caller as the 1.0 error body.
    /// A non-2xx answer is handed back as it came: the caller reports the HTTP status.
    async fn open_v03<P: Serialize>(
        &self,
        method: &'static str,
        params: &P,
        accept: &str,
        activate: bool,
    ) -> Result<(Option<JsonRpcId>, Streaming), TransportError> {
        let id = JsonRpcId::String(fresh_id("req"));
        let (body, kind) = crate::v03::request(method, params, &id)?;
        let t = &self.transport;
        let open = t
            .post_as(
                WireVersion::V0_3,
                &self.interface.url,
                MEDIA_TYPE_JSON,
                accept,
                activate,
                body,
            )
            .await?;
        if open.is_event_stream() && open.status.is_success() {
            return Ok((Some(id), open.into_v03_events(false)));
        }
        let mut reply = open.rest().await?;
        if reply.status.is_success() {
            reply.bytes = crate::v03::translate_body(kind, &reply.bytes, &reply.url)?;
            reply.content_type = MEDIA_TYPE_JSON.to_owned();
        }
        let limit = t.config().response_limit;
        Ok((Some(id), Streaming::from_reply(reply, limit)))
    }

    /// Opens one operation on a 0.3 HTTP+JSON interface: the `/v1` request in ProtoJSON, the
    /// answer handed back in the 1.0 HTTP+JSON shapes (an event stream translated event by
    /// event; a whole body, or a 0.3 error body, translated now). A non-2xx answer that is no
    /// 0.3 error body is handed back as it came: the caller reports the HTTP status.
    async fn open_v03_rest<P: Serialize>(
        &self,
        method: &'static str,
        params: &P,
        accept: &str,
        activate: bool,
    ) -> Result<(Option<JsonRpcId>, Streaming), TransportError> {
        let r = crate::v03rest::request(method, params)?;
        let mut segments = vec!["v1"];
        segments.extend(r.segments.iter().map(String::as_str));
        let mut url = self.rest_url(&segments)?;
        if let Some(n) = r.history_length {
            url.query_pairs_mut()
                .append_pair("historyLength", &n.to_string());
        }
        let t = &self.transport;
        let v = WireVersion::V0_3;
        let open = match r.verb {
            Verb03::Post(body) => {
                t.post_as(v, &url, MEDIA_TYPE_JSON, accept, activate, body)
                    .await?
            }
            Verb03::Get => t.get_as(v, &url, accept, activate).await?,
            Verb03::Delete => t.delete_as(v, &url, accept, activate).await?,
        };
        if open.is_event_stream() && open.status.is_success() {
            return Ok((None, open.into_v03_events(true)));
        }
        let mut reply = open.rest().await?;
        if reply.status.is_success() {
            reply.bytes = crate::v03rest::translate_body(r.answer, &reply.bytes, &reply.url)?;
            reply.content_type = MEDIA_TYPE_JSON.to_owned();
        } else if let Some(bytes) =
            crate::v03rest::translate_error(reply.status.as_u16(), &reply.bytes)
        {
            reply.bytes = bytes;
            reply.content_type = MEDIA_TYPE_JSON.to_owned();
        }
        let limit = t.config().response_limit;
        Ok((None, Streaming::from_reply(reply, limit)))
    }

    async fn unary<P: Serialize>(
        &self,
        method: &'static str,
        params: P,
        rest: (Verb, &[&str]),
        accept: &str,
        activate: bool,
    ) -> Result<Sent, TransportError> {
        if self.interface.binding == Binding::Grpc {
            if self.interface.version == WireVersion::V0_3 {
                return self.grpc().unary03(method, &params, activate).await;
            }
            return self.grpc().unary(method, &params, activate).await;
        }
        let (request_id, open) = self.open(method, params, rest, accept, activate).await?;
        Ok(Sent {
            request_id,
            reply: open.rest().await?,
        })
    }

    /// `SendMessage`; `activate` sends `A2A-Extensions` with the schema-interface URI.
    pub async fn send_message(
        &self,
        request: &SendMessageRequest,
        activate: bool,
    ) -> Result<Sent, TransportError> {
        let rest = (Verb::Post, &["message:send"][..]);
        self.unary(
            methods::SEND_MESSAGE,
            request,
            rest,
            MEDIA_TYPE_JSON,
            activate,
        )
        .await
    }

    /// `SendStreamingMessage`: the open response, an event stream unless the agent refused
    /// before streaming (then a plain JSON body).
    pub async fn stream_message(
        &self,
        request: &SendMessageRequest,
        activate: bool,
    ) -> Result<(Option<JsonRpcId>, Streaming), TransportError> {
        let rest = (Verb::Post, &["message:stream"][..]);
        self.open(
            methods::SEND_STREAMING_MESSAGE,
            request,
            rest,
            MEDIA_TYPE_EVENT_STREAM,
            activate,
        )
        .await
    }

    /// `GetTask` of task `id`.
    pub async fn get_task(&self, id: &str) -> Result<Sent, TransportError> {
        let params = GetTaskRequest {
            tenant: self.interface.tenant.clone(),
            id: id.to_owned(),
            history_length: None,
        };
        let rest = (Verb::Get, &["tasks", id][..]);
        self.unary(methods::GET_TASK, params, rest, MEDIA_TYPE_A2A_JSON, true)
            .await
    }

    /// `ListTasks`. HTTP+JSON puts the request's members in the query string of `GET tasks`
    /// (the tenant in the path).
    pub async fn list_tasks(&self, request: &ListTasksRequest) -> Result<Sent, TransportError> {
        match self.interface.binding {
            _ if self.interface.version == WireVersion::V0_3 => Err(TransportError::Unsupported {
                operation: methods::LIST_TASKS,
                version: WireVersion::V0_3,
            }),
            Binding::Grpc => self.grpc().unary(methods::LIST_TASKS, request, true).await,
            Binding::JsonRpc => {
                let rest = (Verb::Get, &["tasks"][..]);
                self.unary(
                    methods::LIST_TASKS,
                    request,
                    rest,
                    MEDIA_TYPE_A2A_JSON,
                    true,
                )
                .await
            }
            Binding::HttpJson => {
                let mut url = self.rest_url(&["tasks"])?;
                let value = serde_json::to_value(request).map_err(|e| {
                    TransportError::Config(format!("cannot encode the request: {e}"))
                })?;
                if let serde_json::Value::Object(members) = value {
                    let mut q = url.query_pairs_mut();
                    for (k, v) in members.iter().filter(|(k, _)| k.as_str() != "tenant") {
                        match v {
                            serde_json::Value::String(s) => q.append_pair(k, s),
                            other => q.append_pair(k, &other.to_string()),
                        };
                    }
                }
                if url.query() == Some("") {
                    url.set_query(None);
                }
                let open = self.transport.get(&url, MEDIA_TYPE_A2A_JSON, true).await?;
                Ok(Sent {
                    request_id: None,
                    reply: open.rest().await?,
                })
            }
        }
    }

    /// `CancelTask` of task `id`.
    pub async fn cancel_task(&self, id: &str) -> Result<Sent, TransportError> {
        let params = CancelTaskRequest {
            tenant: self.interface.tenant.clone(),
            id: id.to_owned(),
            metadata: None,
        };
        let segment = format!("{id}:cancel");
        let rest = (Verb::Post, &["tasks", segment.as_str()][..]);
        self.unary(
            methods::CANCEL_TASK,
            params,
            rest,
            MEDIA_TYPE_A2A_JSON,
            true,
        )
        .await
    }

    /// `GetExtendedAgentCard` (JSON-RPC `GetExtendedAgentCard`, HTTP+JSON `GET
    /// extendedAgentCard`): the card an authenticated caller receives.
    pub async fn get_extended_card(&self) -> Result<Sent, TransportError> {
        let params = serde_json::json!({});
        let rest = (Verb::Get, &["extendedAgentCard"][..]);
        self.unary(
            methods::GET_EXTENDED_AGENT_CARD,
            params,
            rest,
            MEDIA_TYPE_A2A_JSON,
            false,
        )
        .await
    }

    /// `CreateTaskPushNotificationConfig`: registers `config` (its `taskId` names the task; an
    /// empty `id` lets the agent assign one). JSON-RPC `CreateTaskPushNotificationConfig`,
    /// HTTP+JSON `POST tasks/{taskId}/pushNotificationConfigs`; on 0.3 interfaces
    /// `tasks/pushNotificationConfig/set`, `POST v1/tasks/{taskId}/pushNotificationConfigs`
    /// and the `a2a.v1` RPC. The answer is the config as registered, in the 1.0 shapes.
    pub async fn create_push_config(
        &self,
        config: &TaskPushNotificationConfig,
    ) -> Result<Sent, TransportError> {
        let rest = (
            Verb::Post,
            &["tasks", config.task_id.as_str(), PUSH_CONFIGS][..],
        );
        self.unary(
            methods::CREATE_TASK_PUSH_NOTIFICATION_CONFIG,
            config,
            rest,
            MEDIA_TYPE_A2A_JSON,
            true,
        )
        .await
    }

    /// `GetTaskPushNotificationConfig` of config `r.id` of task `r.taskId`.
    pub async fn get_push_config(
        &self,
        r: &TaskPushNotificationConfigRef,
    ) -> Result<Sent, TransportError> {
        let segments = ["tasks", r.task_id.as_str(), PUSH_CONFIGS, r.id.as_str()];
        let rest = (Verb::Get, &segments[..]);
        self.unary(
            methods::GET_TASK_PUSH_NOTIFICATION_CONFIG,
            r,
            rest,
            MEDIA_TYPE_A2A_JSON,
            true,
        )
        .await
    }

    /// `ListTaskPushNotificationConfigs` of task `r.taskId` (0.3 has no paging: every config
    /// comes in one answer).
    pub async fn list_push_configs(
        &self,
        r: &ListTaskPushNotificationConfigsRequest,
    ) -> Result<Sent, TransportError> {
        let rest = (Verb::Get, &["tasks", r.task_id.as_str(), PUSH_CONFIGS][..]);
        self.unary(
            methods::LIST_TASK_PUSH_NOTIFICATION_CONFIGS,
            r,
            rest,
            MEDIA_TYPE_A2A_JSON,
            true,
        )
        .await
    }

    /// `DeleteTaskPushNotificationConfig` of config `r.id` of task `r.taskId`; the answer is
    /// `{}` whatever the binding says.
    pub async fn delete_push_config(
        &self,
        r: &TaskPushNotificationConfigRef,
    ) -> Result<Sent, TransportError> {
        let segments = ["tasks", r.task_id.as_str(), PUSH_CONFIGS, r.id.as_str()];
        let rest = (Verb::Delete, &segments[..]);
        self.unary(
            methods::DELETE_TASK_PUSH_NOTIFICATION_CONFIG,
            r,
            rest,
            MEDIA_TYPE_A2A_JSON,
            true,
        )
        .await
    }

    /// `SubscribeToTask` of task `id`: the open event stream.
    pub async fn subscribe(
        &self,
        id: &str,
    ) -> Result<(Option<JsonRpcId>, Streaming), TransportError> {
        let params = SubscribeToTaskRequest {
            tenant: self.interface.tenant.clone(),
            id: id.to_owned(),
        };
        let segment = format!("{id}:subscribe");
        let rest = (Verb::Get, &["tasks", segment.as_str()][..]);
        self.open(
            methods::SUBSCRIBE_TO_TASK,
            params,
            rest,
            MEDIA_TYPE_EVENT_STREAM,
            true,
        )
        .await
    }
}
