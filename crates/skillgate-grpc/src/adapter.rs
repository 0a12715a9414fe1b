//! The `lf.a2a.v1.A2AService` implementation: each method reads the request metadata the way
//! the HTTP layers read headers (the same [`skillgate_runtime::checks`] checks), converts the
//! message to the A2A type, calls the one [`A2aService`], and converts the answer back.

use crate::convert::{from_json, request, response};
use crate::pb;
use crate::status::{a2a_status, auth_status, service_status};
use futures_util::{Stream, StreamExt};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{self as a2a, A2aError};
use skillgate_runtime::{checks, A2aService, AgentSwap, PushConfigs, RequestContext, TokenTable};
use std::pin::Pin;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Request, Response, Status};

/// A server-streaming answer: StreamResponse events until the task's stream ends.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<pb::StreamResponse, Status>> + Send>>;

/// The gRPC face of one server's [`A2aService`] (shared with its HTTP bindings).
#[derive(Clone)]
pub struct Adapter {
    swap: AgentSwap,
    service: A2aService,
    tokens: Option<Arc<TokenTable>>,
    /// Cancelled at shutdown: every open event stream ends at once.
    streams_end: CancellationToken,
}

/// `a2a-version`, `a2a-extensions` and `authorization` as gRPC metadata keys (lowercase).
const VERSION_KEY: &str = "a2a-version";
const EXTENSIONS_KEY: &str = "a2a-extensions";
/// The 0.3 clients' name of [`EXTENSIONS_KEY`] (gRPC metadata keys are lower case).
const EXTENSIONS_KEY_V03: &str = "x-a2a-extensions";
const AUTHORIZATION_KEY: &str = "authorization";

impl Adapter {
    /// An adapter over the service `swap` serves; with `tokens`, every call needs a bearer
    /// token from them, as on HTTP.
    pub fn new(
        swap: AgentSwap,
        tokens: Option<Arc<TokenTable>>,
        streams_end: CancellationToken,
    ) -> Self {
        Self {
            service: swap.service(),
            swap,
            tokens,
            streams_end,
        }
    }

    /// The request context from the call's metadata, after the bearer and version checks,
    /// and the extensions to echo.
    fn context(&self, md: &MetadataMap) -> Result<(RequestContext, Vec<String>), Status> {
        self.context_checked(md, WireVersion::V1_0)
            .map_err(|e| match e {
                Refused::A2a(kind, message) => a2a_status(kind, message),
                Refused::Auth(status) => status,
            })
    }

    /// The service this adapter calls (shared with the 0.3 adapter over the same port).
    pub(crate) fn service(&self) -> &A2aService {
        &self.service
    }

    /// The swap the cards are read from.
    pub(crate) fn swap(&self) -> &AgentSwap {
        &self.swap
    }

    /// The event stream's end at shutdown.
    pub(crate) fn streams_end(&self) -> CancellationToken {
        self.streams_end.clone()
    }

    /// [`Self::context`] for a service of `family` (`lf.a2a.v1` is 1.0, `a2a.v1` is 0.3):
    /// the same bearer check, then [`checks::negotiate`] with that family. A refusal is kept
    /// apart from its status so each service writes an A2A error in its own dialect.
    pub(crate) fn context_checked(
        &self,
        md: &MetadataMap,
        family: WireVersion,
    ) -> Result<(RequestContext, Vec<String>), Refused> {
        // The HTTP layers' order: the caller first, then the version.
        let caller = match &self.tokens {
            None => None,
            Some(t) => {
                let values = md
                    .get_all(AUTHORIZATION_KEY)
                    .iter()
                    .map(|v| v.to_str().unwrap_or(""));
                Some(
                    skillgate_runtime::authenticate(t, values)
                        .map_err(|e| Refused::Auth(auth_status(e)))?,
                )
            }
        };
        let version = md
            .get(VERSION_KEY)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .trim();
        // The service's own family decides, whatever is served: a 0.3 service must not
        // answer when 0.3 is not served, nor a 1.0 one when 1.0 is not.
        if let Err(r) = checks::negotiate(version, Some(family), self.service.versions()) {
            return Err(Refused::A2a(A2aError::VersionNotSupported, r.message));
        }
        // Both names activate: `x-a2a-extensions` is what 0.3 clients send.
        let requested: Vec<&str> = [EXTENSIONS_KEY, EXTENSIONS_KEY_V03]
            .into_iter()
            .flat_map(|k| md.get_all(k).iter())
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect();
        let extensions = checks::activate_extensions(requested);
        let ctx = RequestContext {
            caller,
            extensions: extensions.clone(),
            version: family,
        };
        Ok((ctx, extensions))
    }

