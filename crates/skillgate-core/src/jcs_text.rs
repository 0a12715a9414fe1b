//! Canonicalization straight from text, without building a tree.
//!
//! Hashing a document received as bytes is the hot path of every describe_skill and every
//! client check, and `skillgate digest` of a large file must not need several times the file in
//! memory. The parser writes canonical bytes as it reads: strings without escapes and integers
//! that are already canonical are copied verbatim, and an object's members are written in text
//! order, then moved into UTF-16 order when the object closes (sorting is also how duplicates are
//! found). Nothing per member is allocated except the decoded form of a key with escapes.
//!
//! With a [`Sink`] the finished bytes leave in chunks whenever no object is open, so memory
//! stays bounded for an array of many records. A large object (the top-level object, or a large
//! member of one) is *streamed* instead of buffered: a first scan finds its member names and
//! where each value starts, then the values are canonicalized in key order straight to the sink.
//! A streamed pass visits those members out of text order, so on an error the input is read
//! again in text order, for the same error every other path reports.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::jcs::{utf16_cmp, write_f64, write_string, JcsError, JcsErrorKind, Sink};

/// Bytes gathered before they are handed to a sink in one call (large enough that the hash
/// runs on long blocks, small enough to stay in cache).
const CHUNK: usize = 64 * 1024;
/// Objects at least this long in the input are streamed rather than buffered (with a sink).
const STREAM_MIN: usize = 256 * 1024;

type Result<T> = std::result::Result<T, JcsError>;

/// Canonicalizes I-JSON text into one vector; errors carry the same kinds as
/// [`crate::jcs::parse_strict`].
pub(crate) fn canonicalize_text(input: &[u8], max_depth: usize) -> Result<Vec<u8>> {
    let text = utf8(input)?;
    let mut c = Canon::new(text, None, usize::MAX);
    c.buf.reserve(input.len());
    c.document(max_depth)?;
    Ok(c.buf)
}

/// Canonicalizes I-JSON text into `sink` in chunks, holding at most about one buffered object
/// (plus the input) in memory. On an error, `sink` has received a prefix of some output.
pub(crate) fn canonicalize_text_into(
    input: &[u8],
    max_depth: usize,
    sink: &mut dyn Sink,
) -> Result<()> {
    stream_with(input, max_depth, sink, STREAM_MIN)
}

pub(crate) fn stream_with(
    input: &[u8],
    max_depth: usize,
    sink: &mut dyn Sink,
    stream_min: usize,
) -> Result<()> {
    let text = utf8(input)?;
    let mut c = Canon::new(text, Some(sink), stream_min);
    match c.document(max_depth) {
        Ok(()) => {
            c.flush();
            Ok(())
        }
        Err(e) if c.streamed => {
            // Members of a streamed object were visited in key order: find the first error
            // in text order, as the buffered pass (and the `Value` parser) report it.
            let mut again = Canon::new(text, None, usize::MAX);
            Err(again.document(max_depth).err().unwrap_or(e))
        }
        Err(e) => Err(e),
    }
}

fn utf8(input: &[u8]) -> Result<&str> {
    std::str::from_utf8(input).map_err(|e| {
        error_at(
            input,
            e.valid_up_to(),
            JcsErrorKind::InvalidUtf8,
            "invalid UTF-8",
        )
    })
}

fn error_at(input: &[u8], pos: usize, kind: JcsErrorKind, message: &str) -> JcsError {
    let upto = &input[..pos.min(input.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = upto.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    JcsError {
        kind,
        message: message.to_owned(),
        line,
        column: pos.saturating_sub(line_start) + 1,
    }
}

/// A member of an open buffered object, already written to the output buffer.
struct Written<'a> {
    key: Cow<'a, str>,
    /// Input offset of the key, for the duplicate-member error.
    at: usize,
    /// Output range of `"key":value`.
    start: usize,
    end: usize,
}

/// A member of a streamed object, found by the first scan.
struct Found<'a> {
    key: Cow<'a, str>,
    at: usize,
    /// Input range of the value (no surrounding whitespace).
    value: usize,
    end: usize,
}

/// How many member-name sequences are remembered, and up to how many members each.
const SHAPES: usize = 8;
const SHAPE_MAX_MEMBERS: usize = 32;

