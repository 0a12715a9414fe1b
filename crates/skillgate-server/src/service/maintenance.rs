//! The store's background upkeep, one loop per service: renew the leases of the tasks this
//! process runs, fail tasks nobody will finish (their replica died, or they waited for input
//! longer than the TTL), and delete finished tasks past their retention or the byte budget.

use super::{agent_message, error_part, A2aService, Inner};
use crate::store::TaskHandle;
use skillgate_a2a::TaskState;
use skillgate_core::wire::ErrorObject;
use skillgate_core::ErrorCode;
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
    loop {
        let Some(inner) = weak.upgrade() else { return };
        let svc = A2aService(inner);
        svc.round().await;
        drop(svc);
        tokio::time::sleep(period).await;
    }
}

impl A2aService {
    /// One upkeep round. Store failures are left for the next round: nothing here may stop
    /// the loop.
    async fn round(&self) {
        let store = &self.0.store;
        let running_here = store.hub().running();
        let _ = store.renew_leases(&running_here).await;
        if let Ok(rows) = store.stale(STALE_BATCH).await {
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
                if let Ok(h) = TaskHandle::of_row(store, row) {
                    fail(&h, message).await;
                }
            }
        }
        let _ = store.purge().await;
    }
}

/// Fails a task nobody will finish, with an `execution_failed` error object saying why. A
/// lost race (another replica failed it first, or it finished) changes nothing.
async fn fail(h: &TaskHandle, message: &str) {
    let snap = h.snapshot().await;
    let error = ErrorObject::new(ErrorCode::ExecutionFailed, message);
    let msg = agent_message(&snap, vec![error_part(&error)]);
    let _ = h.set_status(TaskState::Failed, Some(msg)).await;
}
