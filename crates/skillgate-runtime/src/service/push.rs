//! The push notification config methods (`Create/Get/List/DeleteTaskPushNotificationConfig`)
//! and the config a `SendMessage` may carry. Every binding calls these; the rules (who may see
//! a config, what a valid one is, the guard) live only here.

use super::{new_id, store_error, A2aService, RequestContext, ServiceError};
use crate::push::Pusher;
use crate::task::TaskHandle;
use skillgate_a2a::{
    A2aError, ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    TaskPushNotificationConfig, TaskPushNotificationConfigRef,
};
use skillgate_store::{PushRegistration, StoreError};
use std::sync::Arc;

/// Longest webhook URL, in bytes.
const MAX_URL: usize = 2048;
/// Longest config id, in bytes.
const MAX_ID: usize = 128;
/// Longest `token`, in bytes.
const MAX_TOKEN: usize = 1024;
/// Longest `authentication.scheme`, in bytes.
const MAX_SCHEME: usize = 64;
/// Longest `authentication.credentials`, in bytes.
const MAX_CREDENTIALS: usize = 4096;
/// Default and largest page of `ListTaskPushNotificationConfigs`.
const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 100;

fn invalid(message: impl Into<String>) -> ServiceError {
    ServiceError::new(A2aError::InvalidParams, message)
}

/// Whether `s` fits in an HTTP header value (visible ASCII and spaces, no CR/LF), so a
/// config can never inject a header into a delivery.
fn header_safe(s: &str) -> bool {
    s.bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b))
}

/// Whether `s` is an HTTP token (an auth scheme such as `Bearer`).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Checks the parts of a config that need no network: sizes, id, token, authentication.
fn check_shape(c: &TaskPushNotificationConfig) -> Result<(), ServiceError> {
    if c.url.is_empty() {
        return Err(invalid(
            "url is required: the webhook the server POSTs events to",
        ));
    }
    if c.url.len() > MAX_URL {
        return Err(invalid(format!("url is longer than {MAX_URL} bytes")));
    }
    if c.id.len() > MAX_ID || !c.id.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return Err(invalid(format!(
            "id must be at most {MAX_ID} visible ASCII characters (or absent: the server makes one)"
        )));
    }
    if c.token.len() > MAX_TOKEN || !header_safe(&c.token) {
        return Err(invalid(format!(
            "token must be at most {MAX_TOKEN} bytes of visible ASCII (it is sent as a header)"
        )));
    }
    if let Some(a) = &c.authentication {
        if a.scheme.is_empty() {
            return Err(invalid(
                "authentication.scheme is required (e.g. \"Bearer\"): it is sent as Authorization: <scheme> <credentials>",
            ));
        }
        if a.scheme.len() > MAX_SCHEME || !is_token(&a.scheme) {
            return Err(invalid(format!(
                "authentication.scheme must be an HTTP auth scheme name of at most {MAX_SCHEME} characters, e.g. \"Bearer\""
            )));
        }
        if a.credentials.len() > MAX_CREDENTIALS || !header_safe(&a.credentials) {
            return Err(invalid(format!(
                "authentication.credentials must be at most {MAX_CREDENTIALS} bytes of visible ASCII"
            )));
        }
    }
    Ok(())
}

fn config_not_found(task_id: &str, id: &str) -> ServiceError {
    ServiceError::new(
        A2aError::TaskNotFound,
        format!("push notification config {id:?} of task {task_id} not found"),
    )
}

fn require_task_id(task_id: &str) -> Result<(), ServiceError> {
    if task_id.is_empty() {
        return Err(invalid("taskId is required"));
    }
    Ok(())
}

/// The push notification config methods, reachable only through [`A2aService::push_configs`]:
/// holding one proves push notifications are on, so no method can forget the check and no
/// binding has to repeat it. Cheap to clone.
#[derive(Clone)]
pub struct PushConfigs {
    service: A2aService,
    pusher: Pusher,
}

impl A2aService {
    /// Whether push notifications are on (the card's `capabilities.pushNotifications`).
    pub fn push_enabled(&self) -> bool {
        self.push_configs().is_ok()
    }

    /// The one guard of every push method: the methods while push notifications are on, else
    /// the refusal all of them give. Bindings take it before they read the params, so a
    /// disabled server answers the same whatever was sent.
    pub fn push_configs(&self) -> Result<PushConfigs, ServiceError> {
        match &self.0.push {
            Some(pusher) => Ok(PushConfigs {
                service: self.clone(),
                pusher: pusher.clone(),
            }),
            None => Err(ServiceError::new(
                A2aError::PushNotificationNotSupported,
                "push notifications are not enabled on this server (capabilities.pushNotifications is false)",
            )),
        }
    }

