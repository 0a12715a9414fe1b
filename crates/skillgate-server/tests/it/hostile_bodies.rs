//! Mutated and hostile request bodies on both bindings: every one gets a well-formed error or
//! result, never a 5xx, a hang or a dead server.

use crate::common::*;
use serde_json::{json, Value};

/// A small deterministic generator, so a failure reproduces exactly.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const TRAPS: &[&[u8]] = &[
    b"\"\\ud800\"",
    b"1e400",
    b"NaN",
    b"{\"a\":1,\"a\":2}",
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b"null",
    b"\"\xff\xfe\"",
    b"-0",
    b"18446744073709551616",
    b"{}",
    b"[]",
    b"\"skill\"",
];

fn mutate(rng: &mut XorShift, base: &[u8]) -> Vec<u8> {
    let mut b = base.to_vec();
    for _ in 0..=rng.below(3) {
        let i = rng.below(b.len().max(1));
        match rng.below(4) {
            0 => {
                if i < b.len() {
                    b[i] = rng.next() as u8;
                }
            }
            1 => b.truncate(i),
            2 => {
                let t = TRAPS[rng.below(TRAPS.len())];
                let at = i.min(b.len());
                b.splice(at..at, t.iter().copied());
            }
            _ => {
                if i < b.len() {
                    b.remove(i);
                }
            }
        }
    }
    b
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_bodies_never_break_the_server() {
    let s = start_server().await;
    let card = s.card().await;
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                     "params": msg(request(&card, "evaluate_resource_condition", observe_args()))})
    .to_string();
    let rest = msg(request(
        &card,
        "evaluate_resource_condition",
        observe_args(),
    ))
    .to_string();
    let mut rng = XorShift(0x5eed_1234_abcd_9876);
    let headers = [("A2A-Version", "1.0"), ("Content-Type", "application/json")];
    for round in 0..400 {
        let (path, base) = if round % 2 == 0 {
            ("/", rpc.as_bytes())
        } else {
            ("/message:send", rest.as_bytes())
        };
        let body = mutate(&mut rng, base);
        let (status, _, text) = s.post_raw(path, body.clone(), &headers).await;
        assert!(
            status < 500,
            "HTTP {status} for {:?}: {text}",
            String::from_utf8_lossy(&body)
        );
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "non-JSON reply ({e}) for {:?}: {text}",
                String::from_utf8_lossy(&body)
            )
        });
        assert!(v.is_object(), "{v}");
    }
    // Still alive and still correct afterwards.
    let r = s
        .rpc(
            "SendMessage",
            msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            )),
        )
        .await;
    assert_eq!(
        task_of(&r)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{r}"
    );
    s.shutdown().await;
}
