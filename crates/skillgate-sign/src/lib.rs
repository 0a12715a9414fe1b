//! Signed A2A Agent Cards (A2A 1.0 section 8.4): the signing payload, JWS signatures made with
//! a PEM private key, and verification against a JSON Web Key Set.
//!
//! The payload is the card without `signatures`, with the values ProtoJSON would not print
//! removed ([`signing_payload`]), in RFC 8785 canonical form. A signature is a detached JWS
//! (RFC 7515): `protected` is the base64url header (`alg`, `kid`, `typ: "JOSE"`, optional
//! `jku`), `signature` the base64url signature over `protected || "." || base64url(payload)`.
//!
//! Only asymmetric algorithms are accepted (ES256, ES384, RS256/384/512, PS256/384/512,
//! EdDSA): a card is verified by whoever reads it, so a shared HMAC secret would let every
//! reader forge it, and `alg: none` is no signature at all.
//!
//! # Sign, then verify
//!
//! The agent's operator signs with a private key; every reader verifies with the public half,
//! published as a JWK set. A change to the card after signing breaks the signature, while a
//! change ProtoJSON would not print (an empty list, a `false`) does not.
//!
//! ```
//! use serde_json::json;
//! use skillgate_sign::{verify, SigningKey, TrustedKeys, VerifyError};
//!
//! // A test key (Ed25519, PKCS#8) and its public JWK; never publish a real private key.
//! let pem = b"-----BEGIN PRIVATE KEY-----
//! MC4CAQAwBQYDK2VwBCIEIMo+l5/YVGTjAdt/FVIHuu6AKK6PXhs/B8JKq7GGq9Cs
//! -----END PRIVATE KEY-----
//! ";
//! let jwks = br#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "ops-2026", "use": "sig",
//!                           "x": "awWxc39gSeCkRkNKrG8Ef4ogoKu2-a-rDxV2D9W_vXo"}]}"#;
//!
//! let key = SigningKey::from_pem(pem, "ops-2026", None, None)?;
//! assert_eq!(key.alg(), "EdDSA");
//! let mut card = json!({"name": "netops", "version": "1.0.0", "skills": []});
//! key.sign(&mut card)?;
//!
//! let keys = TrustedKeys::from_json(jwks)?;
//! let verified = verify(&card, &keys)?;
//! assert_eq!((verified.index, verified.kid.as_str()), (0, "ops-2026"));
//!
//! // An empty list is not part of the signed payload; a new name is.
//! card["defaultInputModes"] = json!([]);
//! assert!(verify(&card, &keys).is_ok());
//! card["name"] = json!("someone else");
//! assert!(matches!(verify(&card, &keys), Err(VerifyError::Invalid(_))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod payload;
mod view03;

pub use payload::signing_payload;
pub use view03::v03_signing_payload;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use serde_json::{json, Map, Value};
use std::str::FromStr;

/// Why signing could not happen.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    /// The key is not a PEM private key of a supported kind.
    #[error("the signing key is not a PEM (PKCS#8) EC P-256/P-384, RSA or Ed25519 private key")]
    Key,
    /// The algorithm named does not fit the key or is not supported.
    #[error("algorithm {0}: {1}")]
    Algorithm(String, #[source] AlgorithmError),
    /// The card is not a JSON object.
    #[error("an Agent Card must be a JSON object")]
    NotACard,
    /// The cryptographic operation failed.
    #[error("signing failed: {0}")]
    Crypto(String),
    /// A signature for A2A 0.3 readers was asked of a card they cannot read: it has no `url`
    /// (0.3's required member), so no 0.3 reader would ever check it.
    #[error("the card has no A2A 0.3 `url`, so no A2A 0.3 reader reads it: sign it for 1.0 readers, or add its 0.3 members first")]
    NotV03,
}

