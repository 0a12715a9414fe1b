//! The text lines: `tracing_subscriber`'s default format, byte for byte, without an
//! allocation per span or per line.
//!
//! A line is `TIME LEVEL span{fields}:span{fields}: target: message field=value ...`: the time
//! in RFC 3339 with microseconds (UTC), the level right-aligned in five columns, each span of
//! the event's scope from the outermost with the fields it was opened with and those recorded
//! since (in that order), the event's target, its message and fields (strings quoted as Rust
//! debug strings, control characters of the message escaped). With ANSI the time and
//! punctuation are dimmed, span names bold, field names italic, the level coloured.

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// Buffers kept per thread for span fields; more are dropped when returned.
const POOL_MAX: usize = 64;
/// A returned buffer grown past this is dropped rather than kept.
const BUF_KEEP: usize = 4096;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIMMED: &str = "\x1b[2m";
const ITALIC: &str = "\x1b[3m";

thread_local! {
    /// Span-field buffers returned by closed spans, reused by the next spans opened here.
    static POOL: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The line being formatted; written out whole.
    static LINE: RefCell<String> = const { RefCell::new(String::new()) };
    /// The last second a line was written in, and its text up to the decimal point.
    static SECOND: RefCell<(Option<i64>, String)> = const { RefCell::new((None, String::new())) };
}

/// The text-form layer: formats each event as one line on stderr (through the writer thread
/// of `queue`).
#[derive(Debug)]
pub struct TextLayer {
    ansi: bool,
    sink: Sink,
}

/// Where the lines go.
#[derive(Debug)]
enum Sink {
    Stderr,
    /// A test's buffer.
    #[cfg(test)]
    Memory(std::sync::Arc<std::sync::Mutex<Vec<u8>>>),
}

impl Sink {
    /// Writes one line whole.
    fn write(&self, line: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Stderr => match super::queue::queue() {
                Some(q) => {
                    q.push(line);
                    Ok(())
                }
                None => std::io::stderr().write_all(line),
            },
            #[cfg(test)]
            Sink::Memory(m) => m.lock().map_or(Ok(()), |mut m| {
                m.extend_from_slice(line);
                Ok(())
            }),
        }
    }
}

impl TextLayer {
    /// A layer writing to stderr, with ANSI styles when `ansi`.
    pub fn new(ansi: bool) -> Self {
        Self {
            ansi,
            sink: Sink::Stderr,
        }
    }

    /// Appends the line of `event` to `out` (cleared first).
    fn format<S>(&self, out: &mut String, event: &Event<'_>, ctx: &Context<'_, S>)
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let meta = event.metadata();
        let mut s = Styler {
            out,
            ansi: self.ansi,
        };
        s.open(DIMMED);
        write_time(s.out, SystemTime::now());
        s.close(DIMMED);
        s.out.push(' ');
        s.level(*meta.level());
        s.out.push(' ');
        if let Some(scope) = ctx.event_scope(event) {
            let mut seen = false;
            for span in scope.from_root() {
                s.paint(BOLD, span.metadata().name());
                seen = true;
                let ext = span.extensions();
                if let Some(fields) = ext.get::<SpanFields>() {
                    if !fields.0.is_empty() {
                        s.paint(BOLD, "{");
                        s.out.push_str(&fields.0);
                        s.paint(BOLD, "}");
                    }
                }
                s.paint(DIMMED, ":");
            }
            if seen {
                s.out.push(' ');
            }
        }
        s.paint(DIMMED, meta.target());
        s.paint(DIMMED, ":");
        s.out.push(' ');
        event.record(&mut Fields::new(s.out, self.ansi));
        s.out.push('\n');
    }
}

impl<S> Layer<S> for TextLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut ext = span.extensions_mut();
        if ext.get_mut::<SpanFields>().is_some() {
            return;
        }
        let mut buf = take_buffer();
        attrs.record(&mut Fields::new(&mut buf, self.ansi));
        ext.insert(SpanFields(buf));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut ext = span.extensions_mut();
        if let Some(fields) = ext.get_mut::<SpanFields>() {
            // As `tracing_subscriber` adds fields: one space, then the new ones.
            if !fields.0.is_empty() {
                fields.0.push(' ');
            }
            values.record(&mut Fields::new(&mut fields.0, self.ansi));
            return;
        }
        let mut buf = take_buffer();
        values.record(&mut Fields::new(&mut buf, self.ansi));
        ext.insert(SpanFields(buf));
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let written = LINE.with(|line| match line.try_borrow_mut() {
            Ok(mut buf) => {
                buf.clear();
                self.format(&mut buf, event, &ctx);
                let r = self.sink.write(buf.as_bytes());
                if buf.capacity() > BUF_KEEP {
                    *buf = String::new();
                }
                r
            }
            // An event logged while this thread formats one (a field's `Debug` that logs).
            Err(_) => {
                let mut buf = String::new();
                self.format(&mut buf, event, &ctx);
                self.sink.write(buf.as_bytes())
            }
        });
        if let Err(e) = written {
            // As `tracing_subscriber::fmt()` reports it.
            eprintln!(
                "[tracing-subscriber] Unable to write an event to the Writer for this Subscriber! Error: {e}\n"
            );
        }
    }
}

