//! Canonicalization straight from text, without building a `serde_json::Value`.
//!
//! Hashing a document received as bytes is the hot path of every describe_skill and every
//! client check. Parsing into a borrowed tree (strings without escapes are slices of the input,
//! integers that are already canonical are copied verbatim) and sorting members in place makes
//! this path several times faster than parse-then-serialize, with the same strictness: sorting
//! the members is also how duplicates are found.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::jcs::{utf16_cmp, write_f64, write_string, JcsError, JcsErrorKind};

enum Node<'a> {
    Null,
    True,
    False,
    /// Already canonical text (an integer of at most 15 digits).
    RawNumber(&'a str),
    Number(f64),
    Str(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Vec<Member<'a>>),
}

struct Member<'a> {
    key: Cow<'a, str>,
    /// Byte offset of the key, for the duplicate-member error.
    at: usize,
    value: Node<'a>,
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

type Result<T> = std::result::Result<T, JcsError>;

/// Canonicalizes I-JSON text; errors carry the same kinds as [`crate::jcs::parse_strict`].
pub(crate) fn canonicalize_text(input: &[u8], max_depth: usize) -> Result<Vec<u8>> {
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => {
            return Err(error_at(
                input,
                e.valid_up_to(),
                JcsErrorKind::InvalidUtf8,
                "invalid UTF-8",
            ))
        }
    };
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    p.skip_ws();
    let node = p.value(max_depth)?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.err(JcsErrorKind::TrailingCharacters, "trailing characters"));
    }
    let mut out = Vec::with_capacity(input.len());
    write_node(&node, &mut out);
    Ok(out)
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

impl<'a> Parser<'a> {
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

    fn value(&mut self, depth_left: usize) -> Result<Node<'a>> {
        match self.peek() {
            Some(b'{') => self.object(depth_left),
            Some(b'[') => self.array(depth_left),
            Some(b'"') => Ok(Node::Str(self.string()?)),
            Some(b't') => self.literal("true", Node::True),
            Some(b'f') => self.literal("false", Node::False),
            Some(b'n') => self.literal("null", Node::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.eof_or("expected value")),
        }
    }

    fn literal(&mut self, word: &'static str, node: Node<'a>) -> Result<Node<'a>> {
        let end = self.pos + word.len();
        if self.bytes.get(self.pos..end) == Some(word.as_bytes()) {
            self.pos = end;
            Ok(node)
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

    fn array(&mut self, depth_left: usize) -> Result<Node<'a>> {
        let inner = self.nested(depth_left)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Node::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(inner)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Node::Array(items));
                }
                _ => return Err(self.eof_or("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth_left: usize) -> Result<Node<'a>> {
        let inner = self.nested(depth_left)?;
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Node::Object(members));
        }
        loop {
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
            let value = self.value(inner)?;
            members.push(Member { key, at, value });
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.eof_or("expected `,` or `}`")),
            }
        }
        self.sort_members(&mut members)?;
        Ok(Node::Object(members))
    }

    /// Sorts members into UTF-16 order and refuses duplicate names.
    fn sort_members(&self, members: &mut [Member<'a>]) -> Result<()> {
        let high = members.iter().any(|m| m.key.bytes().any(|b| b >= 0xEE));
        let cmp = |a: &Member<'_>, b: &Member<'_>| -> Ordering {
            if high {
                utf16_cmp(&a.key, &b.key)
            } else {
                a.key.as_bytes().cmp(b.key.as_bytes())
            }
        };
        let sorted = members
            .windows(2)
            .all(|w| cmp(&w[0], &w[1]) == Ordering::Less);
        if sorted {
            return Ok(());
        }
        members.sort_by(cmp);
        if let Some(w) = members.windows(2).find(|w| w[0].key == w[1].key) {
            let at = w[0].at.max(w[1].at);
            let shown: String = w[0].key.chars().take(64).collect();
            return Err(error_at(
                self.bytes,
                at,
                JcsErrorKind::DuplicateMember,
                &format!("duplicate member name {shown:?}"),
            ));
        }
        Ok(())
    }

    fn string(&mut self) -> Result<Cow<'a, str>> {
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.eof_or("")),
                Some(b'"') => {
                    let s = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => break,
                Some(0x00..=0x1F) => {
                    return Err(self.err(
                        JcsErrorKind::Syntax,
                        "control character (\\u0000-\\u001F) found while parsing a string",
                    ))
                }
                Some(_) => self.pos += 1,
            }
        }
        let mut owned = String::with_capacity(self.pos - start + 16);
        owned.push_str(&self.text[start..self.pos]);
        loop {
            let run = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
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
                Some(_) => {
                    return Err(self.err(
                        JcsErrorKind::Syntax,
                        "control character (\\u0000-\\u001F) found while parsing a string",
                    ))
                }
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
            b'u' => {
                let first = self.hex4()?;
                match first {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return Err(self.err(
                                JcsErrorKind::LoneSurrogate,
                                "lone UTF-16 surrogate in \\u escape",
                            ));
                        }
                        self.pos += 2;
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(self.err(
                                JcsErrorKind::LoneSurrogate,
                                "lone UTF-16 surrogate in \\u escape",
                            ));
                        }
                        let cp = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                        char::from_u32(cp).ok_or_else(|| {
                            self.err(JcsErrorKind::LoneSurrogate, "invalid surrogate pair")
                        })?
                    }
                    0xDC00..=0xDFFF => {
                        return Err(self.err(
                            JcsErrorKind::LoneSurrogate,
                            "lone UTF-16 surrogate in \\u escape",
                        ))
                    }
                    cp => char::from_u32(cp)
                        .ok_or_else(|| self.err(JcsErrorKind::Syntax, "invalid escape"))?,
                }
            }
            _ => return Err(self.err(JcsErrorKind::Syntax, "invalid escape")),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32> {
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

    fn number(&mut self) -> Result<Node<'a>> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
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
            return Ok(Node::RawNumber(raw));
        }
        match raw.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Node::Number(f)),
            _ => Err(error_at(
                self.bytes,
                start,
                JcsErrorKind::NumberOutOfRange,
                "number out of range",
            )),
        }
    }
}

fn write_node(node: &Node<'_>, out: &mut Vec<u8>) {
    match node {
        Node::Null => out.extend_from_slice(b"null"),
        Node::True => out.extend_from_slice(b"true"),
        Node::False => out.extend_from_slice(b"false"),
        Node::RawNumber(raw) => out.extend_from_slice(raw.as_bytes()),
        Node::Number(f) => write_f64(*f, out),
        Node::Str(s) => write_string(s, out),
        Node::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_node(item, out);
            }
            out.push(b']');
        }
        Node::Object(members) => {
            out.push(b'{');
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(&m.key, out);
                out.push(b':');
                write_node(&m.value, out);
            }
            out.push(b'}');
        }
    }
}
