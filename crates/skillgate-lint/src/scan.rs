//! A position-recording JSON scanner.
//!
//! The strict core parser stops at the first duplicate member; a linter must report every one,
//! with its JSON Pointer, and must map pointers back to lines for text and SARIF output. The
//! scanner checks syntax, records the position of every value and every repeated member, and
//! refuses nesting beyond a limit before recursing, so that no input can exhaust the stack.

use std::collections::{HashMap, HashSet};

/// Where something is in the input (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// A member name seen twice in one object.
#[derive(Debug, Clone)]
pub struct Duplicate {
    /// JSON Pointer of the repeated member.
    pub pointer: String,
    /// Where the repetition starts.
    pub pos: Pos,
    /// Where the first occurrence starts.
    pub first: Pos,
}

/// Why the scan stopped.
#[derive(Debug, Clone)]
pub enum ScanError {
    /// Not JSON (or not I-JSON: a lone surrogate).
    Syntax {
        /// What is wrong.
        message: String,
        /// Where.
        pos: Pos,
    },
    /// Nested deeper than the limit.
    TooDeep {
        /// Pointer of the value that went over the limit.
        pointer: String,
        /// Where.
        pos: Pos,
    },
}

/// The result of a successful scan.
#[derive(Debug, Default)]
pub struct Scan {
    /// Every repeated member, in document order.
    pub duplicates: Vec<Duplicate>,
    /// Start position of every value, by JSON Pointer (the first occurrence wins).
    pub positions: HashMap<String, Pos>,
}

/// Escapes one reference token (RFC 6901).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Scans `bytes` as one JSON text.
pub fn scan(bytes: &[u8], max_depth: usize) -> Result<Scan, ScanError> {
    let mut s = Scanner {
        bytes,
        i: 0,
        line: 1,
        column: 1,
        max_depth,
        out: Scan::default(),
    };
    s.skip_ws();
    let mut pointer = String::new();
    s.value(&mut pointer, 0)?;
    s.skip_ws();
    if s.i < s.bytes.len() {
        return Err(s.syntax("trailing characters after the JSON value"));
    }
    Ok(s.out)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    i: usize,
    line: usize,
    column: usize,
    max_depth: usize,
    out: Scan,
}