/// The readers a signature is made for, and so the bytes it covers (`docs/a2a-0.3.md` 3.5,
/// design.md D235): each version's readers rebuild different bytes from the same card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// A2A 1.0 readers and skillgate: RFC 8785 of the card ([`signing_payload`]); of a card
    /// that also carries 0.3 members, of its 1.0 view (`skillgate_a2a::v03::card::v1_view`,
    /// all a 1.0 reader reads of it).
    V1_0,
    /// A2A 0.3 readers (a2a-sdk 0.3.x): the view their verifier rebuilds
    /// ([`v03_signing_payload`]), which covers only the members 0.3 defines.
    V0_3,
}

impl View {
    /// `1.0` or `0.3`, as the CLI and its output name the view.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V1_0 => "1.0",
            Self::V0_3 => "0.3",
        }
    }
}

/// Whether an A2A 0.3 reader reads `card`: it carries 0.3's required `url` (a 0.3 card, or a
/// 1.0 card rendered for 0.3 readers too).
fn read_by_v03(card: &Value) -> bool {
    card.get("url").is_some_and(Value::is_string)
}

/// The views a card is signed for when none is named: the 1.0 view, and the 0.3 view too
/// when 0.3 readers read the card (a 0.3 card, or a 1.0 card carrying the 0.3 members).
pub fn default_views(card: &Value) -> &'static [View] {
    if read_by_v03(card) {
        &[View::V1_0, View::V0_3]
    } else {
        &[View::V1_0]
    }
}

/// The bytes a signature for `view` covers; `None` when `card` is not an object or (for the
/// 0.3 view) has no 0.3 reader.
fn view_payload(card: &Value, view: View) -> Option<Vec<u8>> {
    match view {
        View::V1_0 => match skillgate_a2a::v03::card::v1_view(card) {
            Some(v1) => signing_payload(&v1),
            None => signing_payload(card),
        },
        View::V0_3 if read_by_v03(card) => v03_signing_payload(card),
        View::V0_3 => None,
    }
}

/// A private key ready to sign cards, with the header values every signature carries.
pub struct SigningKey {
    key: EncodingKey,
    alg: Algorithm,
    kid: String,
    jku: Option<String>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key material.
        f.debug_struct("SigningKey")
            .field("alg", &self.alg)
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// The algorithms a card signature may use.
pub const ALGORITHMS: &[&str] = &[
    "ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA",
];

/// Why an `alg` name is not one a card signature may use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AlgorithmError {
    /// `none`: an unsigned JWS, which proves nothing.
    #[error("`none` is no signature")]
    None,
    /// Not in [`ALGORITHMS`]: a symmetric (HMAC) algorithm, which would let every reader of
    /// the card forge it, or a name no JWS registry knows.
    #[error("not an asymmetric JWS algorithm this verifier accepts ({})", ALGORITHMS.join(", "))]
    NotAccepted,
    /// In [`ALGORITHMS`] but refused by the JWS library (a build without it); the library's
    /// reason.
    #[error("{0}")]
    Unsupported(String),
}

/// The algorithm named `name`, if it is one a card signature may use.
pub fn algorithm(name: &str) -> Result<Algorithm, AlgorithmError> {
    if name == "none" {
        return Err(AlgorithmError::None);
    }
    if !ALGORITHMS.contains(&name) {
        return Err(AlgorithmError::NotAccepted);
    }
    Algorithm::from_str(name).map_err(|e| AlgorithmError::Unsupported(e.to_string()))
}

