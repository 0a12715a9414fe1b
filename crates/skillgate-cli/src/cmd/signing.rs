//! `skillgate card sign` and `skillgate card verify`: signed Agent Cards (crate
//! `skillgate-sign`).

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use serde_json::json;
use skillgate_sign::{verify, SigningKey, TrustedKeys, VerifyError};
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
    key.sign(&mut card)?;
    outln!("{}", serde_json::to_string_pretty(&card)?);
    Ok(exit::OK)
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
    match verify(&card, &keys) {
        Ok(v) => {
            if json {
                outln!(
                    "{}",
                    json!({"verified": true, "kid": v.kid, "alg": v.alg, "index": v.index})
                );
            } else {
                outln!(
                    "verified: signature {} by key {:?} ({})",
                    v.index,
                    v.kid,
                    v.alg
                );
            }
            Ok(exit::OK)
        }
        Err(e) => {
            let reasons = match &e {
                VerifyError::Unsigned => vec![e.to_string()],
                VerifyError::Invalid(r) => r.clone(),
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
