//! The A2A 0.3 service `a2a.v1.A2AService`, served on the same port as `lf.a2a.v1`: each
//! method takes the call's metadata through the 1.0 adapter's checks (negotiated as 0.3, the
//! family of this service), reads the protobuf request into its 0.3 ProtoJSON type
//! (`skillgate_a2a::v03::pj`, through the generated pbjson impls), translates it to the 1.0
//! request with `skillgate_a2a::v03::translate::pj`, calls the one [`A2aService`], and writes
//! the answer back the same way. No A2A or draft rule lives here, only which service method
//! each RPC calls and how resource names map to ids (`v03::rest`).

use crate::adapter::{Adapter, Refused};
use crate::convert::{from_json, request, response};
use crate::pb03;
use crate::status::v03_status;
use futures_util::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use serde::Serialize;
use skillgate_a2a::v03::rest::{parse_task_name, ConfigName, NameError};
use skillgate_a2a::v03::translate::{history_length_from_v03, pj as t};
use skillgate_a2a::v03::{pj, ReadError, WriteError};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{self as a2a, A2aError};
use skillgate_runtime::{A2aService, PushConfigs, RequestContext, ServedCard, ServiceError};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Request, Response, Status};

/// A server-streaming answer of the 0.3 service: 0.3 StreamResponse messages.
pub type EventStream03 = Pin<Box<dyn Stream<Item = Result<pb03::StreamResponse, Status>> + Send>>;

/// The 0.3 name of the extensions metadata, under which activated extensions are echoed to
/// 0.3 callers (`docs/a2a-0.3.md` 1.13).
const EXTENSIONS_KEY_V03: &str = "x-a2a-extensions";

/// The 0.3 gRPC face of the server's [`A2aService`]: a wrapper of the 1.0 [`Adapter`], so
/// both services share one service, one bearer check and one shutdown signal.
#[derive(Clone)]
pub struct Adapter03 {
    inner: Adapter,
    public_card: Arc<ProtoCard>,
}

/// The public 0.3 card in proto form, built once per served card: the card is served as an
/// `Arc` snapshot that a reload replaces, so a snapshot other than the one it was built from
/// means the card changed. Built from the 0.3 rendering's bytes (signatures included) the
/// first time it is asked for after a change.
#[derive(Default)]
struct ProtoCard(Mutex<Option<(Arc<ServedCard>, pb03::AgentCard)>>);

impl ProtoCard {
    fn get(&self, served: Arc<ServedCard>) -> Result<pb03::AgentCard, Status> {
        let mut cached = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((of, card)) = cached.as_ref() {
            if Arc::ptr_eq(of, &served) {
                return Ok(card.clone());
            }
        }
        let Some(v03) = &served.v03 else {
            // Negotiation refuses a 0.3 call when 0.3 is not served, so this is unreachable
            // from outside; answered rather than assumed.
            return Err(v03_status(
                A2aError::UnsupportedOperation,
                "A2A 0.3 is not served here",
            ));
        };
        let value: serde_json::Value = serde_json::from_slice(&v03.bytes)
            .map_err(|e| v03_status(A2aError::InternalError, &format!("the 0.3 card: {e}")))?;
        let proto = skillgate_a2a::v03::card::to_proto_json(&value);
        let card: pb03::AgentCard = from_json(proto).map_err(svc)?;
        *cached = Some((served, card.clone()));
        Ok(card)
    }
}

type Answer<T> = Result<Response<T>, Status>;

/// A service error as the 0.3 status (code and `"<ErrorName>: <message>"`).
fn svc(e: ServiceError) -> Status {
    v03_status(e.kind, &e.message)
}

fn read_err(e: ReadError) -> Status {
    v03_status(e.a2a_error(), &e.to_string())
}

fn write_err(e: WriteError) -> Status {
    // Our own service never writes an UNSPECIFIED role or state; reported, not invented.
    v03_status(
        A2aError::InternalError,
        &format!("the answer has no A2A 0.3 form: {e}"),
    )
}

fn name_err(e: NameError) -> Status {
    v03_status(A2aError::InvalidParams, &e.to_string())
}

/// A protobuf request as its 0.3 ProtoJSON type (integral `Struct` doubles back to integers,
/// as on the 1.0 service); a message the type refuses is InvalidParams.
fn pj_of<P: Serialize, T: DeserializeOwned>(msg: &P) -> Result<T, Status> {
    request(msg).map_err(svc)
}

/// A 0.3 ProtoJSON answer as the protobuf message.
fn pb_of<T: Serialize, P: DeserializeOwned>(v: &T) -> Result<P, Status> {
    response(v).map_err(svc)
}

