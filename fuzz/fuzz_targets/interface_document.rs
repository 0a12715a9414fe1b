//! Skill Interface Document checking: any JSON must yield findings or a validated document,
//! never a panic, and a document accepted once is accepted again with its own digest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillgate_core::document::{validate_document, Expectations, ValidatedDocument};
use skillgate_core::jcs;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = jcs::parse_strict_with(data, jcs::ParseOptions { max_depth: 64 }) else {
        return;
    };
    let findings = validate_document(&value, &Expectations::default());
    match ValidatedDocument::from_value(&value, &Expectations::default()) {
        Ok(doc) => {
            assert!(findings.is_empty(), "accepted with findings {findings:?}");
            let expect = Expectations {
                skill_id: Some(doc.skill_id().to_owned()),
                skill_version: Some(doc.skill_version().to_owned()),
                interface_digest: Some(doc.interface_digest()),
            };
            assert!(validate_document(&value, &expect).is_empty());
            let _ = doc.input_validator().validate(&value);
        }
        Err(_) => assert!(!findings.is_empty(), "refused without a finding"),
    }
});
