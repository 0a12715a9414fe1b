//! [`Client`]: runs the eleven steps in order, consults the interface cache, and reports each
//! step to an observer as it passes, so a person (or a log) sees exactly what was checked.

use serde_json::Value;
use skillgate_core::document::ValidatedDocument;
use skillgate_core::wire::ResponseMode;
use skillgate_core::ErrorCode;

use crate::a2a::{A2aConn, Mode};
use crate::cache::{Cache, CacheHit, CacheKey};
use crate::error::{ClientError, Step};
use crate::http::{ClientConfig, Http};
use crate::steps::{self, Selection, SkillResult, Target};

/// Receives `(step, summary)` each time a step passes. `Send`, so that a call can run as a
/// task of a multi-threaded runtime (the inspector's web handlers).
pub type Observer<'a> = dyn FnMut(Step, &str) + Send + 'a;

/// Where the validated document of a [`Resolved`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterfaceSource {
    /// A describe_skill exchange, with its task id.
    Described {
        /// The describe_skill task id.
        task_id: String,
    },
    /// The cache (bound to the current card's identity, version and digest).
    Cache(CacheHit),
}

/// A target whose skill interface passed steps 1 to 6: ready to validate input and delegate.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The card and selected interface.
    pub target: Target,
    /// The advertised skill, version and digest.
    pub selection: Selection,
    /// The validated Skill Interface Document.
    pub document: ValidatedDocument,
    /// Where the document came from.
    pub source: InterfaceSource,
    /// When the cache held this skill under another digest: what the new document changed
    /// against it (the verdict of `skillgate interface diff`). Informative only.
    pub update: Option<skillgate_evolve::Report>,
}

/// The validated client.
#[derive(Debug)]
pub struct Client {
    http: Http,
    // Shared by the views `with_events` makes, so they see one cache.
    cache: std::sync::Arc<Cache>,
}

