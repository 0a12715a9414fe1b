//! The draft's eleven client steps, one function each, so every check can be tested (and
//! fail) on its own. [`crate::Client`] runs them in order and reports each as it passes.

use serde::Serialize;
use serde_json::Value;
use skillgate_a2a::{AgentCard, Artifact, SingleDataError, Task, TaskState};
use skillgate_core::advertisement::ParamsFinding;
use skillgate_core::describe;
use skillgate_core::document::{Expectations, FindingKind, ValidatedDocument};
use skillgate_core::wire::{
    self, DescribeSkillArguments, DescribeSkillResponse, ErrorObject, ErrorObjectError,
    ExtensionParams, SchemaReference, SkillRequest,
};
use skillgate_core::{digest, jcs, Digest, ErrorCode};
use url::Url;

use crate::a2a::{parse_body, A2aConn, Mode};
use crate::error::{ClientError, Step};
use crate::http::Http;
use skillgate_transport::{Interface, NoInterface};

/// A fetched Agent Card with the interface this client will use.
#[derive(Debug, Clone)]
pub struct Target {
    /// The URL the card was fetched from (part of the target identity).
    pub card_url: Url,
    /// The parsed card.
    pub card: AgentCard,
    /// The first interface whose binding this client speaks.
    pub interface: Interface,
}

impl Target {
    /// The target identity the cache is keyed by: card URL, interface URL and tenant.
    pub fn identity(&self) -> (String, String, String) {
        (
            self.card_url.to_string(),
            self.interface.url.to_string(),
            self.interface.tenant.clone(),
        )
    }
}

/// The skill, version and digest selected from the card's advertisement (step 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The domain skill id.
    pub skill_id: String,
    /// The advertised skill version.
    pub skill_version: String,
    /// The advertised interface digest.
    pub interface_digest: Digest,
}

/// What describe_skill returned (step 3).
#[derive(Debug, Clone)]
pub(crate) struct Described {
    /// The describe_skill task id.
    pub task_id: String,
    /// The response object, document kept as raw JSON so it is hashed exactly as received.
    pub response: DescribeSkillResponse,
}

/// One supporting record of a result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// The record's task-scoped artifact id.
    pub artifact_id: String,
    /// Its declared kind (the artifact name).
    pub kind: String,
    /// The record data.
    pub data: Value,
}

/// A completed task's primary output and records, not yet validated (step 9).
#[derive(Debug, Clone)]
pub(crate) struct RawResult {
    /// The remote task id.
    pub task_id: String,
    /// The remote context id.
    pub context_id: String,
    /// Always `TASK_STATE_COMPLETED`.
    pub state: TaskState,
    /// The artifact id of the primary result.
    pub output_artifact_id: String,
    /// Data of the primary result Artifact.
    pub output: Value,
    /// The supporting records, in artifact order.
    pub records: Vec<Record>,
}

/// The typed, validated result of one skill call (step 11).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillResult {
    /// The remote task id.
    pub task_id: String,
    /// The remote context id.
    pub context_id: String,
    /// The terminal state (`TASK_STATE_COMPLETED`).
    #[serde(serialize_with = "ser_state")]
    pub state: TaskState,
    /// The skill id.
    pub skill_id: String,
    /// The skill version.
    pub skill_version: String,
    /// The interface digest the request carried.
    pub interface_digest: Digest,
    /// The URL the card came from.
    pub card_url: String,
    /// The endpoint the task ran on.
    pub interface_url: String,
    /// The validated output.
    pub output: Value,
    /// The validated supporting records.
    pub records: Vec<Record>,
}

fn ser_state<S: serde::Serializer>(s: &TaskState, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s.as_str())
}

/// Resolves a base URL or card URL to the card URL (the transport's
/// [`skillgate_transport::card_url`]) and applies the scheme policy.
pub fn card_url(http: &Http, url: &str) -> Result<Url, ClientError> {
    let card = skillgate_transport::card_url(url).map_err(|e| ClientError::usage(e.to_string()))?;
    skillgate_transport::check_scheme(&card, http.config().transport.allow_http)
        .map_err(|e| ClientError::usage(e.to_string()))?;
    Ok(card)
}

