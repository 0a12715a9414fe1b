//! `skillgate interface diff` and `skillgate card diff` end to end, on the evolution corpus of
//! `skillgate-evolve` and on cards assembled here.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use skillgate_core::instance::CompiledSchema;
use skillgate_testkit::cli::{code, stdout, stdout_json};

use super::skillgate;

fn doc(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../skillgate-evolve/tests/fixtures/evolution/documents")
        .join(format!("evaluate_resource_condition-{version}.json"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// NEW re-labelled with another skill_version (the digest changes with it).
fn relabelled(dir: &Path, version: &str) -> PathBuf {
    let mut v = read(&doc("2.0"));
    v["skill_version"] = json!(version);
    let p = dir.join(format!("relabelled-{version}.json"));
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn a_carried_major_bump_exits_0_and_names_each_change() {
    let o = skillgate().run(&["interface", "diff", s(&doc("1.0")), s(&doc("2.0"))]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("evaluate_resource_condition 1.0 -> 2.0: major bump required"),
        "{text}"
    );
    assert!(text.contains("breaking EVO-SCHEMA-004 [output]"), "{text}");
    assert!(text.contains("compatible EVO-SCHEMA-016 [input]"), "{text}");
}

#[test]
fn a_missing_bump_exits_1_with_evo_ver_001() {
    let dir = tempfile::tempdir().unwrap();
    let new = relabelled(dir.path(), "1.1");
    let o = skillgate().run(&[
        "interface",
        "diff",
        s(&doc("1.0")),
        s(&new),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1);
    let v = stdout_json(&o);
    assert_eq!(v["required_bump"], "major");
    assert_eq!(v["version_carries_bump"], false);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"EVO-VER-001"), "{rules:?}");
    let f = &v["findings"][0];
    for member in [
        "rule",
        "side",
        "class",
        "old_pointer",
        "new_pointer",
        "reason",
    ] {
        assert!(f.get(member).is_some(), "{member} missing in {f}");
    }
}

#[test]
fn unreadable_exits_2_and_invalid_exits_1() {
    let o = skillgate().run(&[
        "interface",
        "diff",
        "/nonexistent/old.json",
        s(&doc("2.0")),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout_json(&o)["ok"], false);
    let dir = tempfile::tempdir().unwrap();
    let mut bad = read(&doc("2.0"));
    bad["input_schema"]["digest"] = json!(format!("sha256:{}", "0".repeat(64)));
    let p = dir.path().join("bad.json");
    std::fs::write(&p, bad.to_string()).unwrap();
    let o = skillgate().run(&["interface", "diff", s(&doc("1.0")), s(&p)]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("new: "), "{}", stdout(&o));
}

/// The members SARIF 2.1.0 requires of what this report uses (sarifLog, run, tool,
/// toolComponent, reportingDescriptor, result, message, location, physicalLocation,
/// artifactLocation, logicalLocation), written for this test from the specification, so that a
/// plain `cargo test` checks the structure offline; `scripts/test` also validates against the
/// official schema (`sarif_output_meets_the_official_sarif_2_1_0_schema`).
fn sarif_subset() -> Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-2.1.0-subset.schema.json");
    read(&p)
}

#[test]
fn sarif_output_meets_the_sarif_2_1_0_structure() {
    let o = skillgate().run(&[
        "interface",
        "diff",
        s(&doc("1.0")),
        s(&doc("2.0")),
        "--format",
        "sarif",
    ]);
    assert_eq!(code(&o), 0);
    let v = stdout_json(&o);
    let schema = CompiledSchema::compile(&sarif_subset()).unwrap();
    // The subset refuses what SARIF refuses: a run without its tool, an unknown level.
    assert!(!schema.is_valid(&json!({"version": "2.1.0", "runs": [{"results": []}]})));
    let mut wrong = v.clone();
    wrong["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!schema.is_valid(&wrong));
    if let Err(details) = schema.validate(&v) {
        panic!("{details:#?}");
    }
    let driver = &v["runs"][0]["tool"]["driver"];
    for r in v["runs"][0]["results"].as_array().unwrap() {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(driver["rules"][i]["id"], r["ruleId"]);
    }
}

/// `interface diff` and `card lint` SARIF against the official SARIF 2.1.0 schema
/// (`sarif-2.1.0-rtm.5.json`), named by `SKILLGATE_SARIF_SCHEMA`. Ignored by default: the schema
/// is not in the repository; `scripts/test` takes it from the npm package @microsoft/jest-sarif
/// and runs this test.
#[test]
#[ignore]
fn sarif_output_meets_the_official_sarif_2_1_0_schema() {
    let path = std::env::var("SKILLGATE_SARIF_SCHEMA")
        .expect("SKILLGATE_SARIF_SCHEMA names the official sarif-2.1.0-rtm.5.json");
    let mut schema = read(Path::new(&path));
    assert!(
        schema["title"].as_str().unwrap_or("").contains("2.1.0"),
        "{path} is not the SARIF 2.1.0 schema"
    );
    // The published `language` patterns have a lone `]`, a literal in ECMA-262 regexes (what
    // the schema is written for) and an error in Rust's: it is escaped, meaning the same.
    fn escape_lone_brackets(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    match x {
                        Value::String(p) if k == "pattern" => *p = p.replace("}]?", "}\\]?"),
                        _ => escape_lone_brackets(x),
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(escape_lone_brackets),
            _ => {}
        }
    }
    escape_lone_brackets(&mut schema);
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .unwrap();
    let check = |what: &str, v: &Value| {
        let errors: Vec<String> = validator
            .iter_errors(v)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{what}: {errors:#?}");
    };
    let diff = skillgate().run(&[
        "interface",
        "diff",
        s(&doc("1.0")),
        s(&doc("2.0")),
        "--format",
        "sarif",
    ]);
    let diff = stdout_json(&diff);
    assert!(!diff["runs"][0]["results"].as_array().unwrap().is_empty());
    check("interface diff", &diff);
    let card = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../skillgate-lint/tests/fixtures/mixed/legacy-everything.json");
    let lint = skillgate().run(&["card", "lint", s(&card), "--format", "sarif"]);
    let lint = stdout_json(&lint);
    assert!(!lint["runs"][0]["results"].as_array().unwrap().is_empty());
    check("card lint", &lint);
    // The schema refuses what SARIF refuses, so the checks above can fail.
    let mut wrong = diff.clone();
    wrong["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!validator.is_valid(&wrong));
}

fn card(skills: &[(&str, &str, String)]) -> Value {
    json!({
        "name": "probe agent",
        "skills": skills.iter().map(|(id, _, _)| json!({"id": id})).chain([json!({"id": "describe_skill"})]).collect::<Vec<_>>(),
        "capabilities": {"extensions": [{
            "uri": skillgate_core::wire::EXTENSION_URI,
            "params": {"interface_version": "1.0", "skills": skills.iter().map(|(id, v, d)| json!({
                "skill_id": id, "skill_version": v, "interface_digest": d
            })).collect::<Vec<_>>()}
        }]}
    })
}

fn digest_of(p: &Path) -> String {
    skillgate_core::digest(&read(p)).to_string()
}

#[test]
fn card_diff_reports_skills_with_their_interface_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let (d1, d2) = (digest_of(&doc("1.0")), digest_of(&doc("2.0")));
    let old = card(&[
        ("evaluate_resource_condition", "1.0", d1.clone()),
        ("ping", "1.0", d1.clone()),
    ]);
    let new = card(&[
        ("evaluate_resource_condition", "2.0", d2),
        ("trace", "1.0", d1),
    ]);
    let (po, pn) = (dir.path().join("old.json"), dir.path().join("new.json"));
    std::fs::write(&po, old.to_string()).unwrap();
    std::fs::write(&pn, new.to_string()).unwrap();
    let o = skillgate().run(&[
        "card",
        "diff",
        s(&po),
        s(&pn),
        "--interface",
        s(&doc("1.0")),
        "--interface",
        s(&doc("2.0")),
        "--format",
        "json",
    ]);
    // ping was removed: its callers fail.
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let v = stdout_json(&o);
    let by_id = |id: &str| {
        v["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["skill_id"] == id)
            .unwrap()
            .clone()
    };
    let erc = by_id("evaluate_resource_condition");
    assert_eq!(erc["change"], "reversioned");
    assert_eq!(erc["interface"]["required_bump"], "major");
    assert_eq!(erc["problem"], Value::Null);
    assert_eq!(by_id("ping")["change"], "removed");
    assert_eq!(by_id("trace")["change"], "added");
    assert!(v["skills"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x["skill_id"] != "describe_skill"));
    // Without ping's removal the diff passes; without the documents the verdict is not at hand.
    let new = card(&[
        ("evaluate_resource_condition", "2.0", digest_of(&doc("2.0"))),
        ("ping", "1.0", digest_of(&doc("1.0"))),
    ]);
    std::fs::write(&pn, new.to_string()).unwrap();
    let o = skillgate().run(&["card", "diff", s(&po), s(&pn)]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("interface verdict: not at hand"),
        "{}",
        stdout(&o)
    );
}

/// A declarative agent serving `document` (its one skill runs `true`; only describe_skill is
/// asked here), started with `serve --config` on an ephemeral port; killed on drop.
struct LiveAgent {
    child: std::process::Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl LiveAgent {
    fn start(document: &Path) -> LiveAgent {
        use std::io::BufRead;
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(document, dir.path().join("doc.json")).unwrap();
        std::fs::write(
            dir.path().join("agent.toml"),
            "[agent]\nname = \"live\"\ndescription = \"card diff --deep\"\nversion = \"1.0.0\"\n\n\
             [[skills]]\ninterface = \"doc.json\"\nexec = [\"true\"]\n",
        )
        .unwrap();
        let mut child = skillgate()
            .env_remove("SKILLGATE_STORE")
            .command()
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--store",
                "memory",
                "--config",
            ])
            .arg(dir.path().join("agent.toml"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("serve did not start: {line:?}"))
            .to_string();
        LiveAgent {
            child,
            url,
            _dir: dir,
        }
    }
}

impl Drop for LiveAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn card_diff_deep_fetches_both_documents_from_live_agents() {
    let (old, new) = (LiveAgent::start(&doc("1.0")), LiveAgent::start(&doc("2.0")));
    // Without --deep: the cards alone, no verdict.
    let o = skillgate().run(&["card", "diff", &old.url, &new.url, "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let erc = |v: &Value| {
        v["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["skill_id"] == "evaluate_resource_condition")
            .unwrap()
            .clone()
    };
    assert_eq!(erc(&stdout_json(&o))["interface"], Value::Null);
    // With --deep: both documents through describe_skill, the verdict as with the files.
    let o = skillgate().run(&[
        "card", "diff", &old.url, &new.url, "--deep", "--format", "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let e = erc(&stdout_json(&o));
    assert_eq!(e["change"], "reversioned");
    assert_eq!(e["interface"]["required_bump"], "major", "{e}");
    // One side a file: its document comes from --interface, the other from the agent.
    let dir = tempfile::tempdir().unwrap();
    let card_file = dir.path().join("old-card.json");
    let card = ureq_card(&old.url);
    std::fs::write(&card_file, card.to_string()).unwrap();
    let o = skillgate().run(&[
        "card",
        "diff",
        s(&card_file),
        &new.url,
        "--deep",
        "--interface",
        s(&doc("1.0")),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert_eq!(erc(&stdout_json(&o))["interface"]["required_bump"], "major");
    // --deep with two files has nothing to fetch from: a usage error.
    let o = skillgate().run(&["card", "diff", s(&card_file), s(&card_file), "--deep"]);
    assert_eq!(code(&o), 2);
}

/// The agent's 1.0 card as JSON, over plain HTTP.
fn ureq_card(base: &str) -> Value {
    use std::io::{Read, Write};
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /.well-known/agent-card.json HTTP/1.0\r\nHost: {addr}\r\nA2A-Version: 1.0\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let body = raw.split_once("\r\n\r\n").unwrap().1;
    serde_json::from_str(body).unwrap()
}
