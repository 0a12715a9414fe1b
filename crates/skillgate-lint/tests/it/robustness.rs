//! The linter never panics: random JSON, mutated and truncated cards, and hostile nesting.

use serde_json::{json, Value};
use skillgate_lint::{lint_bytes, lint_value, Profile, ProfileChoice};

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const WORDS: &[&str] = &[
    "name", "description", "supportedInterfaces", "url", "protocolBinding", "protocolVersion",
    "capabilities", "extensions", "uri", "params", "skills", "id", "tags", "interface_version",
    "skill_id", "skill_version", "interface_digest", "schemaVersion", "humanReadableId",
    "authSchemes", "scheme", "tokenUrl", "teeDetails", "provider", "security", "securitySchemes",
    "securityRequirements", "schemes", "list", "type", "defaultInputModes", "input_schema",
    "lastUpdated", "additionalInterfaces", "transport", "signatures", "1.0", "JSONRPC",
    "http://127.0.0.1.evil.com", "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1",
    "describe_skill", "sha256:00", "", "\u{0}", "é", "/", "~",
    // Byte-slicing traps: multibyte characters where parsers index by position.
    "123€45", "2025-01-15T10:30:00+€1", "20250115T1030€", "1.0.0-é", "€/€", "http://[::1",
    "http://ü.example/", "HTTPS://X.EXAMPLE", "text/€", "1.€", "sha256:€€", "lastUpdated",
    "2025-01-15", "supported_interfaces", "preferredTransport", "stateTransitionHistory",
];

const CHARS: &[char] = &[
    'a', '1', '.', '-', ':', '/', '€', 'é', '😀', ' ', 'T', 'Z', '+', '\u{7f}',
];

fn random_string(rng: &mut Rng) -> String {
    (0..rng.below(12))
        .map(|_| CHARS[rng.below(CHARS.len() as u64) as usize])
        .collect()
}

fn random_value(rng: &mut Rng, depth: u32) -> Value {
    let pick = if depth > 5 {
        rng.below(4)
    } else {
        rng.below(7)
    };
    match pick {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(rng.below(1000) as i64 - 500),
        3 if rng.below(3) == 0 => json!(random_string(rng)),
        3 => json!(WORDS[rng.below(WORDS.len() as u64) as usize]),
        4 | 5 => {
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(6) {
                m.insert(
                    WORDS[rng.below(WORDS.len() as u64) as usize].to_string(),
                    random_value(rng, depth + 1),
                );
            }
            Value::Object(m)
        }
        _ => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
    }
}

fn mutate(rng: &mut Rng, v: &mut Value) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let k = &keys[rng.below(keys.len() as u64) as usize];
            match rng.below(4) {
                0 => {
                    m.remove(k);
                }
                1 => {
                    m.insert(k.clone(), random_value(rng, 3));
                }
                _ => {
                    if let Some(child) = m.get_mut(k) {
                        mutate(rng, child);
                    }
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len() as u64) as usize;
            if rng.below(3) == 0 {
                a[i] = random_value(rng, 3);
            } else {
                mutate(rng, &mut a[i]);
            }
        }
        other => *other = random_value(rng, 3),
    }
}

fn corpus() -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for dir in ["a2a-1.0", "a2a-0.3", "agentvault-1.0", "mixed"] {
        for f in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = f.unwrap().path();
            if !p.to_string_lossy().ends_with(".expect.json") {
                out.push(std::fs::read(p).unwrap());
            }
        }
    }
    out
}

const PROFILES: [ProfileChoice; 4] = [
    ProfileChoice::Auto,
    ProfileChoice::Fixed(Profile::A2a10),
    ProfileChoice::Fixed(Profile::A2a03),
    ProfileChoice::Fixed(Profile::AgentVault10),
];

#[test]
fn random_and_mutated_cards_never_panic() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let cards: Vec<Value> = corpus()
        .iter()
        .filter_map(|b| serde_json::from_slice(b).ok())
        .collect();
    let mut n = 0;
    for round in 0..3000 {
        let v = if round % 3 == 0 {
            random_value(&mut rng, 0)
        } else {
            let mut c = cards[rng.below(cards.len() as u64) as usize].clone();
            for _ in 0..=rng.below(4) {
                mutate(&mut rng, &mut c);
            }
            c
        };
        let choice = PROFILES[rng.below(4) as usize];
        let _ = lint_value(&v, choice);
        let bytes = serde_json::to_vec(&v).unwrap();
        let _ = lint_bytes(&bytes, choice);
        n += 1;
    }
    assert_eq!(n, 3000);
}

#[test]
fn truncated_and_corrupted_bytes_never_panic() {
    let mut rng = Rng(42);
    let mut errors = 0;
    for card in corpus() {
        for cut in (0..card.len()).step_by(7.max(card.len() / 60)) {
            if lint_bytes(&card[..cut], ProfileChoice::Auto).is_err() {
                errors += 1;
            }
        }
        for _ in 0..20 {
            let mut b = card.clone();
            for _ in 0..=rng.below(3) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] = (rng.next() & 0xff) as u8;
            }
            let _ = lint_bytes(&b, PROFILES[rng.below(4) as usize]);
        }
    }
    // Almost every prefix of a card is not JSON: the linter must say so, not guess.
    assert!(errors > 100, "{errors}");
}