    /// Starts delivering the events of a task that has stored configs but no delivery in this
    /// process (it restarted, or the configs were created on another replica), before this
    /// process writes to the task: a follow-up turn, a cancel, failing it as stale. Without
    /// configs (or push notifications) it does nothing but one store read.
    pub(super) async fn resume_push(&self, entry: &Arc<TaskHandle>) {
        let Ok(push) = self.push_configs() else {
            return;
        };
        match self.0.store.push_configs(&entry.id).await {
            Ok(c) if !c.is_empty() => push.pusher.watch(Arc::clone(entry), false).await,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(task_id = %entry.id, error = %e, "push: cannot read the task's push configs");
            }
        }
    }

    /// The config a `SendMessage` carries (`configuration.taskPushNotificationConfig`),
    /// checked before any task is made, so a refused webhook creates nothing.
    pub(super) async fn send_push(
        &self,
        c: Option<&TaskPushNotificationConfig>,
        task_id: &str,
        ctx: &RequestContext,
    ) -> Result<Option<PushRegistration>, ServiceError> {
        let Some(c) = c else { return Ok(None) };
        if !c.task_id.is_empty() && c.task_id != task_id {
            return Err(invalid(
                "configuration.taskPushNotificationConfig.taskId must be empty or the message's taskId",
            ));
        }
        let config = self.push_configs()?.checked(c.clone(), task_id).await?;
        Ok(Some(PushRegistration {
            config,
            version: ctx.version,
        }))
    }

    /// Registers the config of a `SendMessage` on the task it made or continued, before the
    /// task's work starts (so every event is delivered). The task already exists, so this
    /// can only fail on a store error. A continued task (`existing`) without a config in the
    /// message still gets its stored configs served ([`A2aService::resume_push`]).
    pub(super) async fn attach_push(
        &self,
        entry: &Arc<TaskHandle>,
        c: Option<PushRegistration>,
        existing: bool,
    ) -> Result<(), ServiceError> {
        let Some(mut c) = c else {
            if existing {
                self.resume_push(entry).await;
            }
            return Ok(());
        };
        c.config.task_id = entry.id.clone();
        self.push_configs()?.store_config(entry, &c, true).await
    }
}

impl PushConfigs {
    /// A config as it will be stored: shape checked, id made when absent, webhook through
    /// the guard (resolving its host).
    async fn checked(
        &self,
        mut c: TaskPushNotificationConfig,
        task_id: &str,
    ) -> Result<TaskPushNotificationConfig, ServiceError> {
        check_shape(&c)?;
        self.pusher
            .policy()
            .guard
            .check(&c.url)
            .await
            .map_err(|e| invalid(e.to_string()))?;
        if c.id.is_empty() {
            c.id = new_id();
        }
        c.task_id = task_id.to_string();
        c.tenant.clear();
        Ok(c)
    }

    /// Stores a checked config of a visible task and starts delivering its events.
    async fn store_config(
        &self,
        entry: &Arc<TaskHandle>,
        c: &PushRegistration,
        deliver_final: bool,
    ) -> Result<(), ServiceError> {
        self.service
            .0
            .store
            .put_push_config(c, self.pusher.policy().max_configs)
            .await
            .map_err(|e| match e {
                e @ StoreError::PushConfigLimit { .. } => invalid(e.to_string()),
                e => store_error(e),
            })?;
        self.pusher.watch(Arc::clone(entry), deliver_final).await;
        Ok(())
    }

    /// `CreateTaskPushNotificationConfig`: a config of a task the caller may see (replacing
    /// the one with the same id); the stored config is returned, id included.
    pub async fn create(
        &self,
        req: TaskPushNotificationConfig,
        ctx: &RequestContext,
    ) -> Result<TaskPushNotificationConfig, ServiceError> {
        require_task_id(&req.task_id)?;
        let entry = self.service.visible(&req.task_id, ctx).await?;
        let task_id = req.task_id.clone();
        let c = PushRegistration {
            config: self.checked(req, &task_id).await?,
            version: ctx.version,
        };
        self.store_config(&entry, &c, false).await?;
        Ok(c.config)
    }

    /// `GetTaskPushNotificationConfig`.
    pub async fn get(
        &self,
        req: &TaskPushNotificationConfigRef,
        ctx: &RequestContext,
    ) -> Result<TaskPushNotificationConfig, ServiceError> {
        require_task_id(&req.task_id)?;
        if req.id.is_empty() {
            return Err(invalid("id is required"));
        }
        self.service.visible(&req.task_id, ctx).await?;
        self.service
            .0
            .store
            .push_configs(&req.task_id)
            .await
            .map_err(store_error)?
            .into_iter()
            .map(|r| r.config)
            .find(|c| c.id == req.id)
            .ok_or_else(|| config_not_found(&req.task_id, &req.id))
    }

