//! The store's background upkeep, one loop per service: renew the leases of the tasks this
//! process runs, fail tasks nobody will finish (their replica died, or they waited for input
//! longer than the TTL), and delete finished tasks past their retention or the byte budget.

use super::{agent_message, error_part, A2aService, Inner};
use crate::task::TaskHandle;
use skillgate_a2a::TaskState;
use skillgate_core::wire::ErrorObject;
use skillgate_core::ErrorCode;
use skillgate_store::StoreError;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// Stale tasks failed per round; the rest wait for the next round.
const STALE_BATCH: usize = 500;

impl A2aService {
    /// Starts the upkeep loop once, on the first call made inside a tokio runtime. It runs
    /// one round at once (so a task left running by a dead process fails right after a
    /// restart) and stops when the service is dropped.
    pub(super) fn start_maintenance(&self) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        self.0.maintenance.call_once(|| {
            let weak = Arc::downgrade(&self.0);
            let lease = self.0.store.limits().lease_ttl;
            let period = (lease / 3).clamp(Duration::from_millis(50), Duration::from_secs(1));
            tokio::spawn(upkeep(weak, period));
        });
    }
}

async fn upkeep(weak: Weak<Inner>, period: Duration) {
    // A store that is down fails every round: it is logged when it starts and when it ends,
    // not once per round.
    let mut failing = false;
    loop {
        let Some(inner) = weak.upgrade() else { return };
        let svc = A2aService(inner);
        match svc.round().await {
            Err(e) if !failing => {
                tracing::warn!(error = %e, "task store upkeep failed; retrying every round");
                failing = true;
            }
            Ok(()) if failing => {
                tracing::info!("task store upkeep works again");
                failing = false;
            }
            _ => {}
        }
        drop(svc);
        tokio::time::sleep(period).await;
    }
}

impl A2aService {
    /// One upkeep round; every step is tried even when an earlier one failed, and the first
    /// failure is returned for the log. Nothing here may stop the loop.
    async fn round(&self) -> Result<(), StoreError> {
        let store = &self.0.store;
        let running_here = store.hub().running();
        let mut first_error = store.renew_leases(&running_here).await.err();
        let rows = store.stale(STALE_BATCH).await.unwrap_or_else(|e| {
            first_error.get_or_insert(e);
            Vec::new()
        });
        for row in rows {
            if running_here.contains(&row.id) {
                continue;
            }
            let message = if row.is_running() {
                "the agent stopped before the task finished"
            } else {
                "no follow-up message arrived within the interrupted-task TTL"
            };
            // The row just read is the handle's starting point; a write that lost a race
            // with its owner re-reads it anyway.
            if let Ok(h) = TaskHandle::of_row(store, &self.0.metrics, row) {
                // Its webhooks hear that it failed, even after a restart.
                self.resume_push(&h).await;
                if fail(&h, message).await {
                    tracing::info!(task_id = %h.id, reason = message, "stale task failed");
                }
            }
        }
        if let Err(e) = store.purge().await {
            first_error.get_or_insert(e);
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// Fails a task nobody will finish, with an `execution_failed` error object saying why. A
/// lost race (another replica failed it first, or it finished) changes nothing; `true` when
/// this call failed it.
async fn fail(h: &TaskHandle, message: &str) -> bool {
    let error = ErrorObject::new(ErrorCode::ExecutionFailed, message);
    let msg = agent_message(h, vec![error_part(&error)]);
    h.set_status(TaskState::Failed, Some(msg)).await.is_ok()
}
