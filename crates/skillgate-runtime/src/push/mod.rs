//! Push notifications: every event of a task with push configs POSTed to each config's webhook.
//!
//! A task's events come from the store's event hub, exactly as `SubscribeToTask` streams them
//! (one subscription per task with configs in this process, see [`Pusher::watch`]). Each
//! config has its own bounded queue and one worker that POSTs the events in order, with
//! bounded retries; a webhook that is slow or down fills only its own queue, and what does not
//! fit is dropped (logged and counted), so neither memory nor the task ever waits on a webhook.
//! [`guard`] decides which webhooks may be called. Delivery needs the `push` feature (on by
//! default; it brings the webhook HTTP client); without it a server with push configured
//! logs that push is off and answers the push methods `PushNotificationNotSupported`.

#[cfg(feature = "push")]
mod deliver;
pub mod guard;
#[cfg(not(feature = "push"))]
mod off;

#[cfg(feature = "push")]
pub(crate) use deliver::Pusher;
use guard::Guard;
#[cfg(not(feature = "push"))]
pub(crate) use off::Pusher;
use std::time::Duration;

/// The header carrying a config's `token` (a profile choice, docs/design.md).
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// The media type of a delivered event.
pub const CONTENT_TYPE: &str = "application/a2a+json";

/// The media type of a body delivered to a webhook registered in A2A 0.3 (0.3 JSON).
pub const CONTENT_TYPE_V03: &str = "application/json";

/// How push notifications are delivered (`serve --push` and its flags).
#[derive(Debug, Clone)]
pub struct PushPolicy {
    /// Which webhooks may be called.
    pub guard: Guard,
    /// Attempts per event and webhook (default 3), the first included.
    pub attempts: u32,
    /// Wait before the first retry (default 500 ms); each retry doubles it, plus up to 50 %
    /// random jitter.
    pub backoff: Duration,
    /// Longest one POST may take, connection included (default 10 s).
    pub timeout: Duration,
    /// Events waiting per webhook before new ones are dropped (default 64).
    pub queue: usize,
    /// Most configs per task (default 16).
    pub max_configs: usize,
}

impl Default for PushPolicy {
    fn default() -> Self {
        Self {
            guard: Guard::default(),
            attempts: 3,
            backoff: Duration::from_millis(500),
            timeout: Duration::from_secs(10),
            queue: 64,
            max_configs: 16,
        }
    }
}