/// An object's member names in text order, with the order that sorts them: documents of many
/// records repeat a few such sequences, and recognizing one (an equality test per name) is
/// cheaper than sorting it again and checking it for duplicates.
struct Shape {
    keys: Vec<Box<str>>,
    order: Vec<usize>,
}

impl Shape {
    fn matches(&self, written: &[Written<'_>]) -> bool {
        self.keys.len() == written.len()
            && self.keys.iter().zip(written).all(|(k, w)| **k == *w.key)
    }
}

/// Keeps a sorted sequence of names for next time, replacing the oldest.
fn remember(shapes: &mut Vec<Shape>, next: &mut usize, written: &[Written<'_>], order: &[usize]) {
    if written.len() > SHAPE_MAX_MEMBERS {
        return;
    }
    let shape = Shape {
        keys: written.iter().map(|w| Box::from(&*w.key)).collect(),
        order: order.to_vec(),
    };
    if shapes.len() < SHAPES {
        shapes.push(shape);
    } else if let Some(slot) = shapes.get_mut(*next % SHAPES) {
        *slot = shape;
    }
    *next = next.wrapping_add(1);
}

struct Canon<'a, 's> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Canonical bytes not yet handed to the sink (all of them without a sink).
    buf: Vec<u8>,
    sink: Option<&'s mut dyn Sink>,
    /// Open buffered objects: while any is open, `buf` may still be reordered.
    held: usize,
    /// Members of every open buffered object, innermost last.
    members: Vec<Written<'a>>,
    /// Copy of an object's members while they are rewritten in order.
    scratch: Vec<u8>,
    /// The text-order indices of the members being rewritten, in key order.
    order: Vec<usize>,
    /// Recently sorted member-name sequences (a ring of [`SHAPES`]).
    shapes: Vec<Shape>,
    next_shape: usize,
    stream_min: usize,
    /// Whether a streamed object was entered (errors may then be out of text order).
    streamed: bool,
}

impl<'a, 's> Canon<'a, 's> {
    fn new(text: &'a str, sink: Option<&'s mut dyn Sink>, stream_min: usize) -> Self {
        let with_sink = sink.is_some();
        Canon {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            buf: Vec::with_capacity(if with_sink { 2 * CHUNK } else { 0 }),
            sink,
            held: 0,
            members: Vec::new(),
            scratch: Vec::new(),
            order: Vec::new(),
            shapes: Vec::new(),
            next_shape: 0,
            stream_min,
            streamed: false,
        }
    }