impl Adapter03 {
    /// The 0.3 service over the same adapter state as the 1.0 service.
    pub fn new(inner: Adapter) -> Self {
        Self {
            inner,
            public_card: Arc::default(),
        }
    }

    fn service(&self) -> &A2aService {
        self.inner.service()
    }

    /// The request context of a 0.3 call (negotiated with family 0.3), and the extensions to
    /// echo; a refusal is the 0.3 status.
    fn context(&self, md: &MetadataMap) -> Result<(RequestContext, Vec<String>), Status> {
        self.inner
            .context_checked(md, WireVersion::V0_3)
            .map_err(|e| match e {
                Refused::A2a(kind, message) => v03_status(kind, &message),
                Refused::Auth(status) => status,
            })
    }

    /// The push configs, behind the service's one push guard, checked before the request is
    /// read (as on the other bindings).
    fn push_context(
        &self,
        md: &MetadataMap,
    ) -> Result<(RequestContext, Vec<String>, PushConfigs), Status> {
        let (ctx, ext) = self.context(md)?;
        let push = self.service().push_configs().map_err(svc)?;
        Ok((ctx, ext, push))
    }

    /// A response carrying `msg`, echoing the activated extensions under the 0.3 key.
    fn answer<T>(msg: T, extensions: &[String]) -> Response<T> {
        let mut r = Response::new(msg);
        if !extensions.is_empty() {
            if let Ok(v) = MetadataValue::try_from(extensions.join(", ")) {
                r.metadata_mut().insert(EXTENSIONS_KEY_V03, v);
            }
        }
        r
    }

    /// The service's event stream as 0.3 messages, ended early by shutdown.
    fn events(&self, rx: skillgate_runtime::EventStream) -> EventStream03 {
        let end = self.inner.streams_end().cancelled_owned();
        let s = tokio_stream::wrappers::ReceiverStream::new(rx)
            .map(|ev| {
                let e = t::stream_response_to_pj(&ev).map_err(write_err)?;
                pb_of::<_, pb03::StreamResponse>(&e)
            })
            .take_until(end);
        Box::pin(s)
    }
}

#[tonic::async_trait]
impl pb03::a2a_service_server::A2aService for Adapter03 {
    async fn send_message(
        &self,
        req: Request<pb03::SendMessageRequest>,
    ) -> Answer<pb03::SendMessageResponse> {
        let (ctx, ext) = self.context(req.metadata())?;
        let p: pj::SendMessageRequest = pj_of(req.get_ref())?;
        let r = t::send_message_request_from_pj(p).map_err(read_err)?;
        let out = self.service().send_message(r, &ctx).await.map_err(svc)?;
        let out = t::send_message_response_to_pj(&out).map_err(write_err)?;
        Ok(Self::answer(pb_of(&out)?, &ext))
    }

    type SendStreamingMessageStream = EventStream03;

    async fn send_streaming_message(
        &self,
        req: Request<pb03::SendMessageRequest>,
    ) -> Answer<EventStream03> {
        let (ctx, ext) = self.context(req.metadata())?;
        let p: pj::SendMessageRequest = pj_of(req.get_ref())?;
        let r = t::send_message_request_from_pj(p).map_err(read_err)?;
        let rx = self
            .service()
            .send_streaming_message(r, &ctx)
            .await
            .map_err(svc)?;
        Ok(Self::answer(self.events(rx), &ext))
    }

    async fn get_task(&self, req: Request<pb03::GetTaskRequest>) -> Answer<pb03::Task> {
        let (ctx, ext) = self.context(req.metadata())?;
        let m = req.get_ref();
        let p = a2a::GetTaskRequest {
            id: parse_task_name(&m.name).map_err(name_err)?.to_string(),
            history_length: history_length_from_v03(Some(m.history_length)).map_err(read_err)?,
            ..Default::default()
        };
        let task = self.service().get_task(&p, &ctx).await.map_err(svc)?;
        let task = t::task_to_pj(&task).map_err(write_err)?;
        Ok(Self::answer(pb_of(&task)?, &ext))
    }

    async fn cancel_task(&self, req: Request<pb03::CancelTaskRequest>) -> Answer<pb03::Task> {
        let (ctx, ext) = self.context(req.metadata())?;
        let p = a2a::CancelTaskRequest {
            id: parse_task_name(&req.get_ref().name)
                .map_err(name_err)?
                .to_string(),
            ..Default::default()
        };
        let task = self.service().cancel_task(&p, &ctx).await.map_err(svc)?;
        let task = t::task_to_pj(&task).map_err(write_err)?;
        Ok(Self::answer(pb_of(&task)?, &ext))
    }

    type TaskSubscriptionStream = EventStream03;

