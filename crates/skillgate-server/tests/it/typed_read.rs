//! The typed read of a request (D306): as strict as the `Value` parse it replaced on the
//! SendMessage path, with the same error codes.

use crate::common::*;
use crate::jsonrpc::code_of;
use serde_json::Value;

/// A SendMessage is read by one strict typed pass (params straight into their type): every
/// strictness rule of the `Value` parse still holds anywhere in it, members its type ignores
/// included, with the same error codes; ids come back exactly as sent.
#[tokio::test]
async fn send_message_is_read_as_strictly_as_any_request() {
    let s = start_server().await;
    let h = [("A2A-Version", "1.0"), ("Content-Type", "application/json")];
    let send = |params: &str, extra: &str, id: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"SendMessage"{extra},"params":{params}}}"#)
    };
    let message = |data: &str, more: &str| {
        format!(
            r#"{{"message":{{"messageId":"m","role":"ROLE_USER"{more},"parts":[{{"data":{data},"mediaType":"application/json"}}]}}}}"#
        )
    };
    let good = r#"{"skill":"describe_skill","arguments":{"skill_id":"slow"}}"#;
    let cases: Vec<(String, i64)> = vec![
        // Duplicates: in the arguments, in a member the params type ignores, in the envelope.
        (
            send(
                &message(
                    r#"{"skill":"describe_skill","arguments":{"skill_id":"slow","skill_id":"x"}}"#,
                    "",
                ),
                "",
                "1",
            ),
            -32700,
        ),
        (
            send(&message(good, r#","x":{"a":1,"a":2}"#), "", "1"),
            -32700,
        ),
        (
            send(&message(good, ""), r#","extra":[{"a":1,"a":2}]"#, "1"),
            -32700,
        ),
        (send(&message(good, r#","messageId":"n""#), "", "1"), -32700),
        // Lone surrogates, in a value the skill reads and in one nobody reads.
        (
            send(
                &message(
                    r#"{"skill":"describe_skill","arguments":{"skill_id":"\ud800"}}"#,
                    "",
                ),
                "",
                "1",
            ),
            -32700,
        ),
        (send(&message(good, r#","x":"\udc00""#), "", "1"), -32700),
        (
            send(&message(good, ""), r#","extra":"\ud800""#, "1"),
            -32700,
        ),
        // Numbers outside the double range.
        (
            send(
                &message(
                    r#"{"skill":"describe_skill","arguments":{"skill_id":"slow","n":1e400}}"#,
                    "",
                ),
                "",
                "1",
            ),
            -32700,
        ),
        (send(&message(good, ""), "", "1e400"), -32700),
        // Nesting past the default limit, inside the arguments.
        (
            send(
                &message(
                    &format!(
                        r#"{{"skill":"describe_skill","arguments":{{"skill_id":"slow","d":{}{}}}}}"#,
                        "[".repeat(130),
                        "]".repeat(130)
                    ),
                    "",
                ),
                "",
                "1",
            ),
            -32700,
        ),
        // Shapes: still the envelope's and the params' own errors.
        (send("null", "", "1"), -32600),
        (format!("[{}]", send(&message(good, ""), "", "1")), -32600),
        (send(r#"[{"message":{}}]"#, "", "1"), -32602),
        (
            send(
                r#"{"message":{"messageId":"m","role":7,"parts":[]}}"#,
                "",
                "1",
            ),
            -32602,
        ),
    ];
    for (body, code) in cases {
        let (status, _, text) = s.post_raw("/", body.clone(), &h).await;
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!((status, code_of(&v)), (200, code), "{body} -> {v}");
    }
    // Ids come back as written: a string, the largest u64, a fraction (not as a float).
    for id in [r#""a\u00e9""#, "18446744073709551615", "1.50", "-7"] {
        let (_, _, text) = s.post_raw("/", send(&message(good, ""), "", id), &h).await;
        let echoed = text
            .strip_prefix(r#"{"jsonrpc":"2.0","id":"#)
            .unwrap_or_else(|| panic!("{text}"));
        let want = if id.starts_with('"') {
            "\"a\u{e9}\""
        } else {
            id
        };
        assert!(echoed.starts_with(want), "{id} -> {text}");
        assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
    }
    s.shutdown().await;
}
