//! Reading the CLI's inputs: a file path or `-` for stdin, bounded in size.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::Value;
use skillgate_core::jcs;

/// Largest input the CLI reads (64 MiB); anything bigger is refused, not truncated.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads `path` (or stdin for `-`) completely, refusing inputs above [`MAX_INPUT_BYTES`].
pub fn read_input(path: &str) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file =
            std::fs::File::open(Path::new(path)).with_context(|| format!("cannot read {path}"))?;
        // One allocation of the file's size: growing by doubling would leave a large file in a
        // buffer up to twice its size (behind a `Take` the standard library gets no size hint).
        let size = file
            .metadata()
            .map_or(0, |m| m.len())
            .min(MAX_INPUT_BYTES + 1);
        buf.reserve_exact(usize::try_from(size).unwrap_or(0) + 1);
        Box::new(file)
    };
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut buf)
        .with_context(|| format!("cannot read {path}"))?;
    if buf.len() as u64 > MAX_INPUT_BYTES {
        bail!("{path} is larger than {MAX_INPUT_BYTES} bytes");
    }
    Ok(buf)
}

/// The one wording of an input with nothing in it, after `WHAT: ` (`--args: `, the file name),
/// whichever command read it.
pub use skillgate_core::jcs::{is_blank, EMPTY_INPUT as EMPTY};

/// Strictly parses `bytes` read from `what`: an empty input gets [`EMPTY`], anything else the
/// parser's reason and position.
pub fn parse_json(what: &str, bytes: &[u8]) -> std::result::Result<Value, String> {
    if is_blank(bytes) {
        return Err(format!("{what}: {EMPTY}"));
    }
    jcs::parse_strict(bytes).map_err(|e| {
        format!(
            "{what} is not valid I-JSON: {} at line {}, column {}",
            e.message, e.line, e.column
        )
    })
}

/// Reads and strictly parses a JSON input (I-JSON; duplicates and lone surrogates refused).
pub fn read_json(path: &str) -> Result<Value> {
    let bytes = read_input(path)?;
    parse_json(path, &bytes).map_err(anyhow::Error::msg)
}
