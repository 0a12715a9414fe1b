//! The A2A 1.0 side of the client: one selected interface (JSON-RPC or HTTP+JSON), blocking
//! `SendMessage`, `SendStreamingMessage` over server-sent events with artifact assembly, and
//! `GetTask` polling. Every body is parsed with the strict I-JSON parser.

use std::time::{Duration, Instant};

use serde_json::Value;
use skillgate_a2a::{
    JsonRpcId, JsonRpcResponse, Message, Part, RestErrorBody, Role, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse, Task, TaskState,
};
use skillgate_core::jcs;
use skillgate_core::wire::SkillRequest;
use skillgate_transport::{fresh_id, Binding, Endpoint, Interface, Reply, Sent, SseEvent};
use url::Url;

use crate::error::{ClientError, Step};
use crate::http::{transport_error, Http};
use crate::steps::bounded_text;

/// Whether to use the blocking or the streaming send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Blocking `SendMessage` (polls `GetTask` if the agent returns early).
    #[default]
    Sync,
    /// `SendStreamingMessage` over server-sent events.
    Stream,
}

/// A connection to one selected interface: the shared transport's [`Endpoint`], with every
/// answer interpreted strictly.
#[derive(Debug, Clone)]
pub struct A2aConn {
    pub(crate) http: Http,
    pub(crate) endpoint: Endpoint,
}

fn not_a2a(step: Step, body: &Reply, what: &str) -> ClientError {
    let ct = if body.content_type.is_empty() {
        "no content type".to_owned()
    } else {
        body.content_type.clone()
    };
    ClientError::protocol(
        step,
        format!(
            "not an A2A agent: {what} (HTTP {}, {ct})",
            body.status.as_u16()
        ),
    )
}

/// Parses a body strictly as I-JSON, naming the failure as a protocol error.
pub(crate) fn parse_body(step: Step, body: &Reply, what: &str) -> Result<Value, ClientError> {
    jcs::parse_strict(&body.bytes).map_err(|e| {
        not_a2a(
            step,
            body,
            &format!(
                "{what} is not valid I-JSON ({}: {} at {}:{})",
                e.kind.as_str(),
                e.message,
                e.line,
                e.column
            ),
        )
    })
}

impl A2aConn {
    /// A connection over `http` to `interface`.
    pub fn new(http: Http, interface: Interface) -> Self {
        let endpoint = Endpoint::new(http.transport().clone(), interface);
        Self { http, endpoint }
    }

    /// The selected interface.
    pub fn interface(&self) -> &Interface {
        self.endpoint.interface()
    }

    /// The `SendMessageRequest` carrying `message`; a blocking send asks the agent to wait for
    /// the task to finish (`returnImmediately: false`).
    fn request(&self, message: Message, stream: bool) -> SendMessageRequest {
        SendMessageRequest {
            tenant: self.interface().tenant.clone(),
            message,
            configuration: if stream {
                None
            } else {
                Some(SendMessageConfiguration {
                    return_immediately: false,
                    ..SendMessageConfiguration::default()
                })
            },
            metadata: None,
        }
    }

    /// The user message of one schema-governed request: its one Data Part, with the extension
    /// named in `extensions`.
    pub(crate) fn governed_message(skill_request: &SkillRequest) -> Result<Message, ClientError> {
        let data = serde_json::to_value(skill_request)
            .map_err(|e| ClientError::usage(format!("cannot encode the skill request: {e}")))?;
        Ok(Message {
            message_id: fresh_id("msg"),
            role: Role::User,
            parts: vec![Part::data(data)],
            extensions: vec![skillgate_core::wire::EXTENSION_URI.to_owned()],
            ..Message::default()
        })
    }

    /// Sends one schema-governed request and returns the task as the agent reported it, at a
    /// terminal or interrupted state (polling `GetTask` if a blocking send returned early).
    pub(crate) async fn send(
        &self,
        step: Step,
        skill_request: &SkillRequest,
        mode: Mode,
    ) -> Result<Task, ClientError> {
        let message = Self::governed_message(skill_request)?;
        match self.exchange(step, message, mode, true, &mut |_| {}).await? {
            Answer::Task(t) => Ok(t),
            Answer::Message(_) => Err(ClientError::protocol(
                step,
                "the agent answered with a Message, not a Task; schema-governed skills run as tasks",
            )),
        }
    }

