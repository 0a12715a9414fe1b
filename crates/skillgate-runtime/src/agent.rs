//! Agent assembly: every skill's Skill Interface Document is built and validated once, at
//! start-up, together with the describe_skill artifacts and the Agent Card.

use crate::gate::{describe_args_invalid, Rejection, SkillGate};
use crate::skill::{Handler, Skill};
use serde_json::{json, Map, Value};
use skillgate_a2a as a2a;
use skillgate_core::document::InterfaceError;
use skillgate_core::wire::{self, AdvertisedSkill, ErrorObject, ExtensionParams};
use skillgate_core::ErrorCode;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// What a plain handler knows about the message it answers.
#[derive(Debug, Clone)]
pub struct PlainContext {
    /// The context id of the conversation (client's or generated).
    pub context_id: String,
    /// The caller label, if authenticated.
    pub caller: Option<String>,
}

/// A plain handler's answer to a message that is not a schema-governed request.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainReply {
    /// Answer with a direct agent Message holding these parts.
    Message(Vec<a2a::Part>),
    /// Refuse: a task in `TASK_STATE_REJECTED` whose status message carries this text.
    Rejected(String),
    /// Create a Task and play these steps on it (status changes, artifact chunks, pauses).
    Task(Vec<PlainStep>),
}

/// One step of a plain Task.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainStep {
    /// Move to a state, with an agent status message made of these parts (none if empty).
    Status(a2a::TaskState, Vec<a2a::Part>),
    /// Add an artifact, or append parts to one with the same id.
    Artifact {
        /// The artifact (or chunk).
        artifact: a2a::Artifact,
        /// Append to the artifact with the same id.
        append: bool,
        /// This is the last chunk.
        last_chunk: bool,
    },
    /// Pause before the next step.
    Sleep(std::time::Duration),
}

pub(crate) type PlainFuture = Pin<Box<dyn Future<Output = PlainReply> + Send + 'static>>;
pub(crate) type PlainHandler = Arc<dyn Fn(a2a::Message, PlainContext) -> PlainFuture + Send + Sync>;

/// Why an agent refused to start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// A skill's Skill Interface Document is invalid.
    #[error("skill `{skill_id}`: {error}")]
    InvalidInterface {
        /// The skill.
        skill_id: String,
        /// Every finding.
        error: InterfaceError,
    },
    /// A skill has no handler.
    #[error("skill `{skill_id}`: no handler was given")]
    MissingHandler {
        /// The skill.
        skill_id: String,
    },
    /// Two skills share an id.
    #[error("skill `{skill_id}`: defined twice")]
    DuplicateSkill {
        /// The skill.
        skill_id: String,
    },
    /// A skill uses the reserved id `describe_skill`.
    #[error("skill `{skill_id}`: the id is reserved for the runtime")]
    ReservedSkillId {
        /// The skill.
        skill_id: String,
    },
    /// The agent itself lacks a required card member.
    #[error("agent: {0}")]
    InvalidAgent(String),
}

/// A skill as hosted: its validated document, gate and handler. Read-only outside the
/// runtime: pages and tools describe it through [`HostedSkill::gate`] and
/// [`HostedSkill::card_skill`].
pub struct HostedSkill {
    pub(crate) gate: SkillGate,
    pub(crate) handler: Handler,
    pub(crate) card_skill: a2a::AgentSkill,
    /// The describe_skill artifact, assembled once.
    pub(crate) describe_artifact: a2a::Artifact,
    /// Listed only in the extended card.
    pub(crate) extended: bool,
}

impl HostedSkill {
    /// The gate: the validated Skill Interface Document, its digest and version.
    pub fn gate(&self) -> &SkillGate {
        &self.gate
    }

    /// The skill as the Agent Card lists it (id, name, description, tags, extension params).
    pub fn card_skill(&self) -> &a2a::AgentSkill {
        &self.card_skill
    }
}

pub(crate) struct AgentInner {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) version: String,
    pub(crate) provider: Option<a2a::AgentProvider>,
    pub(crate) skills: BTreeMap<String, HostedSkill>,
    pub(crate) order: Vec<String>,
    pub(crate) plain: Option<PlainHandler>,
}

/// An assembled agent whose skills all have valid interfaces. Cheap to clone.
#[derive(Clone)]
pub struct Agent(pub(crate) Arc<AgentInner>);

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("name", &self.0.name)
            .field("skills", &self.0.order)
            .finish()
    }
}

