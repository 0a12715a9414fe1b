//! Strict I-JSON read straight into a typed value, without a `serde_json::Value` first.
//!
//! [`crate::jcs::parse_strict_with`] builds a `Value` so it can refuse duplicate member names
//! and nesting past a limit; a caller that wants a typed request then converts that tree again.
//! Here the same refusals are made while serde deserializes the target type: a wrapper around
//! serde_json's deserializer sees every object (each member name is checked against the others
//! of its object) and every nesting level, including members the target type ignores (they are
//! walked, not skipped, so a duplicate or a lone surrogate inside them is still found). Numbers
//! outside the double range and lone surrogates are refused by serde_json itself, as in the
//! `Value` parse.
//!
//! The wrapper is conservative: what it cannot check the way the `Value` parse does (a map key
//! that is not read as a string, a visitor it does not expect) is an error, never a pass. A
//! caller with a slower exact path can therefore use this one first and fall back to the other
//! on any error, for the same answers.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

use crate::jcs::{ParseOptions, DEPTH_TAG, DUPLICATE_TAG, MAX_DEPTH_CEILING};

/// Members of one object beyond which duplicate names are looked up in a hash set rather than
/// by comparing with each earlier name (an object of many members must not cost their square).
const LINEAR_KEYS: usize = 16;

/// Why a strict typed read failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TypedError(#[from] serde_json::Error);

impl TypedError {
    /// Whether the input itself is not strict I-JSON (syntax, duplicate member, depth, lone
    /// surrogate, number range), as opposed to JSON of another shape than the target type.
    pub fn is_json(&self) -> bool {
        !matches!(self.0.classify(), serde_json::error::Category::Data)
            || self.0.to_string().starts_with(DUPLICATE_TAG)
            || self.0.to_string().starts_with(DEPTH_TAG)
    }
}

/// Reads `bytes` as strict I-JSON into `T` in one pass: duplicate member names, nesting past
/// `options.max_depth`, numbers outside the double range, lone surrogates and trailing
/// characters are refused as [`crate::jcs::parse_strict_with`] refuses them, then `T`'s own
/// rules apply.
pub fn from_slice_strict<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    options: ParseOptions,
) -> Result<T, TypedError> {
    match std::str::from_utf8(bytes) {
        // Nearly every body: checked once here, serde_json's `str` reader need not check each
        // string again (its slice reader does, about 90 instructions a string, callgrind).
        Ok(text) => read_strict(serde_json::Deserializer::from_str(text), options),
        // Its slice reader says where the bad byte is.
        Err(_) => read_strict(serde_json::Deserializer::from_slice(bytes), options),
    }
}

/// [`from_slice_strict`] on either of serde_json's readers.
fn read_strict<'de, R: serde_json::de::Read<'de>, T: de::Deserialize<'de>>(
    mut de: serde_json::Deserializer<R>,
    options: ParseOptions,
) -> Result<T, TypedError> {
    // The wrapper enforces the configured depth; serde_json's fixed limit would cap it.
    de.disable_recursion_limit();
    let value = T::deserialize(Strict {
        de: &mut de,
        depth_left: options.max_depth.min(MAX_DEPTH_CEILING),
    })?;
    de.end()?;
    Ok(value)
}

/// A deserializer whose every visitor is wrapped in [`Checked`].
struct Strict<D> {
    de: D,
    depth_left: usize,
}

impl<D> Strict<D> {
    fn wrap<V>(&self, inner: V) -> Checked<V> {
        Checked {
            inner,
            depth_left: self.depth_left,
        }
    }
}

