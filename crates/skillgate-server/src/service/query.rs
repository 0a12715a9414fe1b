//! Reading and cancelling tasks: `GetTask`, `ListTasks` and `CancelTask`.

use super::{check_history_length, trim_history, A2aService, RequestContext, ServiceError};
use skillgate_a2a::{
    A2aError, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse, Task,
    TaskState,
};

impl A2aService {
    /// `GetTask`.
    pub fn get_task(
        &self,
        req: &GetTaskRequest,
        ctx: &RequestContext,
    ) -> Result<Task, ServiceError> {
        check_history_length(req.history_length)?;
        Ok(trim_history(
            self.visible(&req.id, ctx)?.snapshot(),
            req.history_length,
        ))
    }

    /// `ListTasks`: newest status first, pages of 1..=100 (default 50).
    pub fn list_tasks(
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
        let offset: usize = if req.page_token.is_empty() {
            0
        } else {
            req.page_token
                .parse()
                .map_err(|_| ServiceError::new(A2aError::InvalidParams, "invalid pageToken"))?
        };
        let after = match &req.status_timestamp_after {
            None => None,
            Some(t) => Some(crate::time::parse_rfc3339_millis(t).ok_or_else(|| {
                ServiceError::new(
                    A2aError::InvalidParams,
                    "statusTimestampAfter must be an RFC 3339 date-time",
                )
            })?),
        };
        let caller = ctx.caller.as_ref().map(|c| &c.label);
        let mut tasks: Vec<Task> = self
            .0
            .store
            .all()
            .into_iter()
            .filter(|e| e.owner.is_none() || e.owner.as_ref() == caller)
            .map(|e| e.snapshot())
            .filter(|t| req.context_id.is_empty() || t.context_id == req.context_id)
            .filter(|t| req.status == TaskState::Unspecified || t.status.state == req.status)
            .filter(|t| match (after, &t.status.timestamp) {
                (Some(after), Some(ts)) => {
                    crate::time::parse_rfc3339_millis(ts).is_some_and(|ts| ts > after)
                }
                _ => true,
            })
            .collect();
        tasks.sort_by(|a, b| {
            b.status
                .timestamp
                .cmp(&a.status.timestamp)
                .then_with(|| a.id.cmp(&b.id))
        });
        let total = tasks.len();
        let page_size_u = usize::try_from(page_size).unwrap_or(50);
        let include_artifacts = req.include_artifacts.unwrap_or(false);
        let page: Vec<Task> = tasks
            .into_iter()
            .skip(offset)
            .take(page_size_u)
            .map(|mut t| {
                if !include_artifacts {
                    t.artifacts.clear();
                }
                trim_history(t, req.history_length)
            })
            .collect();
        let next = offset.saturating_add(page.len());
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
    pub fn cancel_task(
        &self,
        req: &CancelTaskRequest,
        ctx: &RequestContext,
    ) -> Result<Task, ServiceError> {
        let e = self.visible(&req.id, ctx)?;
        if !e.cancelable {
            return Err(ServiceError::new(
                A2aError::TaskNotCancelable,
                format!(
                    "task {} is not cancelable: its skill does not declare interaction.cancelable",
                    req.id
                ),
            ));
        }
        if let Err(state) = e.set_status(TaskState::Canceled, None) {
            return Err(ServiceError::new(
                A2aError::TaskNotCancelable,
                format!("task {} is already in terminal state {state}", req.id),
            ));
        }
        e.cancel.cancel();
        Ok(e.snapshot())
    }
}