/// Builder of an [`Agent`].
pub struct AgentBuilder {
    name: String,
    description: String,
    version: String,
    provider: Option<a2a::AgentProvider>,
    skills: Vec<Skill>,
    plain: Option<PlainHandler>,
}

impl Agent {
    /// The agent's name, as its card gives it.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The skill hosted under `id`, whoever may see it (check [`Agent::visible`] before
    /// showing it to a caller).
    pub fn hosted(&self, id: &str) -> Option<&HostedSkill> {
        self.0.skills.get(id)
    }

    /// Starts an agent with the card's name, description and the agent's own version.
    pub fn builder(
        name: impl Into<String>,
        description: impl Into<String>,
        version: impl Into<String>,
    ) -> AgentBuilder {
        AgentBuilder {
            name: name.into(),
            description: description.into(),
            version: version.into(),
            provider: None,
            skills: Vec::new(),
            plain: None,
        }
    }

    /// The gate of a domain skill (for embedding and benchmarks).
    pub fn gate(&self, skill_id: &str) -> Option<&SkillGate> {
        self.0.skills.get(skill_id).map(|s| &s.gate)
    }

    /// Domain skill ids, in the order they were added.
    pub fn skill_ids(&self) -> impl Iterator<Item = &str> {
        self.0.order.iter().map(String::as_str)
    }

    /// Logs (at info, message `skill`) every domain skill with its version and interface
    /// digest: the lines an operator compares with the card, when an agent starts being
    /// served and after each reload.
    pub fn log_skills(&self) {
        for id in self.skill_ids() {
            if let Some(g) = self.gate(id) {
                tracing::info!(
                    skill = id,
                    version = g.skill_version(),
                    interface_digest = g.interface_digest_str(),
                    "skill"
                );
            }
        }
    }

    /// Whether the agent serves a skill with this id (`describe_skill` or a domain skill).
    pub fn serves(&self, skill_id: &str) -> bool {
        skill_id == skillgate_core::wire::DESCRIBE_SKILL || self.0.skills.contains_key(skill_id)
    }

    /// Whether `caller` may know of skill `skill_id` (every skill but an extended-only one,
    /// which only an authenticated caller allowed to use it sees).
    pub fn visible(&self, skill_id: &str, caller: Option<&crate::Caller>) -> bool {
        match self.0.skills.get(skill_id) {
            Some(h) if h.extended => caller.is_some_and(|c| c.allows(skill_id)),
            _ => true,
        }
    }

    /// Whether this agent has an extended Agent Card: some skills are extended-only and
    /// callers authenticate (`auth`).
    pub fn has_extended_card(&self, auth: bool) -> bool {
        auth && self.0.skills.values().any(|h| h.extended)
    }

    /// The public Agent Card for an agent reachable at `base_url` (no trailing slash):
    /// extended-only skills are not listed.
    pub fn card(&self, base_url: &str, auth: bool) -> a2a::AgentCard {
        self.card_for(base_url, auth, &|h| !h.extended)
    }

    /// What `describe_skill` with `args` answers: the precomputed document artifact of the
    /// skill `args.skill_id` names, or the refusal (`input_invalid` for arguments without a
    /// string `skill_id`, `interface_unavailable` for a skill this agent does not serve).
    /// Every binding, and every embedder that serves the draft through its own A2A stack,
    /// answers from here.
    pub fn describe_skill(&self, args: &Value) -> Result<&a2a::Artifact, Rejection> {
        let Some(Value::String(id)) = args.get(wire::names::SKILL_ID) else {
            return Err(Rejection::admission(describe_args_invalid(
                "describe_skill arguments must be an object with a string skill_id",
            )));
        };
        match self.0.skills.get(id) {
            Some(h) => Ok(&h.describe_artifact),
            None => Err(Rejection::admission(unserved_interface(id))),
        }
    }

    /// The hosted skill a governed request's `skill` member names, or the
    /// `interface_unavailable` refusal for a skill this agent does not serve.
    pub fn governed(&self, skill: &str) -> Result<&HostedSkill, Rejection> {
        self.0
            .skills
            .get(skill)
            .ok_or_else(|| Rejection::admission(unserved_skill(skill)))
    }