    /// A response carrying `msg`, echoing the activated extensions in its metadata.
    fn answer<T>(msg: T, extensions: &[String]) -> Response<T> {
        let mut r = Response::new(msg);
        if !extensions.is_empty() {
            if let Ok(v) = MetadataValue::try_from(extensions.join(", ")) {
                r.metadata_mut().insert(EXTENSIONS_KEY, v);
            }
        }
        r
    }

    /// The service's event stream as gRPC messages, ended early by shutdown.
    fn events(&self, rx: skillgate_runtime::EventStream) -> EventStream {
        let end = self.streams_end.clone().cancelled_owned();
        let s = tokio_stream::wrappers::ReceiverStream::new(rx)
            .map(|ev| response::<_, pb::StreamResponse>(&ev).map_err(service_status))
            .take_until(end);
        Box::pin(s)
    }

    /// The caller's context for a push-config method and the methods, from the service's one
    /// push guard, taken before the request is converted: a server without `--push` answers
    /// PushNotificationNotSupported whatever was sent, as the HTTP bindings do.
    fn push_context(
        &self,
        meta: &MetadataMap,
    ) -> Result<(RequestContext, Vec<String>, PushConfigs), Status> {
        let (ctx, ext) = self.context(meta)?;
        let push = self.service.push_configs().map_err(service_status)?;
        Ok((ctx, ext, push))
    }
}