    /// The whole input: one value between optional whitespace.
    fn document(&mut self, max_depth: usize) -> Result<()> {
        self.skip_ws();
        let span = self.bytes.len() - self.pos;
        self.member_value(max_depth, span)?;
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.err(JcsErrorKind::TrailingCharacters, "trailing characters"));
        }
        Ok(())
    }

    /// Hands the buffered bytes to the sink once enough have gathered and none can move.
    #[inline]
    fn maybe_flush(&mut self) {
        if self.held == 0 && self.buf.len() >= CHUNK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            sink.put(&self.buf);
            self.buf.clear();
        }
    }

    fn err(&self, kind: JcsErrorKind, message: &str) -> JcsError {
        error_at(self.bytes, self.pos, kind, message)
    }

    fn eof_or(&self, message: &str) -> JcsError {
        if self.pos >= self.bytes.len() {
            self.err(JcsErrorKind::UnexpectedEof, "EOF while parsing a value")
        } else {
            self.err(JcsErrorKind::Syntax, message)
        }
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// A value that may be streamed: an object of at least `stream_min` input bytes (`span`
    /// bounds it) while nothing buffered is open.
    fn member_value(&mut self, depth_left: usize, span: usize) -> Result<()> {
        if self.peek() == Some(b'{')
            && self.sink.is_some()
            && self.held == 0
            && span >= self.stream_min
        {
            self.streamed_object(depth_left)
        } else {
            self.value(depth_left)
        }
    }

    fn value(&mut self, depth_left: usize) -> Result<()> {
        match self.peek() {
            Some(b'{') => self.object(depth_left),
            Some(b'[') => self.array(depth_left),
            Some(b'"') => {
                let s = self.string()?;
                self.put_string(&s);
                Ok(())
            }
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.eof_or("expected value")),
        }
    }

    /// Writes a decoded string; one without escapes (borrowed) is already canonical.
    #[allow(clippy::ptr_arg)] // the variant is the information: borrowed means no escapes
    #[inline]
    fn put_string(&mut self, s: &Cow<'a, str>) {
        match s {
            Cow::Borrowed(s) => {
                self.buf.reserve(s.len() + 2);
                self.buf.push(b'"');
                self.buf.extend_from_slice(s.as_bytes());
                self.buf.push(b'"');
            }
            Cow::Owned(s) => write_string(s, &mut self.buf),
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<()> {
        let end = self.pos + word.len();
        if self.bytes.get(self.pos..end) == Some(word.as_bytes()) {
            self.pos = end;
            self.buf.extend_from_slice(word.as_bytes());
            Ok(())
        } else if end > self.bytes.len() && word.as_bytes().starts_with(&self.bytes[self.pos..]) {
            self.pos = self.bytes.len();
            Err(self.eof_or(""))
        } else {
            Err(self.err(JcsErrorKind::Syntax, "expected value"))
        }
    }

    fn nested(&self, depth_left: usize) -> Result<usize> {
        depth_left.checked_sub(1).ok_or_else(|| {
            self.err(
                JcsErrorKind::TooDeep,
                "arrays and objects nest deeper than the limit",
            )
        })
    }

    fn array(&mut self, depth_left: usize) -> Result<()> {
        let inner = self.nested(depth_left)?;
        self.pos += 1;
        self.buf.push(b'[');
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.buf.push(b']');
            return Ok(());
        }
        loop {
            self.skip_ws();
            self.value(inner)?;
            self.maybe_flush();
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.buf.push(b',');
                }
                Some(b']') => {
                    self.pos += 1;
                    self.buf.push(b']');
                    return Ok(());
                }
                _ => return Err(self.eof_or("expected `,` or `]`")),
            }
        }
    }

    /// `"key"` and `:` of the next member, with the whitespace around them.
    fn member_key(&mut self) -> Result<(Cow<'a, str>, usize)> {
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return Err(self.eof_or("key must be a string"));
        }
        let at = self.pos;
        let key = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.eof_or("expected `:`"));
        }
        self.pos += 1;
        self.skip_ws();
        Ok((key, at))
    }

    /// After a member: `true` at `}` (consumed), `false` at `,` (consumed).
    fn member_end(&mut self) -> Result<bool> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b'}') => {
                self.pos += 1;
                Ok(true)
            }
            _ => Err(self.eof_or("expected `,` or `}`")),
        }
    }

    /// An object written in text order into `buf`, then reordered in place when it closes.
    fn object(&mut self, depth_left: usize) -> Result<()> {
        let inner = self.nested(depth_left)?;
        self.pos += 1;
        self.buf.push(b'{');
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.buf.push(b'}');
            return Ok(());
        }
        self.held += 1;
        let base = self.members.len();
        loop {
            let (key, at) = self.member_key()?;
            let start = self.buf.len();
            self.put_string(&key);
            self.buf.push(b':');
            self.value(inner)?;
            let end = self.buf.len();
            self.members.push(Written {
                key,
                at,
                start,
                end,
            });
            if self.member_end()? {
                break;
            }
            self.buf.push(b',');
        }
        self.held -= 1;
        self.order_members(base)?;
        self.members.truncate(base);
        self.buf.push(b'}');
        Ok(())
    }

    /// Puts the members written since `base` into UTF-16 key order, refusing duplicates.
    fn order_members(&mut self, base: usize) -> Result<()> {
        let written = &self.members[base..];
        let high = written.iter().any(|m| has_high(&m.key));
        if written
            .windows(2)
            .all(|w| key_cmp(high, &w[0].key, &w[1].key) == Ordering::Less)
        {
            return Ok(());
        }
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        if let Some(shape) = self.shapes.iter().find(|s| s.matches(written)) {
            // The same names in the same text order as an object already sorted and checked.
            order.extend_from_slice(&shape.order);
        } else {
            order.extend(0..written.len());
            order.sort_by(|&a, &b| key_cmp(high, &written[a].key, &written[b].key));
            if let Some(w) = order
                .windows(2)
                .find(|w| written[w[0]].key == written[w[1]].key)
            {
                let (a, b) = (&written[w[0]], &written[w[1]]);
                return Err(duplicate(self.bytes, &a.key, a.at.max(b.at)));
            }
            remember(&mut self.shapes, &mut self.next_shape, written, &order);
        }
        let region = written[0].start;
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.buf[region..]);
        self.buf.truncate(region);
        for (i, &k) in order.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            let m = &self.members[base + k];
            self.buf
                .extend_from_slice(&self.scratch[m.start - region..m.end - region]);
        }
        self.order = order;
        Ok(())
    }

    /// A large object: find its members first, then canonicalize their values in key order
    /// straight to the output, so none of it waits in `buf`.
    fn streamed_object(&mut self, depth_left: usize) -> Result<()> {
        let inner = self.nested(depth_left)?;
        self.streamed = true;
        self.pos += 1;
        self.skip_ws();
        let mut found: Vec<Found<'a>> = Vec::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                let (key, at) = self.member_key()?;
                let value = self.pos;
                self.skip_value()?;
                found.push(Found {
                    key,
                    at,
                    value,
                    end: self.pos,
                });
                if self.member_end()? {
                    break;
                }
            }
        }
        let close = self.pos;
        let high = found.iter().any(|m| has_high(&m.key));
        found.sort_by(|a, b| key_cmp(high, &a.key, &b.key));
        if let Some(w) = found.windows(2).find(|w| w[0].key == w[1].key) {
            return Err(duplicate(self.bytes, &w[0].key, w[0].at.max(w[1].at)));
        }
        self.buf.push(b'{');
        for (i, m) in found.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            self.put_string(&m.key);
            self.buf.push(b':');
            self.pos = m.value;
            self.member_value(inner, m.end - m.value)?;
            if self.pos != m.end {
                // The scan took more for this value than the parser did (`1x`, `"a" "b"`).
                return Err(self.err(JcsErrorKind::Syntax, "expected `,` or `}`"));
            }
            self.maybe_flush();
        }
        self.buf.push(b'}');
        self.pos = close;
        Ok(())
    }

    /// Moves past one value without checking it (the parser checks it afterwards): a string,
    /// a bracketed structure by counting brackets outside strings, or a scalar up to the next
    /// delimiter. Fails only at the end of the input.
    fn skip_value(&mut self) -> Result<()> {
        let bytes = self.bytes;
        let mut i = self.pos;
        let mut depth = 0usize;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'"' => i = skip_string(bytes, i + 1),
                b'{' | b'[' => {
                    depth += 1;
                    i += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    i += 1;
                }
                b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => break,
                _ => i += 1,
            }
            if depth == 0 && (b == b'"' || b == b'}' || b == b']') {
                break;
            }
        }
        self.pos = i.min(bytes.len());
        if self.pos >= bytes.len() {
            return Err(self.eof_or(""));
        }
        Ok(())
    }

    fn string(&mut self) -> Result<Cow<'a, str>> {
        self.pos += 1;
        let start = self.pos;
        let stop = find_special(&self.bytes[start..]);
        self.pos = start + stop;
        match self.peek() {
            None => return Err(self.eof_or("")),
            Some(b'"') => {
                let s = &self.text[start..self.pos];
                self.pos += 1;
                return Ok(Cow::Borrowed(s));
            }
            Some(b'\\') => {}
            Some(_) => return Err(control_character(self)),
        }
        let mut owned = String::with_capacity(self.pos - start + 16);
        owned.push_str(&self.text[start..self.pos]);
        loop {
            let run = self.pos;
            self.pos += find_special(&self.bytes[run..]);
            owned.push_str(&self.text[run..self.pos]);
            match self.peek() {
                None => return Err(self.eof_or("")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(owned));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut owned)?;
                }
                Some(_) => return Err(control_character(self)),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<()> {
        let Some(b) = self.peek() else {
            return Err(self.eof_or(""));
        };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.unicode_escape()?,
            _ => return Err(self.err(JcsErrorKind::Syntax, "invalid escape")),
        };
        out.push(c);
        Ok(())
    }

    /// The character of a `\u` escape (its `\u` consumed), joining a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char> {
        let lone = |p: &Self| {
            p.err(
                JcsErrorKind::LoneSurrogate,
                "lone UTF-16 surrogate in \\u escape",
            )
        };
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                    // Cut off where the low half would begin: the end of the input, as the
                    // value path reports it.
                    if matches!(&self.bytes[self.pos..], b"" | b"\\") {
                        self.pos = self.bytes.len();
                        return Err(self.eof_or(""));
                    }
                    return Err(lone(self));
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(lone(self));
                }
                let cp = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                char::from_u32(cp)
                    .ok_or_else(|| self.err(JcsErrorKind::LoneSurrogate, "invalid surrogate pair"))
            }
            0xDC00..=0xDFFF => Err(lone(self)),
            cp => {
                char::from_u32(cp).ok_or_else(|| self.err(JcsErrorKind::Syntax, "invalid escape"))
            }
        }
    }

    fn hex4(&mut self) -> Result<u32> {
        // Fewer than four bytes left is the end of the input, whatever they are (as serde_json
        // reports it, so both paths agree).
        if self.bytes.len() - self.pos < 4 {
            self.pos = self.bytes.len();
            return Err(self.eof_or(""));
        }
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(b) = self.peek() else {
                return Err(self.eof_or(""));
            };
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.err(JcsErrorKind::Syntax, "invalid \\u escape")),
            };
            v = (v << 4) | u32::from(d);
            self.pos += 1;
        }
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<()> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return Err(self.err(JcsErrorKind::Syntax, "invalid number (leading zero)"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.eof_or("invalid number")),
        }
        let int_len = self.pos - int_start;
        let mut simple = true;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            simple = false;
            if self.digits() == 0 {
                return Err(self.eof_or("invalid number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            simple = false;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.eof_or("invalid number"));
            }
        }
        let raw = &self.text[start..self.pos];
        // JSON forbids leading zeros, so a short integer is already in canonical form;
        // 15 digits stay below 2^53, where every integer is an exact double.
        if simple && int_len <= 15 && raw != "-0" {
            self.buf.extend_from_slice(raw.as_bytes());
            return Ok(());
        }
        match raw.parse::<f64>() {
            Ok(f) if f.is_finite() => {
                write_f64(f, &mut self.buf);
                Ok(())
            }
            _ => Err(error_at(
                self.bytes,
                start,
                JcsErrorKind::NumberOutOfRange,
                "number out of range",
            )),
        }
    }
}