    /// The extended Agent Card `caller` receives: the public card plus the extended-only
    /// skills the caller's token allows, with their interface digests.
    pub fn extended_card(
        &self,
        base_url: &str,
        auth: bool,
        caller: &crate::Caller,
    ) -> a2a::AgentCard {
        self.card_for(base_url, auth, &|h| {
            !h.extended || caller.allows(h.gate.skill_id())
        })
    }

    fn card_for(
        &self,
        base_url: &str,
        auth: bool,
        listed: &dyn Fn(&HostedSkill) -> bool,
    ) -> a2a::AgentCard {
        let a = &self.0;
        let base = base_url.trim_end_matches('/');
        let params = ExtensionParams {
            interface_version: wire::INTERFACE_VERSION.to_string(),
            skills: a
                .order
                .iter()
                .filter_map(|id| a.skills.get(id))
                .filter(|s| listed(s))
                .map(|s| AdvertisedSkill {
                    skill_id: s.gate.skill_id().to_string(),
                    skill_version: s.gate.skill_version().to_string(),
                    interface_digest: s.gate.document().interface_digest(),
                })
                .collect(),
        };
        let params = match serde_json::to_value(&params) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let mut skills = vec![a2a::AgentSkill {
            id: wire::DESCRIBE_SKILL.to_string(),
            name: "Describe skill".into(),
            description: "Returns the Skill Interface Document (input, output and supporting \
                          record JSON Schemas) of an advertised skill, with its interface digest."
                .into(),
            tags: vec!["schema-interface".into(), "meta".into()],
            examples: vec![
                r#"{"skill":"describe_skill","arguments":{"skill_id":"<skill id>"}}"#.into(),
            ],
            input_modes: vec![a2a::MEDIA_TYPE_JSON.into()],
            output_modes: vec![a2a::MEDIA_TYPE_JSON.into()],
            security_requirements: Vec::new(),
        }];
        skills.extend(
            a.order
                .iter()
                .filter_map(|id| a.skills.get(id))
                .filter(|s| listed(s))
                .map(|s| s.card_skill.clone()),
        );
        let mut input_modes = vec![a2a::MEDIA_TYPE_JSON.to_string()];
        if a.plain.is_some() {
            input_modes.push("text/plain".into());
        }
        let (security_schemes, security_requirements) = if auth {
            let mut m = BTreeMap::new();
            m.insert(
                crate::auth::BEARER_SCHEME_NAME.to_string(),
                a2a::SecurityScheme::bearer("Bearer token issued by the agent operator"),
            );
            (
                m,
                vec![a2a::SecurityRequirement::scheme(
                    crate::auth::BEARER_SCHEME_NAME,
                )],
            )
        } else {
            (BTreeMap::new(), Vec::new())
        };
        a2a::AgentCard {
            name: a.name.clone(),
            description: a.description.clone(),
            supported_interfaces: vec![
                a2a::AgentInterface {
                    url: format!("{base}/"),
                    protocol_binding: a2a::BINDING_JSONRPC.into(),
                    tenant: String::new(),
                    protocol_version: a2a::PROTOCOL_VERSION.into(),
                },
                a2a::AgentInterface {
                    url: base.to_string(),
                    protocol_binding: a2a::BINDING_HTTP_JSON.into(),
                    tenant: String::new(),
                    protocol_version: a2a::PROTOCOL_VERSION.into(),
                },
            ],
            provider: a.provider.clone(),
            version: a.version.clone(),
            documentation_url: None,
            capabilities: a2a::AgentCapabilities {
                streaming: Some(true),
                push_notifications: Some(false),
                extensions: vec![a2a::AgentExtension {
                    uri: wire::EXTENSION_URI.to_string(),
                    description: "Schema interfaces for skills (describe_skill)".into(),
                    required: false,
                    params: Some(params),
                }],
                extended_agent_card: Some(self.has_extended_card(auth)),
            },
            security_schemes,
            security_requirements,
            default_input_modes: input_modes,
            default_output_modes: vec![a2a::MEDIA_TYPE_JSON.to_string()],
            skills,
            signatures: Vec::new(),
            icon_url: None,
        }
    }
}

impl AgentBuilder {
    /// Adds a domain skill.
    pub fn skill(mut self, s: Skill) -> Self {
        self.skills.push(s);
        self
    }

    /// Sets the card's provider.
    pub fn provider(mut self, organization: impl Into<String>, url: impl Into<String>) -> Self {
        self.provider = Some(a2a::AgentProvider {
            organization: organization.into(),
            url: url.into(),
        });
        self
    }

