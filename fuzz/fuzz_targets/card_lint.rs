//! Agent Card linting of arbitrary bytes under every profile: a report or an input error,
//! never a panic, and every output format renders.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillgate_lint::{lint_bytes, output, Profile, ProfileChoice};

fuzz_target!(|data: &[u8]| {
    for choice in [
        ProfileChoice::Auto,
        ProfileChoice::Fixed(Profile::A2a10),
        ProfileChoice::Fixed(Profile::A2a03),
        ProfileChoice::Fixed(Profile::AgentVault10),
    ] {
        if let Ok(report) = lint_bytes(data, choice) {
            let _ = output::to_json(&report);
            let _ = output::to_text(&report, "card.json");
            let _ = output::to_sarif(&report, "card.json");
        }
    }
});
