//! `sha256:` digests over RFC 8785 canonical JSON.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::jcs::{self, JcsError, ParseOptions, Sink};

const PREFIX: &str = "sha256:";

/// A SHA-256 fingerprint written as `sha256:` + 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

/// A string that is not `sha256:` followed by exactly 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid digest {shown:?}: expected \"sha256:\" followed by 64 lowercase hex digits")]
pub struct DigestParseError {
    shown: String,
}

impl Digest {
    /// The SHA-256 of raw bytes (callers pass canonical JSON).
    pub fn of_bytes(bytes: &[u8]) -> Self {
        Digest(Sha256::digest(bytes).into())
    }

    /// The 32 raw digest bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Parses the wire form, rejecting uppercase hex, other algorithms and wrong lengths.
    pub fn parse(s: &str) -> Result<Self, DigestParseError> {
        let err = || DigestParseError {
            shown: s.chars().take(80).collect(),
        };
        let hex = s.strip_prefix(PREFIX).ok_or_else(err)?;
        if hex.len() != 64 {
            return Err(err());
        }
        let mut out = [0u8; 32];
        for (i, pair) in hex.as_bytes().chunks_exact(2).enumerate() {
            let hi = lower_hex_value(pair[0]).ok_or_else(err)?;
            let lo = lower_hex_value(pair[1]).ok_or_else(err)?;
            out[i] = (hi << 4) | lo;
        }
        Ok(Digest(out))
    }
}

fn lower_hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

/// `sha256:` digest of the RFC 8785 serialization of `value`.
pub fn digest(value: &Value) -> Digest {
    Digest::of_bytes(&jcs::to_canonical_vec(value))
}

/// `sha256:` digest of the RFC 8785 form of JSON text, strictly parsed (default depth limit).
///
/// The canonical bytes are hashed as they are produced, never held whole, so a large input costs
/// little more memory than itself.
pub fn digest_text(bytes: &[u8]) -> Result<Digest, JcsError> {
    digest_text_with(bytes, ParseOptions::default())
}

/// [`digest_text`] with parse options.
pub fn digest_text_with(bytes: &[u8], options: ParseOptions) -> Result<Digest, JcsError> {
    let mut hash = HashSink(Sha256::new());
    jcs::canonicalize_into(bytes, options, &mut hash)?;
    Ok(Digest(hash.0.finalize().into()))
}

/// Feeds canonical bytes straight into SHA-256.
struct HashSink(Sha256);

impl Sink for HashSink {
    fn put(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// A [`Sink`] that hashes what a canonical writer puts into it, for writers that walk values
/// of their own (the Python package walks Python objects): [`Hasher::finish`] is the digest of
/// everything put, in order, without the canonical bytes ever being held whole.
///
/// Writers put many small pieces (a comma, a quote, a short name); they are gathered into a
/// buffer of [`Hasher::BUFFER`] bytes and hashed in large blocks, which costs less than one
/// SHA-256 update per piece.
pub struct Hasher {
    sha: Sha256,
    buf: Vec<u8>,
}

impl Hasher {
    /// Bytes gathered before they are hashed.
    pub const BUFFER: usize = 64 * 1024;

    /// A hasher with nothing put yet (`finish` would give the digest of no bytes).
    pub fn new() -> Self {
        Hasher {
            sha: Sha256::new(),
            buf: Vec::with_capacity(Self::BUFFER),
        }
    }

    /// The `sha256:` digest of every byte put.
    pub fn finish(mut self) -> Digest {
        self.sha.update(&self.buf);
        Digest(self.sha.finalize().into())
    }
}

impl Default for Hasher {
    fn default() -> Self {
        Self::new()
    }
}

impl Sink for Hasher {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > Self::BUFFER {
            self.sha.update(&self.buf);
            self.buf.clear();
            if bytes.len() >= Self::BUFFER {
                self.sha.update(bytes);
                return;
            }
        }
        self.buf.extend_from_slice(bytes);
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut buf = [0u8; 71];
        buf[..7].copy_from_slice(PREFIX.as_bytes());
        for (i, b) in self.0.iter().enumerate() {
            buf[7 + 2 * i] = HEX[(b >> 4) as usize];
            buf[8 + 2 * i] = HEX[(b & 0xf) as usize];
        }
        // The buffer holds only ASCII.
        f.write_str(std::str::from_utf8(&buf).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

impl FromStr for Digest {
    type Err = DigestParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Digest::parse(s)
    }
}

impl Serialize for Digest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Digest::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hasher_gathers_pieces_into_the_digest_of_their_concatenation() {
        // Pieces around the buffer's size: small ones, one that crosses it, one larger than it.
        let pieces: Vec<Vec<u8>> = vec![
            b"{".to_vec(),
            vec![b'a'; Hasher::BUFFER - 3],
            vec![b'b'; 10],
            vec![b'c'; Hasher::BUFFER * 2 + 1],
            b"}".to_vec(),
        ];
        let mut hasher = Hasher::new();
        for p in &pieces {
            hasher.put(p);
        }
        assert_eq!(hasher.finish(), Digest::of_bytes(&pieces.concat()));
        assert_eq!(Hasher::new().finish(), Digest::of_bytes(b""));
    }

    #[test]
    fn digest_of_known_value() {
        // sha256("{}") computed independently with coreutils: printf '{}' | sha256sum
        let d = digest(&json!({}));
        assert_eq!(
            d.to_string(),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        assert_eq!(Digest::parse(&d.to_string()).unwrap(), d);
    }

    #[test]
    fn digest_ignores_order_and_whitespace() {
        let a: Value = serde_json::from_str(r#"{"b": [1, 2], "a": "x"}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":"x","b":[1,2]}"#).unwrap();
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&json!({"a": "y", "b": [1, 2]})));
    }

    #[test]
    fn parse_rejects_everything_but_the_exact_form() {
        let good = "sha256:".to_owned() + &"a".repeat(64);
        assert!(Digest::parse(&good).is_ok());
        for bad in [
            "".to_owned(),
            "sha256:".to_owned(),
            "sha256:".to_owned() + &"A".repeat(64),
            "sha256:".to_owned() + &"a".repeat(63),
            "sha256:".to_owned() + &"a".repeat(65),
            "sha512:".to_owned() + &"a".repeat(64),
            "SHA256:".to_owned() + &"a".repeat(64),
            " sha256:".to_owned() + &"a".repeat(64),
            "sha256:".to_owned() + &"g".repeat(64),
            "sha256:".to_owned() + &"é".repeat(32),
        ] {
            assert!(Digest::parse(&bad).is_err(), "{bad:?} accepted");
        }
    }
}
