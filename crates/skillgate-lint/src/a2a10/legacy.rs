//! The 0.3 members at the top of a 1.0 card (A2A-LEGACY-*), each reported with its 1.0 form.

use serde_json::{Map, Value};

use crate::common::{redact, Ctx};
use crate::rules;

/// Top-level 0.3 members (`skillgate_a2a::V03_ONLY_CARD_MEMBERS`), each reported with its 1.0
/// form as a hint. A test holds this function to that list, so a member added there is not
/// silently dropped here.
pub(super) fn legacy_top_level(ctx: &mut Ctx, obj: &Map<String, Value>, ifaces: Option<&Value>) {
    let listed = |u: &str| {
        ifaces.and_then(Value::as_array).is_some_and(|a| {
            a.iter()
                .any(|i| i.get("url").and_then(Value::as_str) == Some(u))
        })
    };
    if let Some(v) = obj.get("url") {
        let hint = match v.as_str().map(|u| (u, redact(u))) {
            Some((u, shown)) if listed(u) => format!(
                "{shown:?} is already in supportedInterfaces: delete the top-level url."
            ),
            Some((_, shown)) => format!(
                "Move it into supportedInterfaces: {{\"url\": {shown:?}, \"protocolBinding\": \"JSONRPC\", \"protocolVersion\": \"1.0\"}}, then delete the top-level url."
            ),
            None => rules::A2A_LEGACY_001.fix.to_string(),
        };
        ctx.report_hint(
            &rules::A2A_LEGACY_001,
            "/url",
            "top-level \"url\" is the A2A 0.3 endpoint; 1.0 clients read supportedInterfaces"
                .into(),
            hint,
        );
    }
    if obj.contains_key("protocolVersion") {
        ctx.report(
            &rules::A2A_LEGACY_002,
            "/protocolVersion",
            "top-level \"protocolVersion\" is A2A 0.3; in 1.0 it is per interface".into(),
        );
    }
    if let Some(v) = obj.get("preferredTransport") {
        let hint = match v.as_str() {
            Some(t) => format!(
                "Put the {t} interface first in supportedInterfaces (protocolBinding {t:?}) and delete preferredTransport."
            ),
            None => rules::A2A_LEGACY_003.fix.to_string(),
        };
        ctx.report_hint(
            &rules::A2A_LEGACY_003,
            "/preferredTransport",
            "\"preferredTransport\" is A2A 0.3; 1.0 prefers the first supportedInterfaces entry"
                .into(),
            hint,
        );
    }
    if obj.contains_key("additionalInterfaces") {
        ctx.report(
            &rules::A2A_LEGACY_004,
            "/additionalInterfaces",
            "\"additionalInterfaces\" is A2A 0.3; 1.0 lists every interface in supportedInterfaces"
                .into(),
        );
    }
    if let Some(v) = obj.get("supportsAuthenticatedExtendedCard") {
        let hint = match v {
            Value::Bool(b) => format!(
                "Set \"capabilities\": {{\"extendedAgentCard\": {b}}} and delete supportsAuthenticatedExtendedCard."
            ),
            _ => rules::A2A_LEGACY_005.fix.to_string(),
        };
        ctx.report_hint(
            &rules::A2A_LEGACY_005,
            "/supportsAuthenticatedExtendedCard",
            "\"supportsAuthenticatedExtendedCard\" is A2A 0.3".into(),
            hint,
        );
    }
    if let Some(v) = obj.get("security") {
        ctx.report_hint(
            &rules::A2A_LEGACY_007,
            "/security",
            "\"security\" is the A2A 0.3 requirement list; 1.0 parsers ignore it".into(),
            security_hint(v),
        );
    }
}

/// A 1.0 securityRequirements value equivalent to a 0.3 `security` value, as a hint.
pub(super) fn security_hint(v: &Value) -> String {
    let Some(list) = v.as_array() else {
        return rules::A2A_LEGACY_007.fix.to_string();
    };
    let converted: Vec<Value> = list
        .iter()
        .filter_map(Value::as_object)
        .map(|req| {
            let schemes: Map<String, Value> = req
                .iter()
                .map(|(name, scopes)| {
                    (
                        name.clone(),
                        serde_json::json!({ "list": scopes.as_array().cloned().unwrap_or_default() }),
                    )
                })
                .collect();
            serde_json::json!({ "schemes": schemes })
        })
        .collect();
    format!(
        "Write \"securityRequirements\": {} and delete \"security\".",
        Value::Array(converted)
    )
}

#[cfg(test)]
mod tests {
    use crate::{lint_value, Profile, ProfileChoice};
    use serde_json::json;

    /// Each 0.3-only member gets its own legacy finding at its own pointer: the unknown-member
    /// check skips exactly these, so one missing here would go unreported.
    #[test]
    fn every_v03_only_member_is_reported() {
        for member in skillgate_a2a::V03_ONLY_CARD_MEMBERS {
            let mut card = json!({
                "name": "a", "description": "d", "version": "1",
                "supportedInterfaces": [{"url": "https://a.example/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
                "capabilities": {}, "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"], "skills": []
            });
            card[member] = json!("x");
            let report = lint_value(&card, ProfileChoice::Fixed(Profile::A2a10));
            let at = format!("/{member}");
            assert!(
                report
                    .findings
                    .iter()
                    .any(|f| f.path == at && f.rule.starts_with("A2A-LEGACY-")),
                "{member}: {:?}",
                report.rule_ids()
            );
        }
    }
}