impl SigningKey {
    /// Reads a PEM private key; `alg` defaults to the key's usual algorithm (ES256 for P-256,
    /// ES384 for P-384, RS256 for RSA, EdDSA for Ed25519).
    pub fn from_pem(
        pem: &[u8],
        kid: &str,
        alg: Option<&str>,
        jku: Option<String>,
    ) -> Result<Self, SignError> {
        // Each constructor checks its own key kind, so trying them in turn is safe.
        let (key, default) = if let Ok(k) = EncodingKey::from_ed_pem(pem) {
            (k, Algorithm::EdDSA)
        } else if let Ok(k) = EncodingKey::from_rsa_pem(pem) {
            (k, Algorithm::RS256)
        } else if let Ok(k) = EncodingKey::from_ec_pem(pem) {
            // The curve decides: the ES256 signer refuses a P-384 key.
            let p256 = jsonwebtoken::crypto::sign(b"probe", &k, Algorithm::ES256).is_ok();
            (
                k,
                if p256 {
                    Algorithm::ES256
                } else {
                    Algorithm::ES384
                },
            )
        } else {
            return Err(SignError::Key);
        };
        let alg = match alg {
            None => default,
            Some(a) => algorithm(a).map_err(|e| SignError::Algorithm(a.to_owned(), e))?,
        };
        let key = Self {
            key,
            alg,
            kid: kid.to_owned(),
            jku,
        };
        // Proves at load time that the key and the algorithm go together.
        key.sign_bytes(b"probe")?;
        Ok(key)
    }

    /// The JWS `alg` this key signs with.
    pub fn alg(&self) -> &'static str {
        alg_name(self.alg)
    }

    fn sign_bytes(&self, input: &[u8]) -> Result<String, SignError> {
        jsonwebtoken::crypto::sign(input, &self.key, self.alg)
            .map_err(|e| SignError::Crypto(e.to_string()))
    }

    /// The `signatures[]` entry of `card` (any existing `signatures` are not signed over).
    pub fn signature(&self, card: &Value) -> Result<Value, SignError> {
        let payload = signing_payload(card).ok_or(SignError::NotACard)?;
        self.signature_over(&payload)
    }

    /// The `signatures[]` entry an A2A 0.3 reader of `card` verifies: over
    /// [`v03_signing_payload`], the view a2a-sdk 0.3 rebuilds (not RFC 8785).
    pub fn v03_signature(&self, card: &Value) -> Result<Value, SignError> {
        let payload = v03_signing_payload(card).ok_or(SignError::NotACard)?;
        self.signature_over(&payload)
    }

    /// The `signatures[]` entry of `card` for `view`'s readers.
    pub fn signature_for(&self, card: &Value, view: View) -> Result<Value, SignError> {
        if !card.is_object() {
            return Err(SignError::NotACard);
        }
        let payload = view_payload(card, view).ok_or(SignError::NotV03)?;
        self.signature_over(&payload)
    }

    /// Appends one signature per view to `card.signatures`, in the order given (the 1.0 one
    /// first, as a server's 0.3 card carries them). Every signature is made before any is
    /// added, and none is added if one cannot be made.
    pub fn sign_views(&self, card: &mut Value, views: &[View]) -> Result<(), SignError> {
        let sigs = views
            .iter()
            .map(|v| self.signature_for(card, *v))
            .collect::<Result<Vec<_>, _>>()?;
        let obj = card.as_object_mut().ok_or(SignError::NotACard)?;
        match obj.get_mut("signatures") {
            Some(Value::Array(a)) => a.extend(sigs),
            _ => {
                obj.insert("signatures".into(), Value::Array(sigs));
            }
        }
        Ok(())
    }

    /// A detached JWS over `payload`, as a `signatures[]` entry.
    fn signature_over(&self, payload: &[u8]) -> Result<Value, SignError> {
        let mut header = Map::new();
        header.insert("alg".into(), json!(self.alg()));
        header.insert("kid".into(), json!(self.kid));
        header.insert("typ".into(), json!("JOSE"));
        if let Some(j) = &self.jku {
            header.insert("jku".into(), json!(j));
        }
        let protected = URL_SAFE_NO_PAD.encode(Value::Object(header).to_string());
        let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
        let signature = self.sign_bytes(input.as_bytes())?;
        Ok(json!({"protected": protected, "signature": signature}))
    }

    /// Appends this key's signature to `card.signatures`.
    pub fn sign(&self, card: &mut Value) -> Result<(), SignError> {
        let sig = self.signature(card)?;
        let obj = card.as_object_mut().ok_or(SignError::NotACard)?;
        match obj.get_mut("signatures") {
            Some(Value::Array(a)) => a.push(sig),
            _ => {
                obj.insert("signatures".into(), Value::Array(vec![sig]));
            }
        }
        Ok(())
    }
}