impl Client {
    /// A client with these bounds; the cache is on disk when `config.cache_dir` is set.
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        let cache = std::sync::Arc::new(Cache::new(config.cache_dir.clone()));
        Ok(Self {
            http: Http::new(config)?,
            cache,
        })
    }

    /// A view of this client whose calls also hand every stream event to `sink` as it
    /// arrives (in `Mode::Stream`, the first event names the task, so a caller that may have
    /// to cancel learns the id before the call returns). Shares the connections and the
    /// interface cache; only the sink differs.
    pub fn with_events(&self, sink: crate::http::EventSink) -> Client {
        Client {
            http: self.http.with_events(sink),
            cache: std::sync::Arc::clone(&self.cache),
        }
    }

    /// The bounded HTTP client.
    pub fn http(&self) -> &Http {
        &self.http
    }

    /// Step 1 with its report.
    pub async fn fetch_target(
        &self,
        url: &str,
        obs: &mut Observer<'_>,
    ) -> Result<Target, ClientError> {
        let target = steps::step1_fetch_card(&self.http, url).await?;
        obs(
            Step::FetchCard,
            &format!(
                "card fetched: {:?} from {}; interface {} {} (A2A {}){}",
                target.card.name,
                target.card_url,
                target.interface.binding.as_str(),
                target.interface.url,
                target.interface.version,
                if target.interface.tenant.is_empty() {
                    String::new()
                } else {
                    format!(" (tenant {})", target.interface.tenant)
                }
            ),
        );
        Ok(target)
    }

    /// Steps 2 to 6 against an already fetched card (describe_skill unless cached).
    pub async fn resolve_target(
        &self,
        target: Target,
        skill_id: &str,
        obs: &mut Observer<'_>,
    ) -> Result<Resolved, ClientError> {
        let selection = steps::step2_select_skill(&target.card, skill_id)?;
        obs(
            Step::SelectSkill,
            &format!(
                "skill advertised: {} version {} interface digest {}",
                selection.skill_id, selection.skill_version, selection.interface_digest
            ),
        );
        let key = CacheKey::new(&target, &selection);
        if let Some((document, hit)) = self.cache.get(&key) {
            let how = match hit {
                CacheHit::Memory => "validated earlier in this process",
                CacheHit::Disk => "read from the cache directory and validated again",
            };
            obs(
                Step::DescribeSkill,
                &format!("interface from cache ({how}); describe_skill not repeated"),
            );
            if document.interface_digest() != selection.interface_digest {
                // Unreachable through the key, kept so a cache bug can never cross digests.
                return Err(ClientError::local(
                    Step::CheckDigests,
                    ErrorCode::InterfaceInvalid,
                    "cached document does not match the advertised digest",
                ));
            }
            obs(
                Step::CheckDigests,
                &format!(
                    "cache entry bound to the advertised digest {}",
                    selection.interface_digest
                ),
            );
            obs(
                Step::ValidateDocument,
                &format!(
                    "document valid: interface_version 1.0, {} {}",
                    document.skill_id(),
                    document.skill_version()
                ),
            );
            let n = steps::step6_verify_schema_digests(&document)?;
            obs(
                Step::VerifySchemaDigests,
                &format!("{n} embedded schema digests verified"),
            );
            return Ok(Resolved {
                target,
                selection,
                document,
                source: InterfaceSource::Cache(hit),
                update: None,
            });
        }
        let conn = A2aConn::new(self.http.clone(), target.interface.clone());
        let described = steps::step3_describe_skill(&conn, &selection).await?;
        obs(
            Step::DescribeSkill,
            &format!("describe_skill completed (task {})", described.task_id),
        );
        let d = steps::step4_check_digests(&selection, &described.response)?;
        obs(
            Step::CheckDigests,
            &format!("digests agree: advertised = returned = computed = {d}"),
        );
        let document =
            steps::step5_validate_document(&described.response.skill_interface, &selection)?;
        // A cached document of the same skill under another digest means the skill was
        // redeployed: say what that did to its callers rather than only that the digest moved.
        // Reported only: the new document is accepted or refused exactly as without a cache.
        let update = self
            .cache
            .previous(&key)
            .map(|old| skillgate_evolve::diff(&old, &document));
        obs(
            Step::ValidateDocument,
            &format!(
                "document valid against the trusted skill-interface-v1 schema: interface_version 1.0, {} {}{}",
                document.skill_id(),
                document.skill_version(),
                match &update {
                    Some(r) => format!(
                        "; replaces the cached {} ({}): {}",
                        r.old_version,
                        r.old_digest,
                        r.verdict()
                    ),
                    None => String::new(),
                }
            ),
        );
        let n = steps::step6_verify_schema_digests(&document)?;
        obs(
            Step::VerifySchemaDigests,
            &format!("{n} embedded schema digests verified"),
        );
        // Best effort: an unwritable cache directory only costs a describe_skill next time.
        let _ = self.cache.put(&key, &document);
        Ok(Resolved {
            target,
            selection,
            document,
            source: InterfaceSource::Described {
                task_id: described.task_id,
            },
            update,
        })
    }

    /// Steps 1 to 6: a validated interface for `skill_id` at `url` (base URL or card URL).
    pub async fn resolve(
        &self,
        url: &str,
        skill_id: &str,
        obs: &mut Observer<'_>,
    ) -> Result<Resolved, ClientError> {
        let target = self.fetch_target(url, obs).await?;
        self.resolve_target(target, skill_id, obs).await
    }

    /// Steps 7 to 11 against a resolved interface.
    pub async fn invoke(
        &self,
        resolved: &Resolved,
        arguments: &Value,
        mode: Mode,
        obs: &mut Observer<'_>,
    ) -> Result<SkillResult, ClientError> {
        let doc = &resolved.document;
        steps::step7_validate_input(doc, arguments)?;
        obs(
            Step::ValidateInput,
            &format!(
                "input valid against {} {}",
                doc.document().input_schema.schema_uri,
                doc.document().input_schema.version
            ),
        );
        if mode == Mode::Stream {
            if !doc
                .document()
                .interaction
                .response_modes
                .contains(&ResponseMode::Stream)
            {
                return Err(ClientError::usage(format!(
                    "skill {} does not offer the stream response mode",
                    doc.skill_id()
                )));
            }
            if resolved.target.card.capabilities.streaming != Some(true) {
                return Err(ClientError::usage(
                    "the agent's card does not declare streaming",
                ));
            }
        }
        let conn = A2aConn::new(self.http.clone(), resolved.target.interface.clone());
        let task = steps::step8_delegate(&conn, doc, arguments, mode).await?;
        obs(
            Step::Delegate,
            &format!(
                "delegated with skill_version {} and interface_digest {} ({}): task {}",
                doc.skill_version(),
                doc.interface_digest(),
                match mode {
                    Mode::Sync => "blocking SendMessage",
                    Mode::Stream => "SendStreamingMessage",
                },
                task.id
            ),
        );
        let raw = steps::step9_read_result(doc, &task)?;
        let kinds: Vec<&str> = raw.records.iter().map(|r| r.kind.as_str()).collect();
        obs(
            Step::ReadResult,
            &format!(
                "task {} {}: primary artifact {:?}, {} supporting record{}{}",
                raw.task_id,
                raw.state,
                raw.output_artifact_id,
                raw.records.len(),
                if raw.records.len() == 1 { "" } else { "s" },
                if kinds.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", kinds.join(", "))
                }
            ),
        );
        steps::step10_validate_output(doc, &raw)?;
        obs(
            Step::ValidateOutput,
            &format!(
                "output valid against {} {}; {} record{} valid",
                doc.document().output_schema.schema_uri,
                doc.document().output_schema.version,
                raw.records.len(),
                if raw.records.len() == 1 { "" } else { "s" }
            ),
        );
        let result = steps::step11_result(
            resolved.target.card_url.to_string(),
            resolved.target.interface.url.to_string(),
            doc,
            raw,
        );
        obs(Step::Result, "typed result ready");
        Ok(result)
    }

    /// All eleven steps: resolve, validate input, delegate, validate output.
    pub async fn call(
        &self,
        url: &str,
        skill_id: &str,
        arguments: &Value,
        mode: Mode,
        obs: &mut Observer<'_>,
    ) -> Result<SkillResult, ClientError> {
        let resolved = self.resolve(url, skill_id, obs).await?;
        self.invoke(&resolved, arguments, mode, obs).await
    }
}
