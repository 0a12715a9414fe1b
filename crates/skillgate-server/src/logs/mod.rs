//! The log subscriber of a server process (feature `logs`): `RUST_LOG` filtering, and the text
//! or JSON lines on stderr, without an allocation per request in the text form.
//!
//! The text form is written by [`TextLayer`], which writes the bytes of
//! `tracing_subscriber`'s default (`Full`) format, with or without ANSI colours, but keeps each
//! span's formatted fields in a buffer taken from a per-thread pool instead of a new `String`
//! per span, and formats each line into one per-thread buffer written with one `write`. The
//! JSON form is `tracing_subscriber`'s own (`json().flatten_event(true)`), unchanged. Both
//! forms go to stderr through one writer thread (`queue`): a line is queued, and whatever has
//! queued up is written in one call; [`flush`] waits until it is all out.
//!
//! Filtering is `tracing_subscriber`'s [`EnvFilter`], with one shortcut ([`SpanFilter`]): a
//! filter without span directives (no `[` in `RUST_LOG`, the default `info` included) has
//! nothing to track per span, so the span callbacks (open, enter, exit, record, close), which
//! each take the filter's lock and hash the span id, are not called at all.

mod queue;
mod text;

pub use queue::flush;
pub use text::TextLayer;

use tracing::span;
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// The filter used when `RUST_LOG` is unset, or set to something that is not a filter.
const DEFAULT_FILTER: &str = "info";

/// How each line is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Human-readable lines (time, level, the spans with their fields, target, message, the
    /// event's fields), with ANSI colours when `ansi` (a terminal, say).
    Text {
        /// Colour the level and dim or embolden the punctuation, as `tracing_subscriber` does.
        ansi: bool,
    },
    /// One JSON object per line: the event's fields at the top level, `span` (the innermost
    /// span's fields) and `spans` (every span's, outermost first).
    Json,
}

/// `RUST_LOG` was set but is not a filter; the subscriber filters at `info` instead.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadFilter(String);

/// Installs the process's subscriber: `form` lines on stderr, filtered by `RUST_LOG` (default
/// `info`). A subscriber already installed (a second server in one process, in tests) is kept.
/// `Err` says `RUST_LOG` was unreadable: the subscriber is installed anyway, at `info`, and
/// the caller says so once logging works.
pub fn install(form: Form) -> Result<(), BadFilter> {
    let var = std::env::var_os(EnvFilter::DEFAULT_ENV);
    let (filter, bad) = match EnvFilter::try_from_default_env() {
        Ok(f) => (f, None),
        Err(e) => (
            EnvFilter::new(DEFAULT_FILTER),
            var.as_ref().map(|_| BadFilter(e.to_string())),
        ),
    };
    // The default filter has no span directive; a set one has none if it has no `[`.
    let span_directives = bad.is_none()
        && var
            .as_ref()
            .is_some_and(|v| v.to_str().is_none_or(|s| s.contains('[')));
    let filter = SpanFilter::new(filter, span_directives);
    let registry = tracing_subscriber::registry();
    // Ignored: a subscriber already installed stays.
    let _ = match form {
        Form::Text { ansi } => registry.with(TextLayer::new(ansi)).with(filter).try_init(),
        Form::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .flatten_event(true)
                    .with_writer(|| Queued),
            )
            .with(filter)
            .try_init(),
    };
    bad.map_or(Ok(()), Err)
}

/// [`EnvFilter`] as the outermost layer, told whether it has span directives
/// (`target[span{field=value}]=level`). Without them it keeps no state per span, so the span
/// callbacks are skipped rather than forwarded to a lookup that always misses.
pub struct SpanFilter {
    inner: EnvFilter,
    spans: bool,
}

impl SpanFilter {
    /// `spans` must be true if `inner` may have span directives; false skips the span
    /// callbacks, which only such directives use.
    pub fn new(inner: EnvFilter, spans: bool) -> Self {
        Self { inner, spans }
    }
}

impl<S> Layer<S> for SpanFilter
where
    S: Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        Layer::<S>::register_callsite(&self.inner, metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Layer::<S>::max_level_hint(&self.inner)
    }

    fn enabled(&self, metadata: &Metadata<'_>, ctx: Context<'_, S>) -> bool {
        Layer::<S>::enabled(&self.inner, metadata, ctx)
    }

    fn event_enabled(&self, event: &Event<'_>, ctx: Context<'_, S>) -> bool {
        Layer::<S>::event_enabled(&self.inner, event, ctx)
    }

    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: Context<'_, S>) {
        if self.spans {
            Layer::<S>::on_new_span(&self.inner, attrs, id, ctx);
        }
    }

    fn on_record(&self, id: &span::Id, values: &span::Record<'_>, ctx: Context<'_, S>) {
        if self.spans {
            Layer::<S>::on_record(&self.inner, id, values, ctx);
        }
    }

    fn on_enter(&self, id: &span::Id, ctx: Context<'_, S>) {
        if self.spans {
            Layer::<S>::on_enter(&self.inner, id, ctx);
        }
    }

    fn on_exit(&self, id: &span::Id, ctx: Context<'_, S>) {
        if self.spans {
            Layer::<S>::on_exit(&self.inner, id, ctx);
        }
    }

    fn on_close(&self, id: span::Id, ctx: Context<'_, S>) {
        if self.spans {
            Layer::<S>::on_close(&self.inner, id, ctx);
        }
    }
}

/// A writer that queues what it is given for the writer thread (stderr itself if that thread
/// could not start). `tracing_subscriber`'s JSON layer writes each line with one `write_all`.
struct Queued;

impl std::io::Write for Queued {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match queue::queue() {
            Some(q) => {
                q.push(buf);
                Ok(buf.len())
            }
            None => std::io::stderr().write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