/// Step 1: retrieves the Agent Card (bounded, strictly parsed; an A2A 1.0 card, or a 0.3 card
/// read into the 1.0 model with 0.3 interfaces) and selects the interface to use (the
/// transport's [`Interface::select_version`]).
pub(crate) async fn step1_fetch_card(http: &Http, url: &str) -> Result<Target, ClientError> {
    let card_url = card_url(http, url)?;
    let body = http.get_card(&card_url).await?;
    if !body.status.is_success() {
        return Err(ClientError::transport(
            Step::FetchCard,
            format!("HTTP {} fetching {card_url}", body.status.as_u16()),
        ));
    }
    let value = parse_body(Step::FetchCard, &body, "the Agent Card")?;
    let card = read_card(&value).map_err(|e| {
        ClientError::protocol(Step::FetchCard, format!("not an A2A Agent Card: {e}"))
    })?;
    let interface = select_interface(http, &card)?;
    let card = match extended_card(http, &card, &interface).await? {
        Some(extended) => extended,
        None => card,
    };
    Ok(Target {
        card_url,
        card,
        interface,
    })
}

/// The extended card, when the public one says there is one and the client authenticates:
/// it lists the skills this caller may use that the public card does not. A failure to get it
/// keeps the public card (the skills it lists are still callable); a card that fails
/// `trusted_keys` is refused like the public one.
async fn extended_card(
    http: &Http,
    card: &AgentCard,
    interface: &Interface,
) -> Result<Option<AgentCard>, ClientError> {
    if card.capabilities.extended_agent_card != Some(true)
        || http.config().transport.token.is_none()
    {
        return Ok(None);
    }
    let conn = A2aConn::new(http.clone(), interface.clone());
    let Ok(value) = conn.get_extended_card(Step::FetchCard).await else {
        return Ok(None);
    };
    if let Some(keys) = &http.config().transport.trusted_keys {
        skillgate_sign::verify(&value, keys).map_err(|e| {
            ClientError::transport(
                Step::FetchCard,
                format!("the extended Agent Card is not trusted: {e}"),
            )
        })?;
    }
    Ok(read_card(&value).ok())
}

/// A card of either version in the 1.0 model (`skillgate_a2a::v03::card::read`: a 0.3 card's
/// `url`, `preferredTransport` and `additionalInterfaces` become interfaces at version 0.3).
pub(crate) fn read_card(
    value: &Value,
) -> Result<AgentCard, skillgate_a2a::v03::card::CardReadError> {
    skillgate_a2a::v03::card::read(value).map(|(card, _)| card)
}

/// The interface-selection half of step 1 (the transport's [`Interface::select_version`]:
/// the card's first JSON-RPC or HTTP+JSON interface at A2A 1.x, else its 0.3 JSON-RPC one, as
/// `--a2a-version` allows, scheme policy applied).
pub(crate) fn select_interface(http: &Http, card: &AgentCard) -> Result<Interface, ClientError> {
    let c = http.config();
    let t = &c.transport;
    Interface::select_version(card, c.binding, t.a2a_version, t.allow_http).map_err(|e| match e {
        NoInterface::Refused { .. } => ClientError::transport(Step::FetchCard, e.to_string()),
        other => ClientError::protocol(Step::FetchCard, other.to_string()),
    })
}

fn not_advertised(message: impl Into<String>) -> ClientError {
    ClientError::local(Step::SelectSkill, ErrorCode::SkillNotAdvertised, message)
}

