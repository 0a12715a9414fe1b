//! The one failure shape of `--format json` on exit 2, for every command:
//! `{"ok": false, "where", "code", "message", "details", ...}`, the object
//! [`skillgate_client::FailureOutput`] defines (and `describe`/`call`/`chain` print for
//! their own failures). Commands add members beside these (`line`/`column`, a conformance
//! report), never instead of them.

use std::borrow::Cow;

use serde_json::{Map, Value};
use skillgate_client::{ChainFields, FailureOutput};

/// The failure object for a local failure with a stable `code` (`usage_error` for a usage
/// error or unreadable input) and a one-line `message`.
pub fn json(code: &str, message: &str) -> Map<String, Value> {
    let f = FailureOutput {
        ok: false,
        where_: "local",
        code,
        message: Cow::Borrowed(message),
        details: &[],
        step: None,
        task_id: None,
        state: None,
        chain: ChainFields::default(),
    };
    match serde_json::to_value(f) {
        Ok(Value::Object(m)) => m,
        _ => {
            let mut m = Map::new();
            m.insert("ok".into(), Value::Bool(false));
            m.insert("code".into(), code.into());
            m.insert("message".into(), message.into());
            m
        }
    }
}

/// Prints `m` as one line of JSON on stdout.
pub fn print(m: Map<String, Value>) {
    outln!("{}", Value::Object(m));
}