    async fn task_subscription(
        &self,
        req: Request<pb03::TaskSubscriptionRequest>,
    ) -> Answer<EventStream03> {
        let (ctx, ext) = self.context(req.metadata())?;
        let p = a2a::SubscribeToTaskRequest {
            id: parse_task_name(&req.get_ref().name)
                .map_err(name_err)?
                .to_string(),
            ..Default::default()
        };
        let rx = self
            .service()
            .subscribe_to_task(&p, &ctx)
            .await
            .map_err(svc)?;
        Ok(Self::answer(self.events(rx), &ext))
    }

    async fn create_task_push_notification_config(
        &self,
        req: Request<pb03::CreateTaskPushNotificationConfigRequest>,
    ) -> Answer<pb03::TaskPushNotificationConfig> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let m = req.get_ref();
        // The task is the `parent`'s; a client that names it only in the config's `name`
        // is read by that name (the translation then checks the two agree).
        let task_id = match (&m.parent, &m.config) {
            (p, _) if !p.is_empty() => parse_task_name(p).map_err(name_err)?.to_string(),
            (_, Some(c)) => ConfigName::parse(&c.name).map_err(name_err)?.task_id,
            (_, None) => {
                return Err(name_err(NameError {
                    name: String::new(),
                    expected: "tasks/{id}",
                }))
            }
        };
        let body: serde_json::Value = pj_of(m)?;
        let c = t::create_push_config_from_pj(body, &task_id).map_err(read_err)?;
        let c = push.create(c, &ctx).await.map_err(svc)?;
        Ok(Self::answer(pb_of(&t::push_config_to_pj(&c))?, &ext))
    }

    async fn get_task_push_notification_config(
        &self,
        req: Request<pb03::GetTaskPushNotificationConfigRequest>,
    ) -> Answer<pb03::TaskPushNotificationConfig> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let p = config_ref(&req.get_ref().name)?;
        let c = push.get(&p, &ctx).await.map_err(svc)?;
        Ok(Self::answer(pb_of(&t::push_config_to_pj(&c))?, &ext))
    }

    async fn list_task_push_notification_config(
        &self,
        req: Request<pb03::ListTaskPushNotificationConfigRequest>,
    ) -> Answer<pb03::ListTaskPushNotificationConfigResponse> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let m = req.get_ref();
        let p = a2a::ListTaskPushNotificationConfigsRequest {
            task_id: parse_task_name(&m.parent).map_err(name_err)?.to_string(),
            page_size: (m.page_size != 0).then_some(m.page_size),
            page_token: m.page_token.clone(),
            ..Default::default()
        };
        let l = push.list(&p, &ctx).await.map_err(svc)?;
        let l = t::list_push_configs_response_to_pj(&l);
        Ok(Self::answer(pb_of(&l)?, &ext))
    }

    async fn get_agent_card(
        &self,
        req: Request<pb03::GetAgentCardRequest>,
    ) -> Answer<pb03::AgentCard> {
        let (ctx, ext) = self.context(req.metadata())?;
        // a2a-sdk 0.3's gRPC client asks GetAgentCard for the authenticated extended card
        // too: a caller with a token of an agent that has one gets its own, as
        // `agent/getAuthenticatedExtendedCard` answers it; everyone else the public card.
        let swap = self.inner.swap();
        if ctx.caller.is_some() {
            if let Ok(card) = swap.extended_card_in(&ctx, WireVersion::V0_3) {
                let proto = skillgate_a2a::v03::card::to_proto_json(&card);
                return Ok(Self::answer(from_json(proto).map_err(svc)?, &ext));
            }
        }
        Ok(Self::answer(self.public_card.get(swap.card())?, &ext))
    }

    async fn delete_task_push_notification_config(
        &self,
        req: Request<pb03::DeleteTaskPushNotificationConfigRequest>,
    ) -> Answer<pbjson_types::Empty> {
        let (ctx, ext, push) = self.push_context(req.metadata())?;
        let p = config_ref(&req.get_ref().name)?;
        push.delete(&p, &ctx).await.map_err(svc)?;
        Ok(Self::answer(pbjson_types::Empty {}, &ext))
    }
}

/// The 1.0 reference of a config's resource name; the name must carry a config id.
fn config_ref(name: &str) -> Result<a2a::TaskPushNotificationConfigRef, Status> {
    let n = ConfigName::parse(name).map_err(name_err)?;
    if n.config_id.is_empty() {
        return Err(name_err(NameError {
            name: name.to_string(),
            expected: "tasks/{id}/pushNotificationConfigs/{configId}",
        }));
    }
    Ok(a2a::TaskPushNotificationConfigRef {
        task_id: n.task_id,
        id: n.config_id,
        ..Default::default()
    })
}
