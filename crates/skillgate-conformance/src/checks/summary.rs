//! The summary family: checks judged over every exchange of the run, after all others.

use skillgate_core::wire;

use super::Run;
use crate::catalogue as cat;
use crate::report::Verdict;

/// SI-ERR-001 and SI-ECHO-001, judged over every exchange of the run.
pub(crate) fn summary_checks(run: &mut Run) {
    // SI-ERR-001
    let shapes = std::mem::take(&mut run.error_shapes);
    let bad: Vec<String> = shapes
        .iter()
        .filter_map(|(l, p)| p.as_ref().map(|p| format!("{l}: {p}")))
        .collect();
    if shapes.is_empty() {
        run.push(
            cat::ERROR_SHAPE,
            None,
            Verdict::Skip,
            vec!["no error result was seen".into()],
        );
    } else if bad.is_empty() {
        run.push(
            cat::ERROR_SHAPE,
            None,
            Verdict::Pass,
            vec![format!("{} error result(s), all well formed", shapes.len())],
        );
    } else {
        run.push(cat::ERROR_SHAPE, None, Verdict::Fail, bad);
    }
    // SI-ECHO-001
    let echoes = std::mem::take(&mut run.echoes);
    let missing: Vec<String> = echoes
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(l, _)| format!("no A2A-Extensions echo on {l}"))
        .collect();
    if echoes.is_empty() {
        run.push(
            cat::EXTENSION_ECHO,
            None,
            Verdict::Skip,
            vec!["no request activated the extension".into()],
        );
    } else if missing.is_empty() {
        run.push(
            cat::EXTENSION_ECHO,
            None,
            Verdict::Pass,
            vec![format!(
                "{} response(s), each with A2A-Extensions: {}",
                echoes.len(),
                wire::EXTENSION_URI
            )],
        );
    } else {
        let mut ev = vec![format!(
            "{} of {} response(s) lacked the echo",
            missing.len(),
            echoes.len()
        )];
        ev.extend(missing.into_iter().take(10));
        run.push(cat::EXTENSION_ECHO, None, Verdict::Fail, ev);
    }
}