#[test]
fn hostile_nesting_is_a_finding_not_a_stack_overflow() {
    for open in ["[", "{\"a\":"] {
        let text = format!("{{\"name\":{}", open.repeat(200_000));
        // Unterminated: still a depth finding, found before the end.
        let r = lint_bytes(text.as_bytes(), ProfileChoice::Auto).unwrap();
        assert_eq!(r.rule_ids(), ["CARD-002"]);
    }
    let ok = format!("{{\"x\":{}1{}}}", "[".repeat(90), "]".repeat(90));
    assert!(lint_bytes(ok.as_bytes(), ProfileChoice::Auto).is_ok());
    let mut v = json!(1);
    for _ in 0..1000 {
        v = json!([v]);
    }
    // A deep Value built in memory: the linter's walk is bounded by the card's known shape.
    let _ = lint_value(
        &json!({"skills": [{"id": "a", "tags": v}]}),
        ProfileChoice::Auto,
    );
    // serde_json's own Drop of that value is recursive; leak it rather than test serde_json.
    std::mem::forget(v);
}

#[test]
fn not_json_reports_a_position() {
    for (text, line, column) in [
        ("{\n  \"a\": 1,\n}", 3, 1),
        ("", 1, 1),
        ("{\"a\" 1}", 1, 6),
        ("[1,2", 1, 5),
    ] {
        match lint_bytes(text.as_bytes(), ProfileChoice::Auto) {
            Err(skillgate_lint::InputError::NotJson {
                line: l, column: c, ..
            }) => {
                assert_eq!((l, c), (line, column), "{text:?}")
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
    assert!(lint_bytes(b"\xff\xfe{}", ProfileChoice::Auto).is_err());
    assert!(lint_bytes(br#"{"a":"\ud800"}"#, ProfileChoice::Auto).is_err());
    assert!(lint_bytes(br#"{"a":1e400}"#, ProfileChoice::Auto).is_err());
    let big = vec![b' '; skillgate_lint::MAX_CARD_BYTES + 1];
    assert!(matches!(
        lint_bytes(&big, ProfileChoice::Auto),
        Err(skillgate_lint::InputError::TooLarge { .. })
    ));
}

/// Every leaf of every fixture replaced by each trap value, linted with the card's own profile.
#[test]
fn every_leaf_replaced_by_trap_values_never_panics() {
    let traps = [
        json!("123€45"),
        json!("20250115T1030€"),
        json!("2025-01-15T10:30:00+€1"),
        json!("€/€"),
        json!("😀"),
        json!("http://[::1"),
        json!("1.€"),
        json!(""),
        json!(null),
        json!([]),
        json!({}),
        json!(1.5),
    ];
    fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, c)| {
                leaves(
                    c,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                )
            }),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, c)| leaves(c, format!("{at}/{i}"), out)),
            _ => out.push(at),
        }
    }
    let mut linted = 0;
    for bytes in corpus() {
        let Ok(card) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let mut ptrs = Vec::new();
        leaves(&card, String::new(), &mut ptrs);
        for p in ptrs.iter().take(120) {
            for t in &traps {
                let mut c = card.clone();
                if let Some(slot) = c.pointer_mut(p) {
                    *slot = t.clone();
                }
                let _ = lint_value(&c, ProfileChoice::Auto);
                linted += 1;
            }
        }
    }
    assert!(linted > 5000, "{linted}");
}

/// Cards near the 1 MiB limit built to maximise findings and pairwise comparisons finish in
/// bounded time under every profile.
#[test]
fn large_hostile_cards_finish_quickly() {
    let n = 5000;
    let ifaces: Vec<Value> = (0..n)
        .map(|i| json!({"url": format!("http://h{i}.example/"), "transport": "x"}))
        .collect();
    let skills: Vec<Value> = (0..n / 2)
        .map(|_| json!({"id": "a b", "tags": [""], "inputModes": ["t"]}))
        .collect();
    let adv: Vec<Value> = (0..n / 2)
        .map(|i| json!({"skill_id": format!("s{}", i % 7), "skill_version": "01", "interface_digest": "x"}))
        .collect();
    let card = json!({
        "url": "http://x.example/", "protocolVersion": "0.3.0",
        "supportedInterfaces": ifaces.clone(), "additionalInterfaces": ifaces,
        "skills": skills,
        "capabilities": {"extensions": [{"uri": skillgate_core::wire::EXTENSION_URI,
            "params": {"interface_version": "1.0", "skills": adv}}]},
    });
    let bytes = serde_json::to_vec(&card).unwrap();
    assert!(
        bytes.len() < skillgate_lint::MAX_CARD_BYTES,
        "{}",
        bytes.len()
    );
    for choice in PROFILES {
        let t = std::time::Instant::now();
        let r = lint_bytes(&bytes, choice).unwrap();
        eprintln!(
            "{choice:?}: {:?} {} findings",
            t.elapsed(),
            r.findings.len()
        );
        assert!(r.findings.len() > 1000);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(10),
            "{choice:?}: {:?}",
            t.elapsed()
        );
    }
}