/// A span's formatted fields, in a buffer that goes back to the pool when the span closes.
struct SpanFields(String);

impl Drop for SpanFields {
    fn drop(&mut self) {
        give_buffer(std::mem::take(&mut self.0));
    }
}

/// An empty buffer from this thread's pool, or a new one.
fn take_buffer() -> String {
    POOL.try_with(|p| p.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Returns `buf` to this thread's pool, unless the pool is full or `buf` grew large.
fn give_buffer(mut buf: String) {
    if buf.capacity() == 0 || buf.capacity() > BUF_KEEP {
        return;
    }
    buf.clear();
    // During thread exit the pool may be gone: the buffer is then dropped.
    let _ = POOL.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            if p.len() < POOL_MAX {
                p.push(buf);
            }
        }
    });
}

/// Writes to a line with or without ANSI styles.
struct Styler<'a> {
    out: &'a mut String,
    ansi: bool,
}

impl Styler<'_> {
    #[inline]
    fn open(&mut self, style: &str) {
        if self.ansi {
            self.out.push_str(style);
        }
    }

    #[inline]
    fn close(&mut self, _style: &str) {
        if self.ansi {
            self.out.push_str(RESET);
        }
    }

    /// `text` in `style` (plain without ANSI).
    #[inline]
    fn paint(&mut self, style: &str, text: &str) {
        self.open(style);
        self.out.push_str(text);
        self.close(style);
    }

    /// The level: five columns plain, coloured with ANSI (the same five columns inside).
    fn level(&mut self, level: Level) {
        let (name, colour) = match level {
            Level::TRACE => ("TRACE", "\x1b[35m"),
            Level::DEBUG => ("DEBUG", "\x1b[34m"),
            Level::INFO => (" INFO", "\x1b[32m"),
            Level::WARN => (" WARN", "\x1b[33m"),
            Level::ERROR => ("ERROR", "\x1b[31m"),
        };
        self.paint(colour, name);
    }
}

/// Writes fields as `tracing_subscriber`'s default visitor does: separated by one space, the
/// message bare (control characters escaped), others `name=value` with the value's `Debug`.
struct Fields<'a> {
    out: &'a mut String,
    ansi: bool,
    empty: bool,
}

impl<'a> Fields<'a> {
    /// An integer field as `name=digits` (`itoa`, not `core::fmt`); a `message` that is an
    /// integer keeps the message rules.
    fn record_integer<I: itoa::Integer + std::fmt::Debug>(&mut self, field: &Field, value: I) {
        if field.name() == "message" {
            return self.record_debug(field, &value);
        }
        self.pad();
        self.name(field.name());
        self.out.push_str(itoa::Buffer::new().format(value));
    }

    fn new(out: &'a mut String, ansi: bool) -> Self {
        Self {
            out,
            ansi,
            empty: true,
        }
    }

    fn pad(&mut self) {
        if self.empty {
            self.empty = false;
        } else {
            self.out.push(' ');
        }
    }

    /// `name=` with its styles; a raw identifier's `r#` is dropped.
    fn name(&mut self, name: &str) {
        let name = name.strip_prefix("r#").unwrap_or(name);
        let mut s = Styler {
            out: self.out,
            ansi: self.ansi,
        };
        s.paint(ITALIC, name);
        s.paint(DIMMED, "=");
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"));
        } else {
            self.record_debug(field, &value);
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.record_integer(field, value);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.record_integer(field, value);
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let Some(source) = value.source() else {
            return self.record_debug(field, &format_args!("{}", Escaped(value)));
        };
        let (italic, dimmed, reset) = if self.ansi {
            (ITALIC, DIMMED, RESET)
        } else {
            ("", "", "")
        };
        let name = field.name();
        self.record_debug(
            field,
            &format_args!(
                "{} {italic}{name}{reset}{italic}.sources{reset}{dimmed}={reset}{}",
                Escaped(value),
                Sources(source)
            ),
        );
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.pad();
        // Formatting into a `String` cannot fail; a value's own `Debug` error is dropped, as
        // `tracing_subscriber` drops the rest of the line's fields after one.
        let _ = if field.name() == "message" {
            write!(Escaping(self.out), "{value:?}")
        } else {
            self.name(field.name());
            write!(self.out, "{value:?}")
        };
    }
}

