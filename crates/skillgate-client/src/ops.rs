//! Plain A2A 1.0 operations, outside the draft's eleven steps: the skills a card advertises,
//! the task operations (`GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`) and a plain
//! message (`SendMessage` without the schema-interface extension, for agents that do not
//! implement it). Answers are judged as strictly as the governed client judges its own.

use serde::Serialize;
use skillgate_a2a::{
    AgentCard, ListTasksRequest, ListTasksResponse, Message, Part, Role, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, Task,
};
use skillgate_core::wire::{self, ExtensionParams};
use skillgate_transport::fresh_id;

use crate::a2a::{check_task, A2aConn};
use crate::client::{Client, Observer};
use crate::error::{ClientError, Step};
use crate::http::transport_error;
use crate::steps::Target;

/// One skill of a card as `skillgate skills` lists it: the card's own entry and, when the
/// schema-interface extension advertises the skill, its version and interface digest.
#[derive(Debug, Clone, Serialize)]
pub struct SkillSummary {
    /// The skill id.
    pub id: String,
    /// The skill's display name.
    pub name: String,
    /// The advertised skill version (`None`: not schema-governed, or malformed entry).
    pub version: Option<String>,
    /// The advertised interface digest (`sha256:...`).
    pub interface_digest: Option<String>,
    /// Input media types: the skill's own, else the card's defaults.
    pub input_modes: Vec<String>,
    /// Output media types: the skill's own, else the card's defaults.
    pub output_modes: Vec<String>,
    /// The skill's tags.
    pub tags: Vec<String>,
}

/// Every skill of `card`, in the card's order, with what the extension advertises for it.
pub fn skills(card: &AgentCard) -> Vec<SkillSummary> {
    let params = card
        .extension(wire::EXTENSION_URI)
        .and_then(|e| e.params.clone())
        .unwrap_or_default();
    let checked = ExtensionParams::check(&params);
    let or_default = |own: &[String], default: &[String]| {
        if own.is_empty() {
            default.to_vec()
        } else {
            own.to_vec()
        }
    };
    card.skills
        .iter()
        .map(|s| {
            let advertised = checked
                .entry_of(&s.id)
                .ok()
                .and_then(|e| e.advertised.clone());
            SkillSummary {
                id: s.id.clone(),
                name: s.name.clone(),
                version: advertised.as_ref().map(|a| a.skill_version.clone()),
                interface_digest: advertised.map(|a| a.interface_digest.to_string()),
                input_modes: or_default(&s.input_modes, &card.default_input_modes),
                output_modes: or_default(&s.output_modes, &card.default_output_modes),
                tags: s.tags.clone(),
            }
        })
        .collect()
}

/// What a plain message carries.
#[derive(Debug, Clone)]
pub enum Content {
    /// One text part.
    Text(String),
    /// One data part (a JSON value).
    Data(serde_json::Value),
}

impl Client {
    /// Step 1 (the card and its selected interface) and a connection to that interface, for
    /// the plain operations.
    pub async fn connect(
        &self,
        url: &str,
        obs: &mut Observer<'_>,
    ) -> Result<(Target, A2aConn), ClientError> {
        let target = self.fetch_target(url, obs).await?;
        let conn = A2aConn::new(self.http().clone(), target.interface.clone());
        Ok((target, conn))
    }
}

/// The step a task operation's failure is reported at: reading a task's state.
const TASK_STEP: Step = Step::ReadResult;

impl A2aConn {
    /// `GetTask`.
    pub async fn task(&self, id: &str) -> Result<Task, ClientError> {
        self.get_task(TASK_STEP, id).await
    }

    /// `ListTasks` (one page).
    pub async fn list_tasks(
        &self,
        mut request: ListTasksRequest,
    ) -> Result<ListTasksResponse, ClientError> {
        request.tenant = self.interface().tenant.clone();
        let sent = self
            .endpoint
            .list_tasks(&request)
            .await
            .map_err(|e| transport_error(TASK_STEP, e))?;
        let result = self.result(TASK_STEP, skillgate_a2a::methods::LIST_TASKS, &sent)?;
        serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(
                TASK_STEP,
                format!("ListTasks result is not a ListTasksResponse: {e}"),
            )
        })
    }

    /// `CancelTask`: the task as the agent reports it after the request.
    pub async fn cancel(&self, id: &str) -> Result<Task, ClientError> {
        let sent = self
            .endpoint
            .cancel_task(id)
            .await
            .map_err(|e| transport_error(TASK_STEP, e))?;
        let result = self.result(TASK_STEP, skillgate_a2a::methods::CANCEL_TASK, &sent)?;
        let task: Task = serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(TASK_STEP, format!("CancelTask result is not a Task: {e}"))
        })?;
        check_task(TASK_STEP, task)
    }

    /// `SubscribeToTask`: follows the task's events (each handed to the configured event
    /// sink as it arrives) until the stream ends, and returns the task they describe.
    pub async fn subscribe(&self, id: &str) -> Result<Task, ClientError> {
        let (rpc_id, open) = self
            .endpoint
            .subscribe(id)
            .await
            .map_err(|e| transport_error(TASK_STEP, e))?;
        self.follow(
            TASK_STEP,
            skillgate_a2a::methods::SUBSCRIBE_TO_TASK,
            rpc_id,
            open,
        )
        .await
    }

    /// A plain blocking `SendMessage` without the schema-interface extension: the agent's
    /// answer, a task or a message.
    pub async fn send_plain(&self, content: Content) -> Result<SendMessageResponse, ClientError> {
        let step = Step::Delegate;
        let message = Message {
            message_id: fresh_id("msg"),
            role: Role::User,
            parts: vec![match content {
                Content::Text(t) => Part::text(t),
                Content::Data(v) => Part::data(v),
            }],
            ..Message::default()
        };
        let request = SendMessageRequest {
            tenant: self.interface().tenant.clone(),
            message,
            configuration: Some(SendMessageConfiguration {
                return_immediately: false,
                ..SendMessageConfiguration::default()
            }),
            metadata: None,
        };
        let sent = self
            .endpoint
            .send_message(&request, false)
            .await
            .map_err(|e| transport_error(step, e))?;
        let result = self.result(step, skillgate_a2a::methods::SEND_MESSAGE, &sent)?;
        let response: SendMessageResponse = serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(
                step,
                format!("SendMessage result is not a SendMessageResponse: {e}"),
            )
        })?;
        match response {
            SendMessageResponse::Task(t) => check_task(step, t).map(SendMessageResponse::Task),
            m @ SendMessageResponse::Message(_) => Ok(m),
        }
    }
}