    /// Sends any message and follows its task to a terminal or interrupted state: a blocking
    /// send polls `GetTask` if the agent returned early, a streaming one hands every event to
    /// `on_event` as it arrives. `activate` sends `A2A-Extensions` with the schema-interface
    /// URI. An agent may answer with a Message instead of a task (plain A2A agents do).
    pub async fn exchange(
        &self,
        step: Step,
        message: Message,
        mode: Mode,
        activate: bool,
        on_event: &mut (dyn FnMut(&StreamResponse) + Send),
    ) -> Result<Answer, ClientError> {
        let answer = match mode {
            Mode::Sync => self.send_blocking(step, message, activate).await?,
            Mode::Stream => {
                self.send_streaming(step, message, activate, on_event)
                    .await?
            }
        };
        match answer {
            Answer::Task(task)
                if !(task.status.state.is_terminal() || task.status.state.is_interrupted()) =>
            {
                Ok(Answer::Task(self.poll(step, task).await?))
            }
            other => Ok(other),
        }
    }

    async fn send_blocking(
        &self,
        step: Step,
        message: Message,
        activate: bool,
    ) -> Result<Answer, ClientError> {
        let req = self.request(message, false);
        let sent = self
            .endpoint
            .send_message(&req, activate)
            .await
            .map_err(|e| transport_error(step, e))?;
        let result = self.result(step, "SendMessage", &sent)?;
        let response: SendMessageResponse = serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(
                step,
                format!("SendMessage result is not a SendMessageResponse: {e}"),
            )
        })?;
        match response {
            SendMessageResponse::Task(t) => Ok(Answer::Task(check_task(step, t)?)),
            SendMessageResponse::Message(m) => Ok(Answer::Message(m)),
        }
    }

    /// The result of a unary exchange, judged strictly for the binding.
    pub(crate) fn result(
        &self,
        step: Step,
        method: &str,
        sent: &Sent,
    ) -> Result<Value, ClientError> {
        match &sent.request_id {
            Some(id) => self.rpc_result(step, method, id, &sent.reply),
            None => self.rest_result(step, &sent.reply),
        }
    }

    fn rpc_result(
        &self,
        step: Step,
        method: &str,
        id: &JsonRpcId,
        body: &Reply,
    ) -> Result<Value, ClientError> {
        if !body.status.is_success() {
            return Err(http_failure(step, body, &self.interface().url));
        }
        let value = parse_body(step, body, "the JSON-RPC response")?;
        let response =
            JsonRpcResponse::from_value(value).map_err(|e| not_a2a(step, body, &e.to_string()))?;
        if &response.id != id {
            return Err(ClientError::protocol(
                step,
                "JSON-RPC response id does not match the request id",
            ));
        }
        response.outcome.map_err(|e| {
            let reason = e
                .error_info()
                .map(|i| format!(" [{}]", bounded_text(&i.reason)))
                .unwrap_or_default();
            ClientError::protocol(
                step,
                format!(
                    "{method} failed: JSON-RPC error {}: {}{reason}",
                    e.code,
                    bounded_text(&e.message)
                ),
            )
        })
    }

    fn rest_result(&self, step: Step, body: &Reply) -> Result<Value, ClientError> {
        let json_ct = matches!(
            body.content_type.as_str(),
            skillgate_a2a::MEDIA_TYPE_JSON | skillgate_a2a::MEDIA_TYPE_A2A_JSON
        );
        if !body.status.is_success() {
            if json_ct {
                if let Ok(v) = jcs::parse_strict(&body.bytes) {
                    if let Ok(err) = serde_json::from_value::<RestErrorBody>(v) {
                        // A gRPC refusal reaches here in the HTTP+JSON shape (the transport
                        // maps it); its own status name is what the agent sent.
                        let origin = match self.interface().binding {
                            Binding::Grpc => "gRPC".to_owned(),
                            _ => format!("HTTP {}", err.error.code),
                        };
                        return Err(ClientError::protocol(
                            step,
                            format!(
                                "{origin} {}: {}",
                                bounded_text(&err.error.status),
                                bounded_text(&err.error.message)
                            ),
                        ));
                    }
                }
            }
            return Err(http_failure(step, body, &self.interface().url));
        }
        parse_body(step, body, "the HTTP+JSON response")
    }

    /// `GetTask`: the task `id` as the agent has it now.
    pub(crate) async fn get_task(&self, step: Step, id: &str) -> Result<Task, ClientError> {
        let sent = self
            .endpoint
            .get_task(id)
            .await
            .map_err(|e| transport_error(step, e))?;
        let result = self.result(step, skillgate_a2a::methods::GET_TASK, &sent)?;
        let task: Task = serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(step, format!("GetTask result is not a Task: {e}"))
        })?;
        if task.id != id {
            return Err(ClientError::protocol(step, "GetTask returned another task"));
        }
        check_task(step, task)
    }

    /// `GetExtendedAgentCard`: the card this (authenticated) caller receives, as JSON.
    pub(crate) async fn get_extended_card(&self, step: Step) -> Result<Value, ClientError> {
        let sent = self
            .endpoint
            .get_extended_card()
            .await
            .map_err(|e| transport_error(step, e))?;
        self.result(step, skillgate_a2a::methods::GET_EXTENDED_AGENT_CARD, &sent)
    }

    /// `CancelTask`: asks the agent to cancel task `id`; the task as the agent answered.
    pub async fn cancel_task(&self, step: Step, id: &str) -> Result<Task, ClientError> {
        let sent = self
            .endpoint
            .cancel_task(id)
            .await
            .map_err(|e| transport_error(step, e))?;
        let result = self.result(step, skillgate_a2a::methods::CANCEL_TASK, &sent)?;
        let task: Task = serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(step, format!("CancelTask result is not a Task: {e}"))
        })?;
        check_task(step, task)
    }

    async fn poll(&self, step: Step, mut task: Task) -> Result<Task, ClientError> {
        let deadline = Instant::now() + self.http.config().transport.timeout;
        let mut wait = Duration::from_millis(50);
        while !(task.status.state.is_terminal() || task.status.state.is_interrupted()) {
            if Instant::now() + wait > deadline {
                // Giving up: the task must not run on for nobody (best effort; the answer to
                // the cancel does not change the error).
                let canceled = self.cancel_task(step, &task.id).await.is_ok();
                return Err(ClientError::Transport {
                    step,
                    message: format!(
                        "task {} still {} after {:?}; {}",
                        task.id,
                        task.status.state,
                        self.http.config().transport.timeout,
                        if canceled {
                            "the client canceled it"
                        } else {
                            "canceling it failed"
                        }
                    ),
                    status: None,
                });
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(1));
            task = self.get_task(step, &task.id.clone()).await?;
        }
        Ok(task)
    }

    async fn send_streaming(
        &self,
        step: Step,
        message: Message,
        activate: bool,
        on_event: &mut (dyn FnMut(&StreamResponse) + Send),
    ) -> Result<Answer, ClientError> {
        let req = self.request(message, true);
        let (id, open) = self
            .endpoint
            .stream_message(&req, activate)
            .await
            .map_err(|e| transport_error(step, e))?;
        self.follow_answer(step, "SendStreamingMessage", id, open, on_event)
            .await
    }

    /// Reads an opened event stream to its end, handing each event to the configured sink
    /// and assembling the task from them; a plain body instead of a stream is the agent's
    /// refusal (or a protocol error).
    pub(crate) async fn follow(
        &self,
        step: Step,
        method: &str,
        id: Option<JsonRpcId>,
        open: skillgate_transport::Streaming,
    ) -> Result<Task, ClientError> {
        match self
            .follow_answer(step, method, id, open, &mut |_| {})
            .await?
        {
            Answer::Task(t) => Ok(t),
            Answer::Message(_) => Err(ClientError::protocol(
                step,
                "the agent streamed a Message, not a Task; schema-governed skills run as tasks",
            )),
        }
    }

    /// Reads an event stream to its end: each event goes to `on_event` (and the configured
    /// event sink) as it arrives; a stream that starts with a Message is a message answer. A
    /// stream that ends or breaks while its task is still running is resumed once with
    /// `SubscribeToTask`; a second drop is reported.
    async fn follow_answer(
        &self,
        step: Step,
        method: &str,
        id: Option<JsonRpcId>,
        open: skillgate_transport::Streaming,
        on_event: &mut (dyn FnMut(&StreamResponse) + Send),
    ) -> Result<Answer, ClientError> {
        let mut assembler = TaskAssembler::default();
        let (mut id, mut open) = (id, open);
        let mut resumed = false;
        loop {
            open = self.check_stream(step, method, id.as_ref(), open).await?;
            let dropped = loop {
                let events = match open.events().await {
                    Ok(Some(events)) => events,
                    Ok(None) => break None,
                    Err(e) => break Some(e),
                };
                for event in events {
                    let stream_response = self.decode_event(step, id.as_ref(), &event)?;
                    on_event(&stream_response);
                    if let Some(sink) = &self.http.config().events {
                        sink.emit(&stream_response);
                    }
                    if let (StreamResponse::Message(m), true) =
                        (&stream_response, assembler.is_empty())
                    {
                        // A message-only stream: the message is the whole answer.
                        return Ok(Answer::Message(m.clone()));
                    }
                    assembler.apply(step, stream_response)?;
                }
            };
            match (assembler.running(), resumed) {
                (Some(task_id), false) => {
                    resumed = true;
                    (id, open) = self
                        .endpoint
                        .subscribe(&task_id)
                        .await
                        .map_err(|e| transport_error(step, e))?;
                }
                _ => {
                    if let Some(e) = dropped {
                        return Err(transport_error(step, e));
                    }
                    return Ok(Answer::Task(assembler.finish(step)?));
                }
            }
        }
    }

    /// An open stream must be a successful event stream; a plain body carries the agent's
    /// error.
    async fn check_stream(
        &self,
        step: Step,
        method: &str,
        id: Option<&JsonRpcId>,
        open: skillgate_transport::Streaming,
    ) -> Result<skillgate_transport::Streaming, ClientError> {
        let url = skillgate_transport::redact(&open.url);
        if !open.is_event_stream() {
            // An error detected before streaming starts comes back as a plain JSON body.
            let body = open.rest().await.map_err(|e| transport_error(step, e))?;
            return Err(self.not_a_stream(step, method, id, &url, &body));
        }
        if !open.status.is_success() {
            return Err(ClientError::transport(
                step,
                format!("HTTP {} from {url}", open.status.as_u16()),
            ));
        }
        Ok(open)
    }

    /// The error for a streaming request answered with a plain body: the agent's own error if
    /// the body carries one, else "expected an event stream".
    pub(crate) fn not_a_stream(
        &self,
        step: Step,
        method: &str,
        id: Option<&JsonRpcId>,
        url: &str,
        body: &Reply,
    ) -> ClientError {
        let value = match id {
            Some(_) => {
                if !body.status.is_success() {
                    return ClientError::transport(
                        step,
                        format!("HTTP {} from {url}", body.status.as_u16()),
                    );
                }
                let v = match parse_body(step, body, "the streaming response") {
                    Ok(v) => v,
                    Err(e) => return e,
                };
                match JsonRpcResponse::from_value(v) {
                    Err(e) => return not_a2a(step, body, &e.to_string()),
                    Ok(JsonRpcResponse {
                        outcome: Err(e), ..
                    }) => {
                        return ClientError::protocol(
                            step,
                            format!(
                                "{method} failed: JSON-RPC error {}: {}",
                                e.code,
                                bounded_text(&e.message)
                            ),
                        )
                    }
                    Ok(JsonRpcResponse { outcome: Ok(v), .. }) => v,
                }
            }
            None => match self.rest_result(step, body) {
                Ok(v) => v,
                Err(e) => return e,
            },
        };
        ClientError::protocol(
            step,
            format!(
                "expected an event stream, got {} ({})",
                if body.content_type.is_empty() {
                    "no content type"
                } else {
                    &body.content_type
                },
                if value.is_object() {
                    "a JSON object"
                } else {
                    "JSON"
                }
            ),
        )
    }

    pub(crate) fn decode_event(
        &self,
        step: Step,
        id: Option<&JsonRpcId>,
        event: &SseEvent,
    ) -> Result<StreamResponse, ClientError> {
        let value = jcs::parse_strict(event.data.as_bytes()).map_err(|e| {
            ClientError::protocol(
                step,
                format!("stream event is not valid I-JSON: {}", e.message),
            )
        })?;
        let result = match id {
            Some(id) => {
                let r = JsonRpcResponse::from_value(value)
                    .map_err(|e| ClientError::protocol(step, format!("stream event: {e}")))?;
                if &r.id != id {
                    return Err(ClientError::protocol(
                        step,
                        "stream event id does not match the request id",
                    ));
                }
                r.outcome.map_err(|e| {
                    ClientError::protocol(
                        step,
                        format!(
                            "stream error: JSON-RPC error {}: {}",
                            e.code,
                            bounded_text(&e.message)
                        ),
                    )
                })?
            }
            None => {
                if event.event == "error" || value.get("error").is_some() {
                    return Err(ClientError::protocol(
                        step,
                        format!("stream error event: {}", bounded_text(&event.data)),
                    ));
                }
                value
            }
        };
        if event.event == "error" {
            return Err(ClientError::protocol(step, "stream error event"));
        }
        serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(step, format!("stream event is not a StreamResponse: {e}"))
        })
    }
}