/// Writes through to a line, escaping the control characters a terminal would act on
/// (ESC, BEL, BS, FF, DEL and the C1 controls), as `tracing_subscriber` does for messages and
/// error texts.
struct Escaping<'a>(&'a mut String);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // A C1 control is encoded as 0xC2 0x80..=0x9F: without 0xC2 and the C0 ones and DEL,
        // nothing in `s` is escaped.
        if !s
            .bytes()
            .any(|b| matches!(b, 0x07 | 0x08 | 0x0c | 0x1b | 0x7f | 0xc2))
        {
            self.0.push_str(s);
            return Ok(());
        }
        for ch in s.chars() {
            match ch {
                '\x1b' => self.0.push_str("\\x1b"),
                '\x07' => self.0.push_str("\\x07"),
                '\x08' => self.0.push_str("\\x08"),
                '\x0c' => self.0.push_str("\\x0c"),
                '\x7f' => self.0.push_str("\\x7f"),
                c if ('\u{80}'..='\u{9f}').contains(&c) => {
                    write!(self.0, "\\u{{{:x}}}", c as u32)?;
                }
                c => self.0.push(c),
            }
        }
        Ok(())
    }
}

/// An error's `Display`, control characters escaped.
struct Escaped<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        let _ = Escaping(&mut s).write_fmt(format_args!("{}", self.0));
        f.write_str(&s)
    }
}

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// An error and its sources as a list (`[outer, inner]`), each escaped.
struct Sources<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Sources<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        let mut next = Some(self.0);
        while let Some(e) = next {
            list.entry(&Escaped(e));
            next = e.source();
        }
        list.finish()
    }
}

/// Appends `t` as RFC 3339 UTC with microseconds (`2026-12-04T21:30:00.123456Z`), as
/// `tracing_subscriber`'s `SystemTime` timer writes it. The part up to the seconds is kept per
/// thread and rewritten only when the second changes.
fn write_time(out: &mut String, t: SystemTime) {
    let (secs, nanos) = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            let (s, n) = (d.as_secs() as i64, d.subsec_nanos());
            if n == 0 {
                (-s, 0)
            } else {
                (-s - 1, 1_000_000_000 - n)
            }
        }
    };
    let cached = SECOND.try_with(|c| {
        let mut c = c.borrow_mut();
        if c.0 != Some(secs) {
            c.1.clear();
            write_second(&mut c.1, secs);
            c.0 = Some(secs);
        }
        out.push_str(&c.1);
    });
    if cached.is_err() {
        write_second(out, secs);
    }
    let mut frac = *b"000000Z";
    let mut micros = nanos / 1_000;
    for d in frac[..6].iter_mut().rev() {
        *d = b'0' + (micros % 10) as u8;
        micros /= 10;
    }
    out.push_str(std::str::from_utf8(&frac).unwrap_or("000000Z"));
}

/// Appends the time of `secs` since the epoch up to its seconds and the decimal point
/// (`2026-12-04T21:30:00.`).
fn write_second(out: &mut String, secs: i64) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let _ = match year {
        y if y > 9999 => write!(out, "+{y}"),
        y if y < 0 => write!(out, "{y:05}"),
        y => {
            push_digits(out, y as u32, 4);
            Ok(())
        }
    };
    out.push('-');
    push_digits(out, month, 2);
    out.push('-');
    push_digits(out, day, 2);
    out.push('T');
    push_digits(out, (rem / 3600) as u32, 2);
    out.push(':');
    push_digits(out, (rem / 60 % 60) as u32, 2);
    out.push(':');
    push_digits(out, (rem % 60) as u32, 2);
    out.push('.');
}

/// Appends `n`'s last `width` decimal digits, zero-padded.
fn push_digits(out: &mut String, n: u32, width: u32) {
    for i in (0..width).rev() {
        let d = (n / 10u32.pow(i)) % 10;
        out.push(char::from(b'0' + d as u8));
    }
}

/// The proleptic Gregorian (year, month, day) of a count of days since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests;