fn alg_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::ES256 => "ES256",
        Algorithm::ES384 => "ES384",
        Algorithm::RS256 => "RS256",
        Algorithm::RS384 => "RS384",
        Algorithm::RS512 => "RS512",
        Algorithm::PS256 => "PS256",
        Algorithm::PS384 => "PS384",
        Algorithm::PS512 => "PS512",
        Algorithm::EdDSA => "EdDSA",
        Algorithm::HS256 => "HS256",
        Algorithm::HS384 => "HS384",
        Algorithm::HS512 => "HS512",
    }
}

/// Why a JWK set could not be used.
#[derive(Debug, thiserror::Error)]
#[error("not a JSON Web Key Set: {0}")]
pub struct JwksError(String);

/// Public keys trusted to sign cards, by `kid`.
#[derive(Clone)]
pub struct TrustedKeys {
    keys: Vec<(Option<String>, Jwk)>,
}

impl std::fmt::Debug for TrustedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kids: Vec<&str> = self
            .keys
            .iter()
            .map(|(k, _)| k.as_deref().unwrap_or("(no kid)"))
            .collect();
        f.debug_struct("TrustedKeys").field("kids", &kids).finish()
    }
}

impl TrustedKeys {
    /// Parses a JWK set (`{"keys": [...]}`) or a single JWK; private members, if any, are
    /// ignored. Symmetric (`oct`) keys are refused.
    pub fn from_json(bytes: &[u8]) -> Result<Self, JwksError> {
        let value = skillgate_core::jcs::parse_strict(bytes)
            .map_err(|e| JwksError(format!("{} at {}:{}", e.message, e.line, e.column)))?;
        let set: JwkSet = if value.get("keys").is_some() {
            serde_json::from_value(value).map_err(|e| JwksError(e.to_string()))?
        } else {
            JwkSet {
                keys: vec![serde_json::from_value(value).map_err(|e| JwksError(e.to_string()))?],
            }
        };
        if set.keys.is_empty() {
            return Err(JwksError("it has no keys".into()));
        }
        let mut keys = Vec::new();
        for k in set.keys {
            if matches!(
                k.algorithm,
                jsonwebtoken::jwk::AlgorithmParameters::OctetKey(_)
            ) {
                return Err(JwksError(
                    "it holds a symmetric (oct) key; card signatures are verified with public keys only".into(),
                ));
            }
            keys.push((k.common.key_id.clone(), k));
        }
        Ok(Self { keys })
    }
}

/// The signature that verified a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Its index in `signatures`.
    pub index: usize,
    /// The key id that verified it.
    pub kid: String,
    /// Its algorithm.
    pub alg: String,
    /// The readers whose bytes it covers.
    pub view: View,
}

/// Why no signature verified a card: one reason per signature (none when there are none).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The card carries no `signatures`.
    #[error("the Agent Card is not signed (no `signatures`)")]
    Unsigned,
    /// Every signature failed, for these reasons.
    #[error("no signature of the Agent Card verified: {}", .0.join("; "))]
    Invalid(Vec<String>),
}

/// Why a signature's `protected` member cannot be decoded into a JWS header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The signature has no `protected` member, or it is not a JSON string.
    #[error("`protected` is missing or not a string")]
    Missing,
    /// The string is not unpadded base64url.
    #[error("`protected` is not base64url (unpadded)")]
    NotBase64,
    /// The decoded bytes are not strict JSON; the parser's reason.
    #[error("`protected` is not a JSON object ({0})")]
    NotJson(String),
    /// The decoded JSON is valid but not an object.
    #[error("`protected` is not a JSON object")]
    NotObject,
}

