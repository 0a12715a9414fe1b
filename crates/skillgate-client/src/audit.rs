//! `card lint --deep` as a library: for every skill a card advertises, the client's steps 1
//! to 6 against the live agent (describe_skill, three-way digest, document validation,
//! embedded schema digests). Nothing but describe_skill is sent.
//!
//! The audit returns typed findings; mapping them onto lint rule ids and output formats is
//! the caller's business, so the client does not depend on the linter.

use crate::a2a::A2aConn;
use crate::http::Http;
use crate::steps;

/// What kind of failure an audit finding reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditKind {
    /// The card or the skill cannot be used by the client, or describe_skill failed.
    Unusable,
    /// The digest in the card, in the describe_skill response and of the document disagree.
    DigestMismatch,
    /// The returned document is not a valid Skill Interface Document for the skill.
    InvalidDocument,
}

/// One audit failure, located in the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditFinding {
    /// What went wrong.
    pub kind: AuditKind,
    /// JSON Pointer into the card where the finding belongs.
    pub pointer: String,
    /// What the client saw.
    pub message: String,
}

/// One skill the card advertises, as the linter located it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditedSkill {
    /// `skill_id`.
    pub skill_id: String,
    /// JSON Pointer of its advertisement entry in the card.
    pub pointer: String,
}

/// Runs steps 1 to 6 against the agent at `url` for every skill in `skills`.
pub async fn audit_card(http: &Http, url: &str, skills: &[AuditedSkill]) -> Vec<AuditFinding> {
    let mut findings = Vec::new();
    if skills.is_empty() {
        return findings;
    }
    let target = match steps::step1_fetch_card(http, url).await {
        Ok(t) => t,
        Err(e) => {
            findings.push(AuditFinding {
                kind: AuditKind::Unusable,
                pointer: "/supportedInterfaces".into(),
                message: format!("the client cannot use this card: {e}"),
            });
            return findings;
        }
    };
    let conn = A2aConn::new(http.clone(), target.interface.clone());
    for skill in skills {
        if let Some(f) = audit_one(&target, &conn, skill).await {
            findings.push(f);
        }
    }
    findings
}

async fn audit_one(
    target: &steps::Target,
    conn: &A2aConn,
    a: &AuditedSkill,
) -> Option<AuditFinding> {
    let finding = |kind, pointer: String, message: String| {
        Some(AuditFinding {
            kind,
            pointer,
            message,
        })
    };
    let id = &a.skill_id;
    let selection = match steps::step2_select_skill(&target.card, id) {
        Ok(s) => s,
        Err(e) => {
            let msg = format!("skill {id:?} cannot be selected: {e}");
            return finding(AuditKind::Unusable, a.pointer.clone(), msg);
        }
    };
    let described = match steps::step3_describe_skill(conn, &selection).await {
        Ok(d) => d,
        Err(e) => {
            let msg = format!("describe_skill for {id:?} failed: {e}");
            return finding(AuditKind::Unusable, a.pointer.clone(), msg);
        }
    };
    if let Err(e) = steps::step4_check_digests(&selection, &described.response) {
        let at = format!("{}/interface_digest", a.pointer);
        return finding(AuditKind::DigestMismatch, at, format!("skill {id:?}: {e}"));
    }
    let doc = match steps::step5_validate_document(&described.response.skill_interface, &selection)
    {
        Ok(d) => d,
        Err(e) => {
            let msg = format!("skill {id:?}: {e}");
            return finding(AuditKind::InvalidDocument, a.pointer.clone(), msg);
        }
    };
    match steps::step6_verify_schema_digests(&doc) {
        Ok(_) => None,
        Err(e) => finding(
            AuditKind::InvalidDocument,
            a.pointer.clone(),
            format!("skill {id:?}: {e}"),
        ),
    }
}
