//! Every per-skill check in catalogue order; each family skips what it cannot reach.

use skillgate_core::wire::AdvertisedSkill;

use super::{call, describe, probes, Run, Target};
use crate::catalogue::{self as cat, CheckDef};

/// The checks that need a valid served document.
const AFTER_DOCUMENT: [CheckDef; 9] = [
    cat::PROBE_GENERATION,
    cat::MISMATCH_VERSION,
    cat::MISMATCH_DIGEST,
    cat::INPUT_MISSING_REQUIRED,
    cat::INPUT_WRONG_TYPE,
    cat::INPUT_NO_ECHO,
    cat::CALL_COMPLETES,
    cat::CALL_PRIMARY,
    cat::CALL_RECORDS,
];

/// Runs the describe, probe and call families for one advertised skill.
pub(crate) async fn skill_checks(run: &mut Run, to: Target<'_>, advertised: &AdvertisedSkill) {
    let skill_id = advertised.skill_id.as_str();
    let skill = Some(skill_id);
    let Some(response) = describe::describe_check(run, to, skill_id).await else {
        let why = "no describe_skill result";
        run.skip_all(&[cat::DESCRIBE_DIGEST, cat::DESCRIBE_DOCUMENT], skill, why);
        run.skip_all(&AFTER_DOCUMENT, skill, why);
        return;
    };
    describe::digest_check(run, skill_id, advertised.interface_digest, &response);
    let doc_value = &response.skill_interface;
    let Some(doc) = describe::document_check(run, skill_id, &advertised.skill_version, doc_value)
    else {
        run.skip_all(&AFTER_DOCUMENT, skill, "the served document is not valid");
        return;
    };
    let generated = probes::generation_check(run, &doc);
    probes::mismatch_checks(run, to, &doc, &generated).await;
    probes::input_and_echo_checks(run, to, &doc, &generated).await;
    call::call_checks(run, to, &doc, &generated.valid).await;
}