/// Step 2: the card must carry the schema-interface extension, list `describe_skill` and the
/// selected skill; returns the advertised version and digest. Nothing is sent.
pub(crate) fn step2_select_skill(
    card: &AgentCard,
    skill_id: &str,
) -> Result<Selection, ClientError> {
    let Some(ext) = card.extension(wire::EXTENSION_URI) else {
        return Err(not_advertised(format!(
            "agent {:?} does not provide schema interfaces (its card has no {} extension)",
            card.name,
            wire::EXTENSION_URI
        )));
    };
    let params = ext.params.clone().unwrap_or_default();
    let checked = ExtensionParams::check(&params);
    // Only the params-level rules a client needs and the selected skill's own entry are
    // judged: a malformed entry of another skill does not make this one unusable.
    for f in &checked.findings {
        match f {
            ParamsFinding::UndefinedMember { .. } => {}
            ParamsFinding::WrongInterfaceVersion { found } => {
                return Err(not_advertised(format!(
                    "the card advertises interface version {found}; this client implements {:?}",
                    wire::INTERFACE_VERSION
                )))
            }
            other => {
                return Err(not_advertised(format!(
                    "the card's schema-interface advertisement is malformed: {other}"
                )))
            }
        }
    }
    let in_card = |id: &str| card.skills.iter().any(|s| s.id == id);
    if !in_card(wire::DESCRIBE_SKILL) {
        return Err(not_advertised("the card does not advertise describe_skill"));
    }
    if skill_id == wire::DESCRIBE_SKILL {
        return Err(not_advertised("describe_skill is not a domain skill"));
    }
    let entry = match checked.entry_of(skill_id) {
        Ok(e) => e,
        Err(0) => {
            let known: Vec<&str> = checked.entries.iter().filter_map(|e| e.skill_id).collect();
            return Err(not_advertised(format!(
                "skill {skill_id:?} is not in the card's schema-interface advertisement;{} \
                 advertised: {}",
                crate::suggest::did_you_mean(skill_id, known.iter().copied()),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        }
        Err(_) => {
            return Err(not_advertised(format!(
                "skill {skill_id:?} is advertised more than once; no version can be selected"
            )))
        }
    };
    let Some(entry) = &entry.advertised else {
        let why: Vec<String> = entry
            .findings
            .iter()
            .filter(|f| f.is_fatal())
            .map(ToString::to_string)
            .collect();
        return Err(not_advertised(format!(
            "the card's schema-interface advertisement of skill {skill_id:?} is malformed: {}",
            why.join("; ")
        )));
    };
    if !in_card(skill_id) {
        return Err(not_advertised(format!(
            "skill {skill_id:?} is in the extension but not in the card's skills"
        )));
    }
    Ok(Selection {
        skill_id: skill_id.to_owned(),
        skill_version: entry.skill_version.clone(),
        interface_digest: entry.interface_digest,
    })
}

/// Step 3: calls describe_skill for the selected skill and extracts its response object.
pub(crate) async fn step3_describe_skill(
    conn: &A2aConn,
    selection: &Selection,
) -> Result<Described, ClientError> {
    let step = Step::DescribeSkill;
    let arguments = serde_json::to_value(DescribeSkillArguments {
        skill_id: selection.skill_id.clone(),
    })
    .map_err(|e| ClientError::usage(e.to_string()))?;
    let request = SkillRequest {
        skill: wire::DESCRIBE_SKILL.to_owned(),
        skill_version: None,
        interface_digest: None,
        arguments,
    };
    let task = conn.send(step, &request, Mode::Sync).await?;
    if task.status.state != TaskState::Completed {
        return Err(remote_failure(step, &task));
    }
    let invalid = |m: String| ClientError::Local {
        step,
        code: ErrorCode::InterfaceInvalid,
        message: m,
        details: Vec::new(),
        task_id: Some(task.id.clone()),
    };
    // Artifacts beside the result are not needed to use it, so they are not refused here
    // (the conformance checker reports them).
    let picked = describe::result_artifact(&task.artifacts, |a| a.name.as_str())
        .map_err(|e| invalid(format!("describe_skill task {} {e}", task.id)))?;
    let data = single_data(picked.artifact)
        .map_err(|m| invalid(format!("describe_skill artifact: {m}")))?;
    let read = describe::read_result(data).map_err(|e| {
        invalid(format!(
            "describe_skill result is not {{interface_digest, skill_interface}}: {e}"
        ))
    })?;
    Ok(Described {
        task_id: task.id,
        response: read.response,
    })
}

fn single_data(artifact: &Artifact) -> Result<&Value, String> {
    skillgate_a2a::single_data(&artifact.parts).map_err(|e| match e {
        SingleDataError::NotData(member) => {
            format!("its only part is a {member} part, not a Data Part")
        }
        SingleDataError::PartCount(n) => {
            format!("{n} parts; exactly one Data Part is required")
        }
    })
}

/// Step 4: advertised == returned == computed interface digest (core's three-way check);
/// returns the digest.
pub(crate) fn step4_check_digests(
    selection: &Selection,
    response: &DescribeSkillResponse,
) -> Result<Digest, ClientError> {
    describe::check_digests(selection.interface_digest, response).map_err(|e| {
        ClientError::local(
            Step::CheckDigests,
            ErrorCode::InterfaceInvalid,
            e.to_string(),
        )
    })
}

/// Step 5: validates the document with the core (trusted local Skill Interface Schema,
/// `interface_version`, skill id, skill version, digest). A failure that consists only of
/// embedded-schema digest mismatches is reported as step 6.
pub(crate) fn step5_validate_document(
    document: &Value,
    selection: &Selection,
) -> Result<ValidatedDocument, ClientError> {
    let expect = Expectations {
        skill_id: Some(selection.skill_id.clone()),
        skill_version: Some(selection.skill_version.clone()),
        interface_digest: Some(selection.interface_digest),
    };
    // Core reads integral doubles (`5000.0` from protobuf peers) as integers itself.
    ValidatedDocument::from_value(document, &expect).map_err(|e| {
        let step = if e.only(FindingKind::EmbeddedDigestMismatch) {
            Step::VerifySchemaDigests
        } else {
            Step::ValidateDocument
        };
        ClientError::local(step, ErrorCode::InterfaceInvalid, e.to_string())
    })
}

/// Every Schema Reference of a document with its JSON Pointer.
pub(crate) fn schema_references(doc: &ValidatedDocument) -> Vec<(String, &SchemaReference)> {
    let d = doc.document();
    let mut out = vec![
        ("/input_schema".to_owned(), &d.input_schema),
        ("/output_schema".to_owned(), &d.output_schema),
    ];
    for (kind, r) in &d.supporting_record_schemas {
        out.push((format!("/supporting_record_schemas/{kind}"), r));
    }
    out
}

/// Step 6: every embedded schema hashes to its Schema Reference digest (the core checked it
/// in step 5; this re-check keeps the step explicit and independent). Returns the count.
pub(crate) fn step6_verify_schema_digests(doc: &ValidatedDocument) -> Result<usize, ClientError> {
    let refs = schema_references(doc);
    for (path, r) in &refs {
        let actual = digest(&r.resolution.schema);
        if actual != r.digest {
            return Err(ClientError::local(
                Step::VerifySchemaDigests,
                ErrorCode::InterfaceInvalid,
                format!(
                    "{path}: embedded schema hashes to {actual}, its reference declares {}",
                    r.digest
                ),
            ));
        }
    }
    Ok(refs.len())
}

/// Step 7: the outgoing arguments must satisfy `input_schema` (and `max_input_bytes`, when
/// declared); a failure is local and nothing is sent.
pub(crate) fn step7_validate_input(
    doc: &ValidatedDocument,
    arguments: &Value,
) -> Result<(), ClientError> {
    let step = Step::ValidateInput;
    if let Some(max) = doc.document().constraints.max_input_bytes {
        let size = jcs::to_canonical_vec(arguments).len() as u64;
        if size > max {
            return Err(ClientError::local(
                step,
                ErrorCode::ResourceLimitExceeded,
                format!("arguments are {size} canonical bytes; the skill declares max_input_bytes {max}"),
            ));
        }
    }
    doc.input_validator()
        .validate(arguments)
        .map_err(|details| {
            // The user typed these arguments: a plainer sentence may show their values.
            let schema = &doc.document().input_schema.resolution.schema;
            let plain: Vec<String> = details
                .iter()
                .filter_map(|d| crate::suggest::explain(schema, arguments, d))
                .collect();
            (details, plain)
        })
        .map_err(|(details, plain)| ClientError::Local {
            step,
            code: ErrorCode::InputInvalid,
            message: format!(
                "arguments do not satisfy {} {} ({} problem{}){}; nothing was sent",
                doc.document().input_schema.schema_uri,
                doc.document().input_schema.version,
                details.len(),
                if details.len() == 1 { "" } else { "s" },
                if plain.is_empty() {
                    String::new()
                } else {
                    format!(": {}", plain.join("; "))
                }
            ),
            details,
            task_id: None,
        })
}

/// The skill request of step 8, carrying the selected version and digest.
pub(crate) fn skill_request(doc: &ValidatedDocument, arguments: &Value) -> SkillRequest {
    SkillRequest {
        skill: doc.skill_id().to_owned(),
        skill_version: Some(doc.skill_version().to_owned()),
        interface_digest: Some(doc.interface_digest().to_string()),
        arguments: arguments.clone(),
    }
}

/// Step 8: delegates the task (blocking or streaming) and returns it at its final state.
pub(crate) async fn step8_delegate(
    conn: &A2aConn,
    doc: &ValidatedDocument,
    arguments: &Value,
    mode: Mode,
) -> Result<Task, ClientError> {
    conn.send(Step::Delegate, &skill_request(doc, arguments), mode)
        .await
}

/// The ErrorObject of a task's final status message: exactly one Data Part.
pub(crate) fn error_object(task: &Task) -> Result<ErrorObject, NoErrorObject> {
    let Some(message) = &task.status.message else {
        return Err(NoErrorObject::NoMessage);
    };
    let data = skillgate_a2a::single_data(&message.parts).map_err(|e| match e {
        SingleDataError::PartCount(n) => NoErrorObject::PartCount(n),
        SingleDataError::NotData(_) => NoErrorObject::NotData,
    })?;
    ErrorObject::from_status_data(data).map_err(NoErrorObject::Malformed)
}

/// Why a task's final status carries no usable ErrorObject (see [`error_object`]).
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoErrorObject {
    /// The status has no message at all.
    #[error("the final status has no message")]
    NoMessage,
    /// The message has this many parts, not one.
    #[error("the final status message has {0} parts; exactly one Data Part is required")]
    PartCount(usize),
    /// The message's one part is text, a file or another non-data part.
    #[error("the final status message's part is not a Data Part")]
    NotData,
    /// The Data Part is not an ErrorObject as the draft defines it; the core's reason.
    #[error("the error object is malformed: {0}")]
    Malformed(ErrorObjectError),
}

/// Longest agent-supplied message kept in an error (characters), so a hostile agent cannot
/// flood a terminal or a log through it.
pub(crate) const MAX_REMOTE_MESSAGE: usize = 1000;
/// Most agent-supplied details kept in an error (the core's own limit for local details).
pub(crate) const MAX_REMOTE_DETAILS: usize = skillgate_core::instance::MAX_DETAILS;

/// An agent-supplied string made safe to print: control characters replaced, length bounded.
pub fn bounded_text(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(MAX_REMOTE_MESSAGE)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > MAX_REMOTE_MESSAGE {
        out.push('…');
    }
    out
}

/// A non-COMPLETED task as an error: a remote draft error when its status carries an error
/// object, otherwise a protocol failure that keeps the task id and state.
pub(crate) fn remote_failure(step: Step, task: &Task) -> ClientError {
    let state = task.status.state;
    if state.is_interrupted() {
        return ClientError::Protocol {
            step,
            message: format!(
                "task {} is {state}; interface version 1.0 defines no schema for follow-up input, so this client does not continue it",
                task.id
            ),
            task_id: Some(task.id.clone()),
            state: Some(state),
        };
    }
    match error_object(task) {
        Ok(e) if matches!(state, TaskState::Failed | TaskState::Rejected) => ClientError::Remote {
            step,
            code: e.code,
            message: bounded_text(&e.message.unwrap_or_default()),
            details: e.details.into_iter().take(MAX_REMOTE_DETAILS).collect(),
            task_id: task.id.clone(),
            state,
        },
        Ok(_) => ClientError::Protocol {
            step,
            message: format!("task {} ended {state} with an error object", task.id),
            task_id: Some(task.id.clone()),
            state: Some(state),
        },
        Err(why) => ClientError::Protocol {
            step,
            message: format!(
                "task {} ended {state} without a usable error object: {why}",
                task.id
            ),
            task_id: Some(task.id.clone()),
            state: Some(state),
        },
    }
}

/// Step 9: reads the task's status, its primary Artifact (named the skill id) and its
/// supporting records (named their declared kinds). A non-COMPLETED task becomes a remote error.
pub(crate) fn step9_read_result(
    doc: &ValidatedDocument,
    task: &Task,
) -> Result<RawResult, ClientError> {
    let step = Step::ReadResult;
    if task.status.state != TaskState::Completed {
        return Err(remote_failure(step, task));
    }
    let invalid = |m: String| ClientError::Local {
        step,
        code: ErrorCode::OutputInvalid,
        message: format!("{m}; the output of remote task {} is unusable", task.id),
        details: Vec::new(),
        task_id: Some(task.id.clone()),
    };
    let mut output: Option<(String, Value)> = None;
    let mut records = Vec::new();
    for artifact in &task.artifacts {
        let data = single_data(artifact).map_err(|m| {
            invalid(format!(
                "artifact {:?} ({:?}): {m}",
                artifact.artifact_id, artifact.name
            ))
        })?;
        if artifact.name == doc.skill_id() {
            if output.is_some() {
                return Err(invalid(format!(
                    "more than one artifact is named {:?}",
                    doc.skill_id()
                )));
            }
            output = Some((artifact.artifact_id.clone(), data.clone()));
        } else if doc.record_validator(&artifact.name).is_some() {
            records.push(Record {
                artifact_id: artifact.artifact_id.clone(),
                kind: artifact.name.clone(),
                data: data.clone(),
            });
        } else {
            return Err(invalid(format!(
                "artifact {:?} is named {:?}, which is neither the skill id nor a declared record kind",
                artifact.artifact_id, artifact.name
            )));
        }
    }
    let Some((output_artifact_id, output)) = output else {
        return Err(invalid(format!(
            "the task completed without an artifact named {:?}",
            doc.skill_id()
        )));
    };
    Ok(RawResult {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        state: task.status.state,
        output_artifact_id,
        output,
        records,
    })
}

/// Step 10: validates the output against `output_schema` and every record against its
/// declared schema. A failure is local `output_invalid`: the remote COMPLETED state stands,
/// but the output is unusable.
pub(crate) fn step10_validate_output(
    doc: &ValidatedDocument,
    raw: &RawResult,
) -> Result<(), ClientError> {
    let step = Step::ValidateOutput;
    let fail = |what: String, details| ClientError::Local {
        step,
        code: ErrorCode::OutputInvalid,
        message: format!(
            "remote task {} reported {} but {what}; the output is unusable",
            raw.task_id, raw.state
        ),
        details,
        task_id: Some(raw.task_id.clone()),
    };
    if let Err(details) = doc.output_validator().validate(&raw.output) {
        return Err(fail(
            format!(
                "its output does not satisfy {} {}",
                doc.document().output_schema.schema_uri,
                doc.document().output_schema.version
            ),
            details,
        ));
    }
    for r in &raw.records {
        let Some(validator) = doc.record_validator(&r.kind) else {
            return Err(fail(
                format!(
                    "record {:?} has undeclared kind {:?}",
                    r.artifact_id, r.kind
                ),
                Vec::new(),
            ));
        };
        if let Err(details) = validator.validate(&r.data) {
            return Err(fail(
                format!(
                    "supporting record {:?} ({}) does not satisfy its schema",
                    r.artifact_id, r.kind
                ),
                details,
            ));
        }
    }
    Ok(())
}

/// Step 11: the typed result handed to the caller; `card_url` and `interface_url` say where
/// the card came from and where the task ran.
pub(crate) fn step11_result(
    card_url: String,
    interface_url: String,
    doc: &ValidatedDocument,
    raw: RawResult,
) -> SkillResult {
    SkillResult {
        task_id: raw.task_id,
        context_id: raw.context_id,
        state: raw.state,
        skill_id: doc.skill_id().to_owned(),
        skill_version: doc.skill_version().to_owned(),
        interface_digest: doc.interface_digest(),
        card_url,
        interface_url,
        output: raw.output,
        records: raw.records,
    }
}

/// The user message of step 8 for `doc` and `arguments` (one Data Part naming the skill, its
/// version and interface digest), for a binding that hands it to an A2A service in process
/// instead of sending it (the MCP listener of `skillgate serve`). The arguments are not
/// validated here: the service's gate does that.
pub fn governed_message(
    doc: &ValidatedDocument,
    arguments: &Value,
) -> Result<skillgate_a2a::Message, ClientError> {
    A2aConn::governed_message(&skill_request(doc, arguments))
}

/// Steps 9 to 11 over a task that reached its final state without a wire in between (an
/// in-process binding): a COMPLETED task's output and records read and validated against
/// `doc` into the typed result, any other task into the remote error its status carries.
/// The same reading a call over the wire gets, so both report alike.
pub fn task_result(
    doc: &ValidatedDocument,
    task: &Task,
    card_url: &str,
    interface_url: &str,
) -> Result<SkillResult, ClientError> {
    let raw = step9_read_result(doc, task)?;
    step10_validate_output(doc, &raw)?;
    Ok(step11_result(
        card_url.to_owned(),
        interface_url.to_owned(),
        doc,
        raw,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

    fn card(entries: Value) -> AgentCard {
        let card = serde_json::json!({
            "name": "t",
            "description": "t",
            "version": "1.0",
            "supportedInterfaces": [{"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"extensions": [{"uri": wire::EXTENSION_URI, "params": {"interface_version": "1.0", "skills": entries}}]},
            "defaultInputModes": ["application/json"],
            "defaultOutputModes": ["application/json"],
            "skills": [
                {"id": "describe_skill", "name": "d", "description": "d", "tags": []},
                {"id": "ping", "name": "p", "description": "p", "tags": []},
                {"id": "other", "name": "o", "description": "o", "tags": []}
            ]
        });
        serde_json::from_value(card).expect("test card")
    }

    #[test]
    fn a_bad_entry_of_another_skill_does_not_fail_the_selected_one() {
        let c = card(serde_json::json!([
            {"skill_id": "other", "skill_version": "01", "interface_digest": "sha256:nothex"},
            {"skill_id": "ping", "skill_version": "1.0", "interface_digest": GOOD}
        ]));
        let sel = step2_select_skill(&c, "ping").expect("ping's own entry is well formed");
        assert_eq!(sel.skill_version, "1.0");
        assert_eq!(sel.interface_digest.to_string(), GOOD);
    }

    #[test]
    fn a_bad_entry_of_the_selected_skill_fails_it() {
        let c = card(serde_json::json!([
            {"skill_id": "ping", "skill_version": "1.0.0", "interface_digest": GOOD},
            {"skill_id": "other", "skill_version": "1.0", "interface_digest": GOOD}
        ]));
        let e = step2_select_skill(&c, "ping").expect_err("ping's entry is malformed");
        assert!(e.to_string().contains("skill_version"), "{e}");
        assert!(step2_select_skill(&c, "other").is_ok());
    }
}