impl Scanner<'_> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn syntax(&self, message: &str) -> ScanError {
        ScanError::Syntax {
            message: message.to_string(),
            pos: self.pos(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.i += 1;
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if b & 0xC0 != 0x80 {
                // Continuation bytes do not start a character.
                self.column += 1;
            }
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.bump();
        }
    }

    fn expect(&mut self, b: u8, what: &str) -> Result<(), ScanError> {
        if self.peek() == Some(b) {
            self.bump();
            Ok(())
        } else if self.peek().is_none() {
            Err(self.syntax(&format!("unexpected end of input, expected {what}")))
        } else {
            Err(self.syntax(&format!("expected {what}")))
        }
    }

    fn value(&mut self, pointer: &mut String, depth: usize) -> Result<(), ScanError> {
        let start = self.pos();
        self.out.positions.entry(pointer.clone()).or_insert(start);
        match self.peek() {
            None => Err(self.syntax("unexpected end of input, expected a value")),
            Some(b'{') => {
                if depth >= self.max_depth {
                    return Err(ScanError::TooDeep {
                        pointer: pointer.clone(),
                        pos: start,
                    });
                }
                self.object(pointer, depth + 1)
            }
            Some(b'[') => {
                if depth >= self.max_depth {
                    return Err(ScanError::TooDeep {
                        pointer: pointer.clone(),
                        pos: start,
                    });
                }
                self.array(pointer, depth + 1)
            }
            Some(b'"') => self.string().map(|_| ()),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.syntax("expected a value")),
        }
    }

    fn object(&mut self, pointer: &mut String, depth: usize) -> Result<(), ScanError> {
        self.bump();
        let mut seen: HashSet<String> = HashSet::new();
        let mut first_pos: HashMap<String, Pos> = HashMap::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(());
        }
        loop {
            self.skip_ws();
            let key_pos = self.pos();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("expected a member name in double quotes"));
            }
            let key = self.string()?;
            let saved = pointer.len();
            pointer.push('/');
            pointer.push_str(&escape_token(&key));
            // A member is located by its name, where editors and code-scanning UIs point.
            self.out.positions.entry(pointer.clone()).or_insert(key_pos);
            if !seen.insert(key.clone()) {
                let first = first_pos.get(&key).copied().unwrap_or(key_pos);
                self.out.duplicates.push(Duplicate {
                    pointer: pointer.clone(),
                    pos: key_pos,
                    first,
                });
            } else {
                first_pos.insert(key, key_pos);
            }
            self.skip_ws();
            self.expect(b':', "':' after a member name")?;
            self.skip_ws();
            self.value(pointer, depth)?;
            pointer.truncate(saved);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b'}') => {
                    self.bump();
                    return Ok(());
                }
                None => return Err(self.syntax("unexpected end of input in an object")),
                Some(_) => return Err(self.syntax("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, pointer: &mut String, depth: usize) -> Result<(), ScanError> {
        self.bump();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(());
        }
        let mut index = 0usize;
        loop {
            self.skip_ws();
            let saved = pointer.len();
            pointer.push('/');
            pointer.push_str(&index.to_string());
            self.value(pointer, depth)?;
            pointer.truncate(saved);
            index += 1;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    return Ok(());
                }
                None => return Err(self.syntax("unexpected end of input in an array")),
                Some(_) => return Err(self.syntax("expected ',' or ']'")),
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), ScanError> {
        for &b in word {
            if self.peek() != Some(b) {
                return Err(self.syntax("invalid literal"));
            }
            self.bump();
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let mut n = 0;
        while let Some(b'0'..=b'9') = self.peek() {
            self.bump();
            n += 1;
        }
        n
    }

    fn number(&mut self) -> Result<(), ScanError> {
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => self.bump(),
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.syntax("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.bump();
            if self.digits() == 0 {
                return Err(self.syntax("invalid number: digits expected after '.'"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.bump();
            if let Some(b'+' | b'-') = self.peek() {
                self.bump();
            }
            if self.digits() == 0 {
                return Err(self.syntax("invalid number: digits expected in the exponent"));
            }
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ScanError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.syntax("invalid \\u escape")),
            };
            v = v * 16 + u32::from(d);
            self.bump();
        }
        Ok(v)
    }

    /// Reads a string and returns its decoded value (needed to compare member names: `"\u0061"`
    /// and `"a"` are the same name).
    fn string(&mut self) -> Result<String, ScanError> {
        self.bump();
        let mut out: Vec<u8> = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.syntax("unexpected end of input in a string")),
                Some(b'"') => {
                    self.bump();
                    break;
                }
                Some(b'\\') => {
                    self.bump();
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.bump();
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.peek() != Some(b'\\') {
                                    return Err(self.syntax("lone surrogate in \\u escape"));
                                }
                                self.bump();
                                if self.peek() != Some(b'u') {
                                    return Err(self.syntax("lone surrogate in \\u escape"));
                                }
                                self.bump();
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.syntax("lone surrogate in \\u escape"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.syntax("lone surrogate in \\u escape"));
                            } else {
                                hi
                            };
                            let ch = char::from_u32(code)
                                .ok_or_else(|| self.syntax("invalid \\u escape"))?;
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                            continue;
                        }
                        _ => return Err(self.syntax("invalid escape")),
                    };
                    self.bump();
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(b) if b < 0x20 => {
                    return Err(self.syntax("control character in a string"));
                }
                Some(b) => {
                    out.push(b);
                    self.bump();
                }
            }
        }
        String::from_utf8(out).map_err(|_| self.syntax("invalid UTF-8 in a string"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_duplicate_with_its_pointer() {
        let s = scan(
            br#"{"a":1,"b":{"x":1,"x":2,"x":3},"\u0061":2,"c":[{"k/~":1,"k/~":2}]}"#,
            100,
        )
        .unwrap();
        let ptrs: Vec<_> = s.duplicates.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(ptrs, ["/b/x", "/b/x", "/a", "/c/0/k~1~0"]);
    }

    #[test]
    fn records_positions() {
        let s = scan(b"{\n  \"a\": [1,\n  2]}", 100).unwrap();
        assert_eq!(s.positions["/a/1"], Pos { line: 3, column: 3 });
        assert_eq!(s.positions[""], Pos { line: 1, column: 1 });
    }

    #[test]
    fn depth_limit_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(matches!(
            scan(deep.as_bytes(), 100),
            Err(ScanError::TooDeep { .. })
        ));
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(scan(ok.as_bytes(), 100).is_ok());
        let over = format!("{}{}", "[".repeat(101), "]".repeat(101));
        assert!(scan(over.as_bytes(), 100).is_err());
    }

    #[test]
    fn syntax_errors_have_positions() {
        for bad in [
            "",
            "{",
            "{\"a\"",
            "{\"a\":}",
            "[1,]",
            "01",
            "1.",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "tru",
            "{} x",
            "\"a\u{1}\"",
        ] {
            assert!(
                matches!(scan(bad.as_bytes(), 100), Err(ScanError::Syntax { .. })),
                "{bad:?}"
            );
        }
    }
}
