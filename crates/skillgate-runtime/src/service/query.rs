//! Reading and cancelling tasks: `GetTask`, `ListTasks` and `CancelTask`.

use super::{
    check_history_length, store_error, trim_history, A2aService, RequestContext, ServiceError,
};
use crate::task::Refused;
use skillgate_a2a::{
    A2aError, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse, Task,
    TaskState,
};
use skillgate_store::ListQuery;

impl A2aService {
    /// `GetTask`.
    pub async fn get_task(
        &self,
        req: &GetTaskRequest,
        ctx: &RequestContext,
    ) -> Result<Task, ServiceError> {
        check_history_length(req.history_length)?;
        Ok(trim_history(
            self.visible(&req.id, ctx).await?.snapshot().await,
            req.history_length,
        ))
    }

    /// `ListTasks`: newest status first, pages of 1..=100 (default 50), filtered, paged and
    /// counted in the store.
    pub async fn list_tasks(
        &self,
        req: &ListTasksRequest,
        ctx: &RequestContext,
    ) -> Result<ListTasksResponse, ServiceError> {
        check_history_length(req.history_length)?;
        let page_size = req.page_size.unwrap_or(50);
        if !(1..=100).contains(&page_size) {
            return Err(ServiceError::new(
                A2aError::InvalidParams,
                "pageSize must be between 1 and 100",
            ));
        }
        let offset: u64 = if req.page_token.is_empty() {
            0
        } else {
            req.page_token
                .parse()
                .map_err(|_| ServiceError::new(A2aError::InvalidParams, "invalid pageToken"))?
        };
        let after = match &req.status_timestamp_after {
            None => None,
            Some(t) => Some(
                skillgate_a2a::timestamp::parse_rfc3339_millis(t).ok_or_else(|| {
                    ServiceError::new(
                        A2aError::InvalidParams,
                        "statusTimestampAfter must be an RFC 3339 date-time",
                    )
                })?,
            ),
        };
        self.start_maintenance();
        let query = ListQuery {
            caller: ctx.caller.as_ref().map(|c| c.label.to_string()),
            context_id: (!req.context_id.is_empty()).then(|| req.context_id.clone()),
            state: (req.status != TaskState::Unspecified).then_some(req.status),
            updated_after_ms: after,
            offset,
            limit: u32::try_from(page_size).unwrap_or(50),
        };
        let found = self.0.store.list(&query).await.map_err(store_error)?;
        let total = found.total;
        let include_artifacts = req.include_artifacts.unwrap_or(false);
        let mut page = Vec::with_capacity(found.rows.len());
        for row in found.rows {
            let mut t = row.task().map_err(store_error)?;
            if !include_artifacts {
                t.artifacts.clear();
            }
            page.push(trim_history(t, req.history_length));
        }
        let next = offset.saturating_add(page.len() as u64);
        Ok(ListTasksResponse {
            tasks: page,
            next_page_token: if next < total {
                next.to_string()
            } else {
                String::new()
            },
            page_size,
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
        })
    }

    /// `CancelTask`: only for skills declaring `cancelable`, and only before a terminal state.
    /// The cancel reaches the handler wherever it runs: the stored CANCELED status is
    /// published to every replica, and the one running the task stops it.
    pub async fn cancel_task(
        &self,
        req: &CancelTaskRequest,
        ctx: &RequestContext,
    ) -> Result<Task, ServiceError> {
        let e = self.visible(&req.id, ctx).await?;
        if !e.flags.cancelable {
            return Err(ServiceError::new(
                A2aError::TaskNotCancelable,
                format!(
                    "task {} is not cancelable: its skill does not declare interaction.cancelable",
                    req.id
                ),
            ));
        }
        self.resume_push(&e).await;
        match e.set_status(TaskState::Canceled, None).await {
            Ok(()) => {}
            Err(Refused::Terminal(state)) => {
                return Err(ServiceError::new(
                    A2aError::TaskNotCancelable,
                    format!("task {} is already in terminal state {state}", req.id),
                ))
            }
            Err(Refused::Store(err)) => return Err(store_error(err)),
            Err(other) => {
                return Err(ServiceError::new(
                    A2aError::InternalError,
                    format!("task {} could not be canceled: {other:?}", req.id),
                ))
            }
        }
        e.store().hub().cancel_local(&req.id);
        Ok(e.snapshot().await)
    }
}