/// Why a call's context was refused: an A2A error (written in the service's dialect) or the
/// bearer check's status, which is the same on both services.
pub(crate) enum Refused {
    /// An A2A error and its message.
    A2a(A2aError, String),
    /// The bearer check's refusal, already a status.
    Auth(Status),
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::a2a_service_server::A2aService for Adapter {
    async fn send_message(
        &self,
        req: Request<pb::SendMessageRequest>,
    ) -> Answer<pb::SendMessageResponse> {
        let (ctx, ext) = self.context(req.metadata())?;
        let r: a2a::SendMessageRequest = request(req.get_ref()).map_err(service_status)?;
        let out = self
            .service
            .send_message(r, &ctx)
            .await
            .map_err(service_status)?;
        Ok(Self::answer(response(&out).map_err(service_status)?, &ext))
    }

    type SendStreamingMessageStream = EventStream;

    async fn send_streaming_message(
        &self,
        req: Request<pb::SendMessageRequest>,
    ) -> Answer<EventStream> {
        let (ctx, ext) = self.context(req.metadata())?;
        let r: a2a::SendMessageRequest = request(req.get_ref()).map_err(service_status)?;
        let rx = self
            .service
            .send_streaming_message(r, &ctx)
            .await
            .map_err(service_status)?;
        Ok(Self::answer(self.events(rx), &ext))
    }

    async fn get_task(&self, req: Request<pb::GetTaskRequest>) -> Answer<pb::Task> {
        let (ctx, ext) = self.context(req.metadata())?;
        let r: a2a::GetTaskRequest = request(req.get_ref()).map_err(service_status)?;
        let t = self
            .service
            .get_task(&r, &ctx)
            .await
            .map_err(service_status)?;
        Ok(Self::answer(response(&t).map_err(service_status)?, &ext))
    }

    async fn list_tasks(
        &self,
        req: Request<pb::ListTasksRequest>,
    ) -> Answer<pb::ListTasksResponse> {
        let (ctx, ext) = self.context(req.metadata())?;
        let r: a2a::ListTasksRequest = request(req.get_ref()).map_err(service_status)?;
        let t = self
            .service
            .list_tasks(&r, &ctx)
            .await
            .map_err(service_status)?;
        Ok(Self::answer(response(&t).map_err(service_status)?, &ext))
    }

    async fn cancel_task(&self, req: Request<pb::CancelTaskRequest>) -> Answer<pb::Task> {
        let (ctx, ext) = self.context(req.metadata())?;
        let r: a2a::CancelTaskRequest = request(req.get_ref()).map_err(service_status)?;
        let t = self
            .service
            .cancel_task(&r, &ctx)
            .await
            .map_err(service_status)?;
        Ok(Self::answer(response(&t).map_err(service_status)?, &ext))
    }

    type SubscribeToTaskStream = EventStream;

    async fn subscribe_to_task(
        &self,
        req: Request<pb::SubscribeToTaskRequest>,
    ) -> Answer<EventStream> {
        let (ctx, ext) = self.context(req.metadata())?;
        let r: a2a::SubscribeToTaskRequest = request(req.get_ref()).map_err(service_status)?;
        let rx = self
            .service
            .subscribe_to_task(&r, &ctx)
            .await
            .map_err(service_status)?;
        Ok(Self::answer(self.events(rx), &ext))
    }

    async fn create_task_push_notification_config(
        &self,
        req: Request<pb::TaskPushNotificationConfig>,
    ) -> Answer<pb::TaskPushNotificationConfig> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let r: a2a::TaskPushNotificationConfig = request(req.get_ref()).map_err(service_status)?;
        let c = push.create(r, &ctx).await.map_err(service_status)?;
        Ok(Self::answer(response(&c).map_err(service_status)?, &ext))
    }

    async fn get_task_push_notification_config(
        &self,
        req: Request<pb::GetTaskPushNotificationConfigRequest>,
    ) -> Answer<pb::TaskPushNotificationConfig> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let r: a2a::GetTaskPushNotificationConfigRequest =
            request(req.get_ref()).map_err(service_status)?;
        let c = push.get(&r, &ctx).await.map_err(service_status)?;
        Ok(Self::answer(response(&c).map_err(service_status)?, &ext))
    }

    async fn list_task_push_notification_configs(
        &self,
        req: Request<pb::ListTaskPushNotificationConfigsRequest>,
    ) -> Answer<pb::ListTaskPushNotificationConfigsResponse> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let r: a2a::ListTaskPushNotificationConfigsRequest =
            request(req.get_ref()).map_err(service_status)?;
        let l = push.list(&r, &ctx).await.map_err(service_status)?;
        Ok(Self::answer(response(&l).map_err(service_status)?, &ext))
    }

    async fn delete_task_push_notification_config(
        &self,
        req: Request<pb::DeleteTaskPushNotificationConfigRequest>,
    ) -> Answer<pbjson_types::Empty> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let r: a2a::DeleteTaskPushNotificationConfigRequest =
            request(req.get_ref()).map_err(service_status)?;
        push.delete(&r, &ctx).await.map_err(service_status)?;
        Ok(Self::answer(pbjson_types::Empty {}, &ext))
    }

    async fn get_extended_agent_card(
        &self,
        req: Request<pb::GetExtendedAgentCardRequest>,
    ) -> Answer<pb::AgentCard> {
        let (ctx, ext) = self.context(req.metadata())?;
        let card = self.swap.extended_card(&ctx).map_err(service_status)?;
        Ok(Self::answer(from_json(card).map_err(service_status)?, &ext))
    }
}