    /// The task's oldest config: what a request naming no config means where only one config
    /// per task was expected (A2A 0.3's `tasks/pushNotificationConfig/get` without an id).
    pub async fn oldest(
        &self,
        task_id: &str,
        ctx: &RequestContext,
    ) -> Result<TaskPushNotificationConfig, ServiceError> {
        require_task_id(task_id)?;
        self.service.visible(task_id, ctx).await?;
        self.service
            .0
            .store
            .push_configs(task_id)
            .await
            .map_err(store_error)?
            .into_iter()
            .map(|r| r.config)
            .next()
            .ok_or_else(|| {
                ServiceError::new(
                    A2aError::TaskNotFound,
                    format!("task {task_id} has no push notification config"),
                )
            })
    }

    /// `ListTaskPushNotificationConfigs`: oldest first, pages of 1..=100 (default 50).
    pub async fn list(
        &self,
        req: &ListTaskPushNotificationConfigsRequest,
        ctx: &RequestContext,
    ) -> Result<ListTaskPushNotificationConfigsResponse, ServiceError> {
        require_task_id(&req.task_id)?;
        let size = match req.page_size {
            None | Some(0) => DEFAULT_PAGE,
            Some(n) => usize::try_from(n)
                .ok()
                .filter(|n| (1..=MAX_PAGE).contains(n))
                .ok_or_else(|| invalid(format!("pageSize must be between 1 and {MAX_PAGE}")))?,
        };
        let offset: usize = if req.page_token.is_empty() {
            0
        } else {
            req.page_token
                .parse()
                .map_err(|_| invalid("invalid pageToken"))?
        };
        self.service.visible(&req.task_id, ctx).await?;
        let all = self
            .service
            .0
            .store
            .push_configs(&req.task_id)
            .await
            .map_err(store_error)?;
        let end = offset.saturating_add(size).min(all.len());
        let configs = all
            .get(offset..end)
            .unwrap_or_default()
            .iter()
            .map(|r| r.config.clone())
            .collect();
        Ok(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token: if end < all.len() {
                end.to_string()
            } else {
                String::new()
            },
        })
    }

    /// `DeleteTaskPushNotificationConfig`: later events of the task no longer reach it. A
    /// config that does not exist (any more) is not an error.
    pub async fn delete(
        &self,
        req: &TaskPushNotificationConfigRef,
        ctx: &RequestContext,
    ) -> Result<(), ServiceError> {
        require_task_id(&req.task_id)?;
        if req.id.is_empty() {
            return Err(invalid("id is required"));
        }
        self.service.visible(&req.task_id, ctx).await?;
        // Idempotent (A2A 1.0 section 3.1.10): deleting a config that is already gone has the
        // same effect as the first delete, so it succeeds too. The task must still be visible.
        self.service
            .0
            .store
            .delete_push_config(&req.task_id, &req.id)
            .await
            .map_err(store_error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillgate_a2a::AuthenticationInfo;

    fn cfg() -> TaskPushNotificationConfig {
        TaskPushNotificationConfig {
            url: "https://hooks.example/a2a".into(),
            ..Default::default()
        }
    }

    #[test]
    fn shapes_are_checked_with_clear_messages() {
        assert!(check_shape(&cfg()).is_ok());
        let msg = |c: TaskPushNotificationConfig| check_shape(&c).unwrap_err().message;
        assert!(msg(TaskPushNotificationConfig::default()).contains("url is required"));
        let no_scheme = TaskPushNotificationConfig {
            authentication: Some(AuthenticationInfo::default()),
            ..cfg()
        };
        assert!(msg(no_scheme).contains("authentication.scheme is required"));
        let injected = TaskPushNotificationConfig {
            token: "a\r\nX-Evil: 1".into(),
            ..cfg()
        };
        assert!(msg(injected).contains("token"));
        let long = TaskPushNotificationConfig {
            authentication: Some(AuthenticationInfo {
                scheme: "Bearer".into(),
                credentials: "x".repeat(MAX_CREDENTIALS + 1),
            }),
            ..cfg()
        };
        assert!(msg(long).contains("credentials"));
        let bad_scheme = TaskPushNotificationConfig {
            authentication: Some(AuthenticationInfo {
                scheme: "Bearer token".into(),
                credentials: String::new(),
            }),
            ..cfg()
        };
        assert!(msg(bad_scheme).contains("auth scheme name"));
    }
}
