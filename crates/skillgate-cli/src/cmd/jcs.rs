//! `skillgate canonicalize` and `skillgate digest`.

use anyhow::{Context, Result};
use clap::Args;
use skillgate_core::jcs;

use super::io::{is_blank, read_input, EMPTY};
use crate::exit;

/// Arguments of `skillgate canonicalize`.
#[derive(Args)]
pub struct CanonicalizeArgs {
    /// JSON file to canonicalize, or `-` for stdin.
    #[arg(default_value = "-")]
    file: String,
}

/// Arguments of `skillgate digest`.
#[derive(Args)]
pub struct DigestArgs {
    /// JSON file to digest, or `-` for stdin.
    #[arg(default_value = "-")]
    file: String,
}

/// Writes the canonical bytes to stdout with no trailing newline.
pub fn canonicalize(args: CanonicalizeArgs) -> Result<u8> {
    let bytes = read_input(&args.file)?;
    if is_blank(&bytes) {
        anyhow::bail!("{}: {EMPTY}", args.file);
    }
    // Into a vector through the chunked path: a large unsorted top-level object is streamed
    // member by member instead of being copied again to be reordered. Nothing is printed
    // unless the whole input is valid.
    let mut canonical = Vec::with_capacity(bytes.len());
    jcs::canonicalize_into(&bytes, jcs::ParseOptions::default(), &mut canonical)
        .with_context(|| format!("{} is not valid I-JSON", args.file))?;
    crate::out::stdout_bytes(&canonical);
    Ok(exit::OK)
}

/// Prints `sha256:<hex>` of the canonical form and a newline.
pub fn digest(args: DigestArgs) -> Result<u8> {
    let bytes = read_input(&args.file)?;
    if is_blank(&bytes) {
        anyhow::bail!("{}: {EMPTY}", args.file);
    }
    let digest = skillgate_core::digest_text(&bytes)
        .with_context(|| format!("{} is not valid I-JSON", args.file))?;
    outln!("{digest}");
    Ok(exit::OK)
}
