//! Push delivery left out of this build (the `push` feature is off): a [`Pusher`] cannot be
//! made, so the service keeps push notifications off and answers the push methods
//! `PushNotificationNotSupported`, as with push not configured.

use super::PushPolicy;
use crate::metrics::Metrics;
use crate::task::TaskHandle;
use skillgate_store::TaskStore;
use std::convert::Infallible;
use std::sync::Arc;

/// A pusher that cannot exist: `new` always refuses.
#[derive(Clone)]
pub(crate) struct Pusher(Infallible);

impl Pusher {
    /// Always refuses: this build has no webhook client.
    pub(crate) fn new(
        _policy: PushPolicy,
        _store: Arc<dyn TaskStore>,
        _metrics: Metrics,
    ) -> Result<Self, String> {
        Err("this build has no push delivery (skillgate-runtime's `push` feature is off)".into())
    }

    /// Unreachable: no value of this type exists.
    pub(crate) fn policy(&self) -> &PushPolicy {
        match self.0 {}
    }

    /// Unreachable: no value of this type exists.
    pub(crate) async fn watch(&self, _entry: Arc<TaskHandle>, _deliver_final: bool) {
        match self.0 {}
    }
}