/// The decoded protected header of one signature, or why it is malformed.
pub fn protected_header(sig: &Value) -> Result<Map<String, Value>, HeaderError> {
    let p = sig
        .get("protected")
        .and_then(Value::as_str)
        .ok_or(HeaderError::Missing)?;
    let bytes = URL_SAFE_NO_PAD
        .decode(p)
        .map_err(|_| HeaderError::NotBase64)?;
    let header: Value =
        skillgate_core::jcs::parse_strict(&bytes).map_err(|e| HeaderError::NotJson(e.message))?;
    let Value::Object(h) = header else {
        return Err(HeaderError::NotObject);
    };
    Ok(h)
}

/// Why one signature of a card does not verify (see [`verify_each`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The protected header cannot be decoded.
    #[error(transparent)]
    Header(#[from] HeaderError),
    /// The protected header has no string `alg`.
    #[error("the protected header has no `alg`")]
    NoAlg,
    /// The header's `alg` is not one a card signature may use.
    #[error("alg {alg}: {source}")]
    Algorithm {
        /// The `alg` as the header names it.
        alg: String,
        /// Why it is refused.
        source: AlgorithmError,
    },
    /// The protected header has no string `kid`.
    #[error("the protected header has no `kid`")]
    NoKid,
    /// No trusted key carries the header's `kid`: the signature may be fine, but cannot be
    /// judged with these keys.
    #[error("no trusted key has kid {kid:?}")]
    UnknownKid {
        /// The `kid` the header names.
        kid: String,
    },
    /// The trusted key with this `kid` cannot be used as a verification key; the library's
    /// reason.
    #[error("key {kid:?}: {why}")]
    Key {
        /// The key's `kid`.
        kid: String,
        /// Why it is unusable.
        why: String,
    },
    /// The signature has no `signature` member, or it is not a string.
    #[error("`signature` is missing or not a string")]
    NoSignature,
    /// The key was found and the signature does not verify: the card changed after signing,
    /// or was signed over another canonical form.
    #[error("the {alg} signature by {kid:?} does not match this card's canonical form")]
    Mismatch {
        /// The signature's `alg`.
        alg: String,
        /// The key's `kid`.
        kid: String,
    },
    /// The key cannot check a signature of this algorithm (say an RSA key for an ES256
    /// signature); the library's reason.
    #[error("key {kid:?} cannot check an {alg} signature: {why}")]
    Unverifiable {
        /// The signature's `alg`.
        alg: String,
        /// The key's `kid`.
        kid: String,
        /// The library's reason.
        why: String,
    },
}

/// Verifies `card` for skillgate and A2A 1.0 readers: succeeds with the first signature that
/// one of `keys` verifies over the card's 1.0 view ([`View::V1_0`]). A signature over the 0.3
/// view alone is not enough: skillgate reads members that view does not cover (D235).
pub fn verify(card: &Value, keys: &TrustedKeys) -> Result<Verified, VerifyError> {
    first_verified(verify_each(card, keys)?)
}

fn first_verified(results: Vec<Result<Verified, SignatureError>>) -> Result<Verified, VerifyError> {
    let mut reasons = Vec::new();
    for (index, r) in results.into_iter().enumerate() {
        match r {
            Ok(v) => return Ok(v),
            Err(why) => reasons.push(format!("signature {index}: {why}")),
        }
    }
    Err(VerifyError::Invalid(reasons))
}

/// Every signature of `card` checked on its own, in order, for skillgate and A2A 1.0 readers
/// (see [`verify`]).
pub fn verify_each(
    card: &Value,
    keys: &TrustedKeys,
) -> Result<Vec<Result<Verified, SignatureError>>, VerifyError> {
    verify_each_for(card, keys, &[View::V1_0])
}

