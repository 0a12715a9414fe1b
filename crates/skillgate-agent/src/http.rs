//! The http handler: the validated `arguments` are POSTed as `application/json` to the
//! configured URL (https, or http to a loopback host; no proxy, no redirects), and the
//! response body is the reply of [`crate::protocol`] (2xx success, 4xx/5xx refusal), read up
//! to [`MAX_RESPONSE_BYTES`] within the skill's time limit.

use crate::config::HttpConfig;
use crate::protocol::{excerpt, interpret};
use serde_json::Value;
use skillgate_core::ErrorCode;
use skillgate_runtime::{SkillContext, SkillError, SkillOutput};
use std::sync::Arc;
use std::time::Duration;

/// Largest response body read; a longer one fails the invocation (`execution_failed`).
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;
/// Response bytes quoted in one log line.
const LOG_EXCERPT_BYTES: usize = 512;

/// Why building the HTTP client failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the HTTP client: {0}")]
pub struct ClientError(String);

/// A configured http skill; cheap to clone.
#[derive(Clone)]
pub struct HttpHandler {
    skill_id: Arc<str>,
    url: Arc<url::Url>,
    client: reqwest::Client,
    timeout: Duration,
}

/// What one request produced before its reply is read.
enum Got {
    Body(bool, Vec<u8>),
    Oversize,
    Transport(reqwest::Error),
}

impl HttpHandler {
    /// The handler of `skill_id` posting to `config.url` within `timeout`.
    pub fn new(
        skill_id: &str,
        config: &HttpConfig,
        timeout: Duration,
    ) -> Result<Self, ClientError> {
        // The endpoint is fixed by configuration: no redirect (the platform base) or proxy
        // may send the call anywhere else.
        let client = skillgate_platform::http::client_builder("http-skill")
            .no_proxy()
            .build()
            .map_err(|e| ClientError(e.to_string()))?;
        Ok(Self {
            skill_id: skill_id.into(),
            url: Arc::new(config.url.clone()),
            client,
            timeout,
        })
    }

    fn failed(&self, ctx: &SkillContext, why: &str) -> SkillError {
        tracing::warn!(
            skill = %self.skill_id,
            task_id = ctx.task_id(),
            url = %self.url,
            "http skill: {why}"
        );
        SkillError::execution_failed(format!(
            "skill {} failed; the agent's log has the reason",
            self.skill_id
        ))
    }

    async fn post(&self, body: Vec<u8>) -> Got {
        let sent = self
            .client
            .post(self.url.as_str())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await;
        let mut resp = match sent {
            Ok(r) => r,
            Err(e) => return Got::Transport(e),
        };
        let ok = resp.status().is_success();
        let mut buf = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    if buf.len() + c.len() > MAX_RESPONSE_BYTES {
                        return Got::Oversize;
                    }
                    buf.extend_from_slice(&c);
                }
                Ok(None) => return Got::Body(ok, buf),
                Err(e) => return Got::Transport(e),
            }
        }
    }

    /// One invocation (see the module docs).
    pub async fn call(&self, args: Value, ctx: SkillContext) -> Result<SkillOutput, SkillError> {
        let body =
            serde_json::to_vec(&args).map_err(|e| SkillError::execution_failed(e.to_string()))?;
        match tokio::time::timeout(self.timeout, self.post(body)).await {
            Err(_) => Err(SkillError::new(
                ErrorCode::ResourceLimitExceeded,
                format!(
                    "skill {} did not answer within {} ms",
                    self.skill_id,
                    self.timeout.as_millis()
                ),
            )),
            Ok(Got::Transport(e)) => Err(self.failed(&ctx, &format!("request failed: {e}"))),
            Ok(Got::Oversize) => {
                Err(self.failed(&ctx, &format!("response over {MAX_RESPONSE_BYTES} bytes")))
            }
            Ok(Got::Body(ok, body)) => interpret(ok, &body, &ctx).unwrap_or_else(|bad| {
                Err(self.failed(
                    &ctx,
                    &format!("{bad}; body: \"{}\"", excerpt(&body, LOG_EXCERPT_BYTES)),
                ))
            }),
        }
    }
}