/// A non-2xx answer as an error carrying its status, in one line: the status, the endpoint,
/// the peer's own message when its body is a recognisable error object, and a hint for
/// 401/403 that names no way of passing a token (an embedder has its own).
fn http_failure(step: Step, body: &Reply, url: &Url) -> ClientError {
    let code = body.status.as_u16();
    let mut s = format!("HTTP {code} from {}", skillgate_transport::redact(url));
    if let Ok(v) = jcs::parse_strict(&body.bytes) {
        let m = v["error"]["message"]
            .as_str()
            .or_else(|| v["message"].as_str());
        if let Some(m) = m {
            let m: String = bounded_text(m).chars().take(200).collect();
            s.push_str(&format!(": {m}"));
        }
    }
    match code {
        401 => s.push_str(BEARER_HINT),
        403 => s.push_str(" (the token is not accepted for this request)"),
        _ => {}
    }
    ClientError::Transport {
        step,
        message: s,
        status: Some(code),
    }
}

/// How the message of a 401 answer ends (see [`ClientError::http_status`]): a front end
/// that knows how its user passes a token may replace it with its own words.
pub const BEARER_HINT: &str = " (send a bearer token)";

pub(crate) fn check_task(step: Step, task: Task) -> Result<Task, ClientError> {
    if task.id.is_empty() {
        return Err(ClientError::protocol(
            step,
            "the agent returned a Task without an id",
        ));
    }
    if task.status.state == TaskState::Unspecified {
        return Err(ClientError::Protocol {
            step,
            message: "the task has no state".into(),
            task_id: Some(task.id.clone()),
            state: None,
        });
    }
    Ok(task)
}