/// Every signature of `card` checked on its own, in order, over the bytes of each of
/// `views` in turn (a linter reports each signature, and must not call a signature for the
/// other version's readers wrong).
pub fn verify_each_for(
    card: &Value,
    keys: &TrustedKeys,
    views: &[View],
) -> Result<Vec<Result<Verified, SignatureError>>, VerifyError> {
    let sigs = match card.get("signatures") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        _ => return Err(VerifyError::Unsigned),
    };
    let Some(payload) = signing_payload(card) else {
        return Err(VerifyError::Invalid(vec![
            "the card is not a JSON object".into()
        ]));
    };
    let mut encoded = Vec::new();
    for view in views {
        match view {
            // The card as received, and for a card that also carries A2A 0.3 members (what a
            // server answers a 0.3 reader) its 1.0 view: the 1.0 signature was made over
            // that, and a 1.0 reader reads nothing else of it, so nothing unsigned is read
            // either way.
            View::V1_0 => {
                encoded.push((View::V1_0, URL_SAFE_NO_PAD.encode(&payload)));
                if let Some(v) =
                    skillgate_a2a::v03::card::v1_view(card).and_then(|v| signing_payload(&v))
                {
                    encoded.push((View::V1_0, URL_SAFE_NO_PAD.encode(v)));
                }
            }
            View::V0_3 => {
                if let Some(v) = view_payload(card, View::V0_3) {
                    encoded.push((View::V0_3, URL_SAFE_NO_PAD.encode(v)));
                }
            }
        }
    }
    Ok(sigs
        .iter()
        .enumerate()
        .map(|(index, sig)| {
            verify_one(sig, &encoded, keys).map(|(kid, alg, view)| Verified {
                index,
                kid,
                alg,
                view,
            })
        })
        .collect())
}

/// Checks one signature over each of `payloads` (base64url, with the view each covers) in
/// turn; the first that verifies wins.
fn verify_one(
    sig: &Value,
    payloads: &[(View, String)],
    keys: &TrustedKeys,
) -> Result<(String, String, View), SignatureError> {
    let header = protected_header(sig)?;
    let alg_name = header
        .get("alg")
        .and_then(Value::as_str)
        .ok_or(SignatureError::NoAlg)?;
    let alg = algorithm(alg_name).map_err(|source| SignatureError::Algorithm {
        alg: alg_name.to_owned(),
        source,
    })?;
    let kid = header
        .get("kid")
        .and_then(Value::as_str)
        .ok_or(SignatureError::NoKid)?;
    let jwk = keys
        .keys
        .iter()
        .find(|(k, _)| k.as_deref() == Some(kid))
        .map(|(_, j)| j)
        .ok_or_else(|| SignatureError::UnknownKid {
            kid: kid.to_owned(),
        })?;
    let key = DecodingKey::from_jwk(jwk).map_err(|e| SignatureError::Key {
        kid: kid.to_owned(),
        why: e.to_string(),
    })?;
    let signature = sig
        .get("signature")
        .and_then(Value::as_str)
        .ok_or(SignatureError::NoSignature)?;
    let protected = sig
        .get("protected")
        .and_then(Value::as_str)
        .unwrap_or_default();
    for (view, payload) in payloads {
        let input = format!("{protected}.{payload}");
        match jsonwebtoken::crypto::verify(signature, input.as_bytes(), &key, alg) {
            Ok(true) => return Ok((kid.to_owned(), alg_name.to_owned(), *view)),
            Ok(false) => {}
            Err(e) => {
                return Err(SignatureError::Unverifiable {
                    alg: alg_name.to_owned(),
                    kid: kid.to_owned(),
                    why: e.to_string(),
                })
            }
        }
    }
    Err(SignatureError::Mismatch {
        alg: alg_name.to_owned(),
        kid: kid.to_owned(),
    })
}