fn control_character(p: &Canon<'_, '_>) -> JcsError {
    p.err(
        JcsErrorKind::Syntax,
        "control character (\\u0000-\\u001F) found while parsing a string",
    )
}

/// Index of the first `"`, `\` or control character in `bytes`, else its length.
#[inline]
fn find_special(bytes: &[u8]) -> usize {
    // Eight bytes at a time: most strings are short runs of plain text.
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let quote = w ^ (ONES * u64::from(b'"'));
        let slash = w ^ (ONES * u64::from(b'\\'));
        // A byte is flagged when it is zero after the xor (the character), or below 0x20.
        let zero_quote = quote.wrapping_sub(ONES) & !quote;
        let zero_slash = slash.wrapping_sub(ONES) & !slash;
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        let hit = (zero_quote | zero_slash | control) & HIGH;
        if hit != 0 {
            // The lowest flagged byte is exact; later flags may be borrow artifacts, unused.
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

/// Index just past the string whose contents start at `i` (or the input's length).
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    loop {
        i += find_special(&bytes[i.min(bytes.len())..]);
        match bytes.get(i) {
            None => return bytes.len(),
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
        }
    }
}

/// Whether a key holds a character at or above U+E000, where UTF-8 and UTF-16 order differ.
fn has_high(key: &str) -> bool {
    key.bytes().any(|b| b >= 0xEE)
}

fn key_cmp(high: bool, a: &str, b: &str) -> Ordering {
    if high {
        utf16_cmp(a, b)
    } else {
        a.as_bytes().cmp(b.as_bytes())
    }
}

fn duplicate(input: &[u8], key: &str, at: usize) -> JcsError {
    let shown: String = key.chars().take(64).collect();
    error_at(
        input,
        at,
        JcsErrorKind::DuplicateMember,
        &format!("duplicate member name {shown:?}"),
    )
}

#[cfg(test)]
mod tests;
