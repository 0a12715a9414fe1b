//! The text layer against `tracing_subscriber::fmt` itself: the same spans and events, the
//! same bytes apart from the time.

use super::*;
use std::sync::{Arc, Mutex};
use tracing::field::{display, Empty};
use tracing_subscriber::layer::SubscriberExt;

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Capture {
    type Writer = Capture;

    fn make_writer(&'a self) -> Capture {
        self.clone()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("outer \x1b[31m failure")]
struct Outer(#[source] Inner);

#[derive(Debug, thiserror::Error)]
#[error("inner {0}")]
struct Inner(&'static str);

/// Spans and events of every shape the server makes, and some it does not.
fn scenario() {
    tracing::info!(
        answer = 42u64,
        neg = -7i64,
        ratio = 1.5f64,
        yes = true,
        text = "a \"quoted\"\nline",
        shown = %"display",
        debugged = ?Some("x"),
        r#type = "raw",
        "a message with \x1b[2J escapes \u{9b} and {}",
        "args"
    );
    tracing::warn!(
        error = &Outer(Inner("cause")) as &(dyn std::error::Error + 'static),
        "failed"
    );
    tracing::error!(error = &Inner("alone") as &(dyn std::error::Error + 'static));
    tracing::debug!(target: "custom::target", n = 0u64);
    tracing::trace!("trace level");
    let request = tracing::info_span!(
        "request",
        binding = display("jsonrpc"),
        method = Empty,
        skill = Empty,
        task_id = Empty,
        code = Empty,
    );
    request.in_scope(|| {
        tracing::Span::current().record("skill", display("describe_skill"));
        tracing::Span::current().record("task_id", display("0b0f5a6e-1f7b-4b59-9c1e-d1a5c1f0e3a9"));
        let task = tracing::info_span!("task", task_id = %"t-1", skill = Empty);
        task.in_scope(|| {
            tracing::info!("inside the task");
            task.record("skill", "quoted skill");
            tracing::warn!(n = 3u64, "inside again");
        });
        let bare = tracing::info_span!("bare", a = Empty);
        bare.in_scope(|| tracing::info!("under a span with no fields"));
        let later = tracing::info_span!("later", a = Empty, b = Empty);
        later.record("b", 2u64);
        later.record("a", "one");
        later.in_scope(|| tracing::info!(parent: None, "root event"));
        later.in_scope(|| tracing::info!("in later"));
    });
    request.record("method", display("SendMessage"));
    tracing::info!(target: "skillgate::access", parent: &request, status = 200u64, "request");
    request.in_scope(|| {
        tracing::info!(target: "skillgate::access", http_method = %"POST", path = %"/", status = 200u16, duration_ms = 1.25, "request");
    });
}

/// The lines `scenario` writes through `layer`'s subscriber.
fn ours(ansi: bool) -> String {
    let mem = Arc::new(Mutex::new(Vec::new()));
    let layer = TextLayer {
        ansi,
        sink: Sink::Memory(mem.clone()),
    };
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, scenario);
    let bytes = mem.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

/// The lines `scenario` writes through `tracing_subscriber::fmt`.
fn theirs(ansi: bool) -> String {
    let cap = Capture::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(cap.clone())
        .with_ansi(ansi)
        .finish();
    tracing::subscriber::with_default(subscriber, scenario);
    let bytes = cap.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

/// Each line without its time (27 characters, inside the dim style with ANSI).
fn untimed(text: &str, ansi: bool) -> Vec<String> {
    let at = if ansi { DIMMED.len() } else { 0 };
    text.lines()
        .map(|l| {
            let time = &l[at..at + 27];
            assert!(time.ends_with('Z') && time.as_bytes()[10] == b'T', "{l:?}");
            format!("{}{}", &l[..at], &l[at + 27..])
        })
        .collect()
}

#[test]
fn the_plain_lines_are_tracing_subscribers_bytes() {
    let (ours, theirs) = (ours(false), theirs(false));
    assert_eq!(ours.lines().count(), 12, "{ours}");
    assert_eq!(untimed(&ours, false), untimed(&theirs, false));
    assert!(ours.contains(
        " INFO request{binding=jsonrpc skill=describe_skill \
         task_id=0b0f5a6e-1f7b-4b59-9c1e-d1a5c1f0e3a9 method=SendMessage}: skillgate::access: \
         request http_method=POST path=/ status=200 duration_ms=1.25\n"
    ));
}

#[test]
fn the_ansi_lines_are_tracing_subscribers_bytes() {
    let (ours, theirs) = (ours(true), theirs(true));
    assert!(ours.contains("\x1b[32m INFO\x1b[0m"), "{ours}");
    assert_eq!(untimed(&ours, true), untimed(&theirs, true));
}

#[test]
fn span_buffers_go_back_to_the_pool() {
    let pooled = || POOL.with(|p| p.borrow().len());
    let _ = ours(false);
    let _ = ours(false);
    let warm = pooled();
    assert!((1..=5).contains(&warm), "{warm}");
    for _ in 0..3 {
        let _ = ours(false);
        assert_eq!(pooled(), warm, "reused, not added to");
    }
}

#[test]
fn times_are_rfc_3339_with_microseconds() {
    let at = |secs: u64, nanos: u32| {
        let mut s = String::new();
        write_time(&mut s, UNIX_EPOCH + std::time::Duration::new(secs, nanos));
        s
    };
    assert_eq!(at(0, 0), "1970-01-01T00:00:00.000000Z");
    assert_eq!(at(951_782_400, 999), "2000-02-29T00:00:00.000000Z");
    assert_eq!(
        at(1_796_419_842, 123_456_789),
        "2026-12-04T21:30:42.123456Z"
    );
    // The same second again (its text kept), then a second before the epoch.
    assert_eq!(
        at(1_796_419_842, 999_999_999),
        "2026-12-04T21:30:42.999999Z"
    );
    let mut s = String::new();
    write_time(&mut s, UNIX_EPOCH - std::time::Duration::from_millis(500));
    assert_eq!(s, "1969-12-31T23:59:59.500000Z");
    assert_eq!(at(4_102_444_799, 1_000), "2099-12-31T23:59:59.000001Z");
    for secs in (0..5_000_000_000u64).step_by(7_777_777) {
        let t = time::OffsetDateTime::from_unix_timestamp(secs as i64).unwrap();
        let want = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.000000Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        );
        assert_eq!(at(secs, 0), want);
    }
}