    /// Optional handler for messages that are not schema-governed requests.
    pub fn plain_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(a2a::Message, PlainContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = PlainReply> + Send + 'static,
    {
        self.plain = Some(Arc::new(move |m, c| Box::pin(f(m, c))));
        self
    }

    /// Assembles and validates every Skill Interface Document with the core builder.
    pub fn build(self) -> Result<Agent, StartupError> {
        for (what, v) in [
            ("name", &self.name),
            ("description", &self.description),
            ("version", &self.version),
        ] {
            if v.trim().is_empty() {
                return Err(StartupError::InvalidAgent(format!(
                    "the Agent Card requires a non-empty {what}"
                )));
            }
        }
        let mut skills = BTreeMap::new();
        let mut order = Vec::new();
        for s in self.skills {
            let skill_id = s.id().to_owned();
            if skill_id == wire::DESCRIBE_SKILL {
                return Err(StartupError::ReservedSkillId { skill_id });
            }
            if skills.contains_key(&skill_id) {
                return Err(StartupError::DuplicateSkill { skill_id });
            }
            let handler = s
                .handler
                .clone()
                .ok_or_else(|| StartupError::MissingHandler {
                    skill_id: skill_id.clone(),
                })?;
            let doc =
                s.interface
                    .clone()
                    .build()
                    .map_err(|error| StartupError::InvalidInterface {
                        skill_id: skill_id.clone(),
                        error,
                    })?;
            let gate = SkillGate::new(doc);
            let describe_data = json!({
                wire::names::INTERFACE_DIGEST: gate.interface_digest_str(),
                wire::names::SKILL_INTERFACE: gate.document().value().clone(),
            });
            let describe_artifact = a2a::Artifact {
                artifact_id: format!("{}-{}", wire::DESCRIBE_SKILL_ARTIFACT, skill_id),
                name: wire::DESCRIBE_SKILL_ARTIFACT.to_string(),
                // Shared by every describe_skill task and serialized once.
                parts: vec![a2a::Part::shared_data(a2a::SharedJson::new(describe_data))],
                ..Default::default()
            };
            let tags = if s.tags.is_empty() {
                vec![skill_id.clone()]
            } else {
                s.tags.clone()
            };
            let card_skill = a2a::AgentSkill {
                id: skill_id.clone(),
                name: s.name.clone().unwrap_or_else(|| skill_id.clone()),
                description: s
                    .description
                    .clone()
                    .filter(|d| !d.trim().is_empty())
                    .unwrap_or_else(|| format!("Schema-governed skill {skill_id}")),
                tags,
                examples: s.examples.clone(),
                input_modes: vec![a2a::MEDIA_TYPE_JSON.into()],
                output_modes: vec![a2a::MEDIA_TYPE_JSON.into()],
                security_requirements: Vec::new(),
            };
            order.push(skill_id.clone());
            skills.insert(
                skill_id,
                HostedSkill {
                    gate,
                    handler,
                    card_skill,
                    describe_artifact,
                    extended: s.extended,
                },
            );
        }
        Ok(Agent(Arc::new(AgentInner {
            name: self.name,
            description: self.description,
            version: self.version,
            provider: self.provider,
            skills,
            order,
            plain: self.plain,
        })))
    }
}

/// `interface_unavailable` for a describe_skill of a skill that is not served (or not visible
/// to the caller: an extended-only skill is unknown to callers who may not see it).
pub(crate) fn unserved_interface(id: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::InterfaceUnavailable,
        format!("no Skill Interface Document for skill {id:?}: it is not served by this agent"),
    )
}

/// `interface_unavailable` for a governed request naming a skill that is not served.
pub(crate) fn unserved_skill(skill: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::InterfaceUnavailable,
        format!("this agent does not serve a skill {skill:?}"),
    )
}

/// Lists the gRPC interface at `url` (`host:port`, what gRPC clients dial) after the HTTP
/// ones of `card`, when the server also serves the gRPC binding.
pub(crate) fn add_grpc_interface(card: &mut a2a::AgentCard, url: Option<&str>) {
    if let Some(url) = url {
        card.supported_interfaces.push(a2a::AgentInterface {
            url: url.to_owned(),
            protocol_binding: a2a::BINDING_GRPC.into(),
            tenant: String::new(),
            protocol_version: a2a::PROTOCOL_VERSION.into(),
        });
    }
}