/// What an agent answered a message with.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A task, at a terminal or interrupted state.
    Task(Task),
    /// A direct message (no task was created).
    Message(Message),
}

/// Builds the final Task from stream events; tolerates streams that do not start with a Task.
#[derive(Debug, Default)]
pub(crate) struct TaskAssembler {
    task: Option<Task>,
}

impl TaskAssembler {
    /// Whether no task event has been applied yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.task.is_none()
    }

    /// The id of the task being assembled while it is neither finished nor interrupted.
    pub(crate) fn running(&self) -> Option<String> {
        self.task
            .as_ref()
            .filter(|t| !(t.status.state.is_terminal() || t.status.state.is_interrupted()))
            .map(|t| t.id.clone())
    }

    fn task_mut(
        &mut self,
        step: Step,
        task_id: &str,
        context_id: &str,
    ) -> Result<&mut Task, ClientError> {
        let task = self.task.get_or_insert_with(|| Task {
            id: task_id.to_owned(),
            context_id: context_id.to_owned(),
            ..Task::default()
        });
        if task.id != task_id {
            return Err(ClientError::protocol(
                step,
                format!("stream mixes tasks {:?} and {task_id:?}", task.id),
            ));
        }
        Ok(task)
    }

    /// Applies one event.
    pub(crate) fn apply(&mut self, step: Step, event: StreamResponse) -> Result<(), ClientError> {
        match event {
            StreamResponse::Task(t) => {
                if let Some(prev) = &self.task {
                    if prev.id != t.id {
                        return Err(ClientError::protocol(step, "stream mixes tasks"));
                    }
                }
                let mut t = t;
                if t.artifacts.is_empty() {
                    if let Some(prev) = self.task.take() {
                        t.artifacts = prev.artifacts;
                    }
                }
                self.task = Some(t);
            }
            StreamResponse::Message(_) => {
                return Err(ClientError::protocol(
                    step,
                    "the agent streamed a Message, not a Task; schema-governed skills run as tasks",
                ))
            }
            StreamResponse::StatusUpdate(u) => {
                let task = self.task_mut(step, &u.task_id, &u.context_id)?;
                task.status = u.status;
            }
            StreamResponse::ArtifactUpdate(u) => {
                let task = self.task_mut(step, &u.task_id, &u.context_id)?;
                task.apply_artifact_update(u.artifact, u.append);
            }
        }
        Ok(())
    }

    /// The assembled task; the stream must have reached a terminal or interrupted state.
    pub(crate) fn finish(self, step: Step) -> Result<Task, ClientError> {
        let Some(task) = self.task else {
            return Err(ClientError::protocol(
                step,
                "the stream ended without any task event",
            ));
        };
        let task = check_task(step, task)?;
        if !(task.status.state.is_terminal() || task.status.state.is_interrupted()) {
            return Err(ClientError::Protocol {
                step,
                message: format!("the stream ended while the task was {}", task.status.state),
                task_id: Some(task.id.clone()),
                state: Some(task.status.state),
            });
        }
        Ok(task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assembler_tolerates_a_stream_without_initial_task_and_appends_parts() {
        let mut a = TaskAssembler::default();
        let ev = |v: serde_json::Value| serde_json::from_value::<StreamResponse>(v).unwrap();
        a.apply(
            Step::Delegate,
            ev(
                serde_json::json!({"artifactUpdate": {"taskId": "t", "contextId": "c",
            "artifact": {"artifactId": "a1", "name": "s", "parts": [{"data": 1}]}}}),
            ),
        )
        .unwrap();
        a.apply(Step::Delegate, ev(serde_json::json!({"artifactUpdate": {"taskId": "t", "contextId": "c", "append": true,
            "artifact": {"artifactId": "a1", "parts": [{"data": 2}]}}}))).unwrap();
        a.apply(
            Step::Delegate,
            ev(
                serde_json::json!({"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_COMPLETED"}}}),
            ),
        )
        .unwrap();
        let t = a.finish(Step::Delegate).unwrap();
        assert_eq!(t.id, "t");
        assert_eq!(t.artifacts[0].parts.len(), 2);
        let mut b = TaskAssembler::default();
        b.apply(
            Step::Delegate,
            ev(
                serde_json::json!({"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING"}}}),
            ),
        )
        .unwrap();
        assert!(b
            .apply(
                Step::Delegate,
                ev(
                    serde_json::json!({"statusUpdate": {"taskId": "u", "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING"}}})
                )
            )
            .is_err());
        assert!(matches!(
            b.finish(Step::Delegate),
            Err(ClientError::Protocol { .. })
        ));
    }
}