macro_rules! forward_plain {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            let v = self.wrap(visitor);
            self.de.$method(v)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<D> {
    type Error = D::Error;

    forward_plain! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier
    }

    /// What the target ignores is walked in full, not skipped: serde_json's skip neither
    /// builds nor checks member names, so duplicates would pass unseen.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let v = self.wrap(visitor);
        self.de.deserialize_any(v)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let v = self.wrap(visitor);
        self.de.deserialize_unit_struct(name, v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let v = self.wrap(visitor);
        self.de.deserialize_newtype_struct(name, v)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let v = self.wrap(visitor);
        self.de.deserialize_tuple(len, v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let v = self.wrap(visitor);
        self.de.deserialize_tuple_struct(name, len, v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let v = self.wrap(visitor);
        self.de.deserialize_struct(name, fields, v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let v = self.wrap(visitor);
        self.de.deserialize_enum(name, variants, v)
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// A visitor that takes a nesting level for each array and object and hands the target's
/// visitor checked access to their members.
struct Checked<V> {
    inner: V,
    depth_left: usize,
}

impl<V> Checked<V> {
    fn nested<E: de::Error>(&self) -> Result<usize, E> {
        self.depth_left
            .checked_sub(1)
            .ok_or_else(|| E::custom(format_args!("{DEPTH_TAG}the limit")))
    }
}

macro_rules! forward_value {
    ($($method:ident: $ty:ty)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Checked<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_value! {
        visit_bool: bool visit_i8: i8 visit_i16: i16 visit_i32: i32 visit_i64: i64
        visit_i128: i128 visit_u8: u8 visit_u16: u16 visit_u32: u32 visit_u64: u64
        visit_u128: u128 visit_f32: f32 visit_f64: f64 visit_char: char visit_str: &str
        visit_borrowed_str: &'de str visit_string: String visit_bytes: &[u8]
        visit_borrowed_bytes: &'de [u8] visit_byte_buf: Vec<u8>
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Strict {
            de: d,
            depth_left: self.depth_left,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Strict {
            de: d,
            depth_left: self.depth_left,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let depth_left = self.nested()?;
        self.inner.visit_seq(CheckedSeq { seq, depth_left })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let depth_left = self.nested()?;
        self.inner.visit_map(CheckedMap {
            map,
            depth_left,
            keys: Keys::default(),
        })
    }

    /// An enum in JSON is a string or a one-member object: counted as a level either way,
    /// which can only make this stricter than the `Value` parse, never laxer.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let depth_left = self.nested()?;
        self.inner.visit_enum(CheckedEnum { data, depth_left })
    }
}

/// Hands each element to a [`Strict`] deserializer.
struct CheckedSeq<A> {
    seq: A,
    depth_left: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for CheckedSeq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.seq.next_element_seed(Nested {
            seed,
            depth_left: self.depth_left,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// A seed whose value is read through a [`Strict`] deserializer.
struct Nested<T> {
    seed: T,
    depth_left: usize,
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for Nested<T> {
    type Value = T::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T::Value, D::Error> {
        self.seed.deserialize(Strict {
            de: d,
            depth_left: self.depth_left,
        })
    }
}

/// The member names read so far in one object.
#[derive(Default)]
struct Keys<'de> {
    few: Vec<Cow<'de, str>>,
    many: HashSet<Cow<'de, str>>,
}

impl<'de> Keys<'de> {
    fn insert<E: de::Error>(&mut self, key: Cow<'de, str>) -> Result<(), E> {
        let seen = if self.many.is_empty() && self.few.len() < LINEAR_KEYS {
            self.few.contains(&key)
        } else {
            if self.many.is_empty() {
                self.many.extend(self.few.drain(..));
            }
            self.many.contains(&key)
        };
        if seen {
            let shown: String = key.chars().take(64).collect();
            return Err(E::custom(format_args!("{DUPLICATE_TAG}{shown:?}")));
        }
        if self.many.is_empty() {
            self.few.push(key);
        } else {
            self.many.insert(key);
        }
        Ok(())
    }
}

/// Checks each member name against the object's others before the target sees it.
struct CheckedMap<'de, A> {
    map: A,
    depth_left: usize,
    keys: Keys<'de>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for CheckedMap<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(KeySeed {
            seed,
            keys: &mut self.keys,
        })
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.map.next_value_seed(Nested {
            seed,
            depth_left: self.depth_left,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A member name's seed: the name is recorded (and refused if repeated) as it is read.
struct KeySeed<'a, 'de, K> {
    seed: K,
    keys: &'a mut Keys<'de>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, 'de, K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyDeserializer {
            de: d,
            keys: self.keys,
        })
    }
}

/// The deserializer of one member name: every request is answered as a string read, so the
/// name's text is always seen.
struct KeyDeserializer<'a, 'de, D> {
    de: D,
    keys: &'a mut Keys<'de>,
}

macro_rules! forward_key {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.de.deserialize_any(KeyVisitor { inner: visitor, keys: self.keys })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<'_, 'de, D> {
    type Error = D::Error;

    forward_key! {
        deserialize_any deserialize_str deserialize_string deserialize_identifier
        deserialize_ignored_any
    }

    // A name is always read as a string, so it is always checked: a target that wants it as
    // something else (a number-keyed map) then refuses the string, and a caller with the
    // `Value` parse to fall back on uses that.
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum
    }
}

/// Records a member name, then passes it on.
struct KeyVisitor<'a, 'de, V> {
    inner: V,
    keys: &'a mut Keys<'de>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.keys.insert(Cow::Borrowed(v))?;
        self.inner.visit_borrowed_str(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.keys.insert(Cow::Owned(v.to_owned()))?;
        self.inner.visit_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.keys.insert(Cow::Owned(v.clone()))?;
        self.inner.visit_string(v)
    }
}

/// An enum's variant, with its content read through a [`Strict`] deserializer.
struct CheckedEnum<A> {
    data: A,
    depth_left: usize,
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for CheckedEnum<A> {
    type Error = A::Error;
    type Variant = CheckedVariant<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.data.variant_seed(seed)?;
        Ok((
            value,
            CheckedVariant {
                variant,
                depth_left: self.depth_left,
            },
        ))
    }
}

struct CheckedVariant<A> {
    variant: A,
    depth_left: usize,
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for CheckedVariant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.variant.newtype_variant_seed(Nested {
            seed,
            depth_left: self.depth_left,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.variant.tuple_variant(
            len,
            Checked {
                inner: visitor,
                depth_left: self.depth_left,
            },
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.variant.struct_variant(
            fields,
            Checked {
                inner: visitor,
                depth_left: self.depth_left,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jcs::{parse_strict_with, JcsErrorKind};
    use serde_json::Value;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Envelope {
        method: String,
        #[serde(default)]
        params: Option<Value>,
    }

    fn opts(max_depth: usize) -> ParseOptions {
        ParseOptions { max_depth }
    }

    /// Whatever the `Value` parse refuses, the typed read refuses too.
    #[test]
    fn refuses_what_the_value_parse_refuses() {
        let hostile: &[&[u8]] = &[
            br#"{"method":"a","method":"b"}"#,
            br#"{"method":"a","x":{"k":1,"k":2}}"#,
            br#"{"method":"a","x":[{"k":1,"\u006b":2}]}"#,
            br#"{"method":"a","params":{"k":1,"k":2}}"#,
            br#"{"method":"a","x":"\ud800"}"#,
            br#"{"method":"a","params":{"s":"\udc00x"}}"#,
            br#"{"method":"a","x":1e400}"#,
            br#"{"method":"a","params":{"n":-1e999}}"#,
            br#"{"method":"a"} x"#,
            br#"{"method":"a",}"#,
            b"{\"method\":\"a\",\"x\":\"\xff\"}",
            br#"{"method":"a","x":[[[[[1]]]]]}"#,
            br#"{"method":"a","params":{"a":{"b":{"c":{"d":{}}}}}}"#,
        ];
        for input in hostile {
            assert!(
                parse_strict_with(input, opts(5)).is_err(),
                "{}",
                String::from_utf8_lossy(input)
            );
            let typed = from_slice_strict::<Envelope>(input, opts(5));
            assert!(typed.is_err(), "{}", String::from_utf8_lossy(input));
            // A type that ignores everything still walks, and refuses, all of it.
            let ignored = from_slice_strict::<de::IgnoredAny>(input, opts(5));
            assert!(ignored.is_err(), "{}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn duplicates_and_depth_are_json_errors_with_the_value_parse_wording() {
        let e =
            from_slice_strict::<Envelope>(br#"{"method":"a","method":"b"}"#, opts(8)).unwrap_err();
        assert!(e.is_json());
        assert!(
            e.to_string().contains("duplicate member name \"method\""),
            "{e}"
        );
        let e =
            from_slice_strict::<Envelope>(br#"{"method":"a","x":[[[]]]}"#, opts(3)).unwrap_err();
        assert!(e.is_json());
        let e = from_slice_strict::<Envelope>(br#"{"method":7}"#, opts(8)).unwrap_err();
        assert!(!e.is_json(), "a shape error: {e}");
    }

    #[test]
    fn depth_matches_the_value_parse_exactly() {
        // Depth 4 in all: the envelope, params, and two arrays.
        let input = br#"{"method":"a","params":{"x":[[1]]}}"#;
        assert!(parse_strict_with(input, opts(4)).is_ok());
        assert!(from_slice_strict::<Envelope>(input, opts(4)).is_ok());
        assert_eq!(
            parse_strict_with(input, opts(3)).unwrap_err().kind,
            JcsErrorKind::TooDeep
        );
        assert!(from_slice_strict::<Envelope>(input, opts(3)).is_err());
    }

    #[test]
    fn accepts_and_reads_what_the_value_parse_accepts() {
        let input = br#"{"params":{"k":[1,2.5,"\u00e9",null,true],"big":18446744073709551615},"method":"m","extra":{"a":{"b":[]}}}"#;
        let typed: Envelope = from_slice_strict(input, opts(8)).unwrap();
        let value = parse_strict_with(input, opts(8)).unwrap();
        assert_eq!(typed.method, "m");
        assert_eq!(typed.params.as_ref(), value.get("params"));
    }

    #[test]
    fn many_members_are_checked_in_linear_time_and_still_refused_when_repeated() {
        let mut text = String::from("{\"method\":\"a\",\"x\":{");
        for i in 0..20_000 {
            text.push_str(&format!("\"k{i}\":0,"));
        }
        text.push_str("\"k7\":1}}");
        assert!(from_slice_strict::<Envelope>(text.as_bytes(), opts(8)).is_err());
        let ok = text.replace("\"k7\":1}", "\"last\":1}");
        assert!(from_slice_strict::<Envelope>(ok.as_bytes(), opts(8)).is_ok());
    }
}
