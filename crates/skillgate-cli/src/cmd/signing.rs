//! `skillgate card sign` and `skillgate card verify`: signed Agent Cards (crate
//! `skillgate-sign`).

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use serde_json::json;
use skillgate_sign::{verify_each_for, SigningKey, TrustedKeys, Verified, VerifyError, View};
use skillgate_transport::{looks_like_url, redact_str, Transport};

use super::io::read_input;
use super::net::NetArgs;
use crate::exit;

/// Output format of `card verify`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum VerifyFormat {
    /// One line: which key verified, or why none did.
    Text,
    /// `{"verified": true, "kid", "alg", "index"}` or `{"verified": false, "reasons": [...]}`.
    Json,
}

/// Which readers `card sign` signs for.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum SignView {
    /// A2A 1.0 readers and skillgate (RFC 8785 of the card's 1.0 members).
    #[value(name = "1.0")]
    V1_0,
    /// A2A 0.3 readers (the view a2a-sdk 0.3's verifier rebuilds); the card needs a `url`.
    #[value(name = "0.3")]
    V0_3,
    /// Both, the 1.0 signature first.
    Both,
}

impl SignView {
    fn views(self) -> &'static [View] {
        match self {
            Self::V1_0 => &[View::V1_0],
            Self::V0_3 => &[View::V0_3],
            Self::Both => &[View::V1_0, View::V0_3],
        }
    }
}

/// Arguments of `card sign`.
#[derive(Args)]
pub struct SignArgs {
    /// The card to sign: a file, or `-` for stdin.
    pub input: String,
    /// PEM (PKCS#8) private key: EC P-256 or P-384, RSA, or Ed25519.
    #[arg(long, value_name = "KEY.pem")]
    pub key: String,
    /// Key id for the protected header (`kid`), as published in your JWK set.
    #[arg(long, value_name = "ID")]
    pub kid: String,
    /// JWS algorithm (default by key: ES256, ES384, RS256, EdDSA; PS256/384/512 and
    /// RS384/512 by name).
    #[arg(long, value_name = "ALG")]
    pub alg: Option<String>,
    /// URL of the JWK set holding the public key (`jku` in the protected header).
    #[arg(long, value_name = "URL")]
    pub jku: Option<String>,
    /// The readers to sign for, one signature each: 1.0, 0.3 or both (default: both for a
    /// card A2A 0.3 readers read, one with a `url`; 1.0 otherwise).
    #[arg(long, value_enum, value_name = "VIEW")]
    pub view: Option<SignView>,
}

/// Arguments of `card verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// The card: a file, `-` for stdin, or an agent's URL (its well-known card is fetched).
    pub input: String,
    /// The JSON Web Key Set (or one JWK) of the keys you trust to sign cards.
    #[arg(long, value_name = "JWKS.json")]
    pub jwks: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    pub format: VerifyFormat,
    #[command(flatten)]
    pub net: NetArgs,
}

/// Prints the card with one more signature; exit 0.
pub fn sign(a: SignArgs) -> Result<u8> {
    let pem = read_input(&a.key).with_context(|| format!("--key {}", a.key))?;
    let key = SigningKey::from_pem(&pem, &a.kid, a.alg.as_deref(), a.jku.clone())
        .with_context(|| format!("--key {}", a.key))?;
    let mut card = read_card(&a.input)?;
    let views = match a.view {
        Some(v) => v.views(),
        None => skillgate_sign::default_views(&card),
    };
    key.sign_views(&mut card, views)
        .with_context(|| format!("{}: --view {}", a.input, names(views)))?;
    outln!("{}", serde_json::to_string_pretty(&card)?);
    Ok(exit::OK)
}

/// `1.0`, `0.3` or `1.0,0.3`.
fn names(views: &[View]) -> String {
    let names: Vec<&str> = views.iter().map(|v| v.as_str()).collect();
    names.join(",")
}

fn read_card(input: &str) -> Result<serde_json::Value> {
    let bytes = read_input(input)?;
    let card = skillgate_core::jcs::parse_strict(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "{input}: not valid I-JSON: {} at {}:{}",
            e.message,
            e.line,
            e.column
        )
    })?;
    if !card.is_object() {
        bail!("{input}: an Agent Card is a JSON object");
    }
    Ok(card)
}

/// Exit 0 when a signature verifies with a trusted key, 1 when none does (or the card is not
/// signed), 2 when the inputs cannot be read.
pub fn verify_card(a: VerifyArgs) -> Result<u8> {
    let keys = TrustedKeys::from_json(&read_input(&a.jwks)?)
        .with_context(|| format!("--jwks {}", a.jwks))?;
    let card = if looks_like_url(&a.input) {
        let config = a.net.transport(&[&a.input]).map_err(anyhow::Error::msg)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let bytes = rt.block_on(async {
            let transport = Transport::new(config)?;
            let url = skillgate_transport::card_url(&a.input)?;
            let reply = transport.get_card(&url).await?;
            if !reply.status.is_success() {
                bail!(
                    "cannot fetch the card: HTTP status {} from {}",
                    reply.status.as_u16(),
                    redact_str(&a.input)
                );
            }
            Ok(reply.bytes)
        })?;
        skillgate_core::jcs::parse_strict(&bytes)
            .map_err(|e| anyhow::anyhow!("the card is not valid I-JSON: {}", e.message))?
    } else {
        read_card(&a.input)?
    };
    let json = a.format == VerifyFormat::Json;
    // Both readers' views: the output names the view each signature verified for.
    match verify_each_for(&card, &keys, &[View::V1_0, View::V0_3]).map(split) {
        Ok((verified, _)) if !verified.is_empty() => {
            let first = &verified[0];
            if json {
                let each: Vec<_> = verified.iter().map(verified_json).collect();
                outln!(
                    "{}",
                    json!({"verified": true, "kid": first.kid, "alg": first.alg,
                        "index": first.index, "view": first.view.as_str(), "signatures": each})
                );
            } else {
                for v in &verified {
                    outln!(
                        "verified: signature {} by key {:?} ({}) for A2A {} readers",
                        v.index,
                        v.kid,
                        v.alg,
                        v.view.as_str()
                    );
                }
                if !verified.iter().any(|v| v.view == View::V1_0) {
                    outln!("note: no signature covers the card's 1.0 view, so skillgate's own --trust-jwks refuses it (the 0.3 view does not cover supportedInterfaces)");
                }
            }
            Ok(exit::OK)
        }
        outcome => {
            let reasons = match outcome {
                Ok((_, reasons)) => reasons,
                Err(e @ VerifyError::Unsigned) => vec![e.to_string()],
                Err(VerifyError::Invalid(r)) => r,
            };
            if json {
                outln!("{}", json!({"verified": false, "reasons": reasons}));
            } else {
                outln!("not verified: {}", reasons.join("; "));
            }
            Ok(exit::INVALID)
        }
    }
}

/// The signatures that verified, and why each other one did not.
fn split(
    results: Vec<Result<Verified, skillgate_sign::SignatureError>>,
) -> (Vec<Verified>, Vec<String>) {
    let mut verified = Vec::new();
    let mut reasons = Vec::new();
    for (index, r) in results.into_iter().enumerate() {
        match r {
            Ok(v) => verified.push(v),
            Err(why) => reasons.push(format!("signature {index}: {why}")),
        }
    }
    (verified, reasons)
}

fn verified_json(v: &Verified) -> serde_json::Value {
    json!({"index": v.index, "kid": v.kid, "alg": v.alg, "view": v.view.as_str()})
}
