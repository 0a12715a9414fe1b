//! The 0.3 members at the top of a 1.0 card (A2A-LEGACY-*), each reported with its 1.0 form.

use serde_json::{Map, Value};

use crate::common::{redact, Ctx};
use crate::rules;

/// Top-level 0.3 members (`skillgate_a2a::V03_ONLY_CARD_MEMBERS`), each reported with its 1.0
/// form as a hint. A test holds this function to that list, so a member added there is not
/// silently dropped here.
pub(super) fn legacy_top_level(ctx: &mut Ctx, obj: &Map<String, Value>, ifaces: Option<&Value>) {
    if is_hybrid(obj, ifaces) {
        ctx.report(
            &rules::A2A_HYBRID_001,
            "",
            "a dual-version card: its A2A 0.3 members (url, protocolVersion, ...) repeat the 0.3 \
             interfaces of supportedInterfaces, for readers that send no A2A-Version; strict 1.0 \
             validators refuse them"
                .into(),
        );
        return;
    }
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

/// Whether the card's 0.3 top-level members are a consistent 0.3 view of its 1.0 members (a
/// dual-version rendering such as `skillgate serve`'s header-less card, or a2a-sdk's compat
/// cards): a 0.3 `protocolVersion`, a top-level `url`, and every 0.3 endpoint (`url`,
/// `additionalInterfaces[].url` with its transport) listed in `supportedInterfaces` with
/// `protocolVersion` 0.3 and the same binding. Anything else is reported member by member.
fn is_hybrid(obj: &Map<String, Value>, ifaces: Option<&Value>) -> bool {
    let is_03 = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .and_then(skillgate_a2a::WireVersion::parse)
            == Some(skillgate_a2a::WireVersion::V0_3)
    };
    let Some(listed) = ifaces.and_then(Value::as_array) else {
        return false;
    };
    // (url, binding) of every 0.3 interface the 1.0 members list.
    let v03: Vec<(&str, &str)> = listed
        .iter()
        .filter(|i| is_03(i.get("protocolVersion")))
        .filter_map(|i| Some((i.get("url")?.as_str()?, i.get("protocolBinding")?.as_str()?)))
        .collect();
    let Some(url) = obj.get("url").and_then(Value::as_str) else {
        return false;
    };
    if !is_03(obj.get("protocolVersion")) || v03.is_empty() {
        return false;
    }
    let preferred = obj
        .get("preferredTransport")
        .map_or(Some("JSONRPC"), Value::as_str);
    let Some(preferred) = preferred else {
        return false;
    };
    let additional_ok = match obj.get("additionalInterfaces") {
        None => true,
        Some(Value::Array(a)) => a.iter().all(|i| {
            let u = i.get("url").and_then(Value::as_str);
            let t = i.get("transport").and_then(Value::as_str);
            matches!((u, t), (Some(u), Some(t)) if v03.contains(&(u, t)))
        }),
        Some(_) => false,
    };
    let flag_ok = obj
        .get("supportsAuthenticatedExtendedCard")
        .is_none_or(Value::is_boolean);
    v03.contains(&(url, preferred)) && additional_ok && flag_ok && !obj.contains_key("security")
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

    fn dual() -> serde_json::Value {
        json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": [
                {"url": "https://a.example/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "https://a.example/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
                {"url": "https://a.example", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"}
            ],
            "url": "https://a.example/", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0",
            "additionalInterfaces": [
                {"url": "https://a.example/", "transport": "JSONRPC"},
                {"url": "https://a.example", "transport": "HTTP+JSON"}
            ],
            "supportsAuthenticatedExtendedCard": false,
            "capabilities": {}, "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
        })
    }

    /// A consistent dual-version card is one warning, not one error per 0.3 member; any
    /// disagreement between the two views brings the member-by-member errors back.
    #[test]
    fn a_dual_version_card_is_one_hybrid_warning() {
        let report = lint_value(&dual(), ProfileChoice::Fixed(Profile::A2a10));
        assert_eq!(
            report.rule_ids(),
            vec!["A2A-HYBRID-001"],
            "{:?}",
            report.findings
        );
        assert_eq!(report.errors(), 0);
        for (member, value) in [
            ("url", json!("https://elsewhere.example/")),
            ("protocolVersion", json!("1.0")),
            ("preferredTransport", json!("GRPC")),
            (
                "additionalInterfaces",
                json!([{"url": "https://b.example/", "transport": "JSONRPC"}]),
            ),
        ] {
            let mut card = dual();
            card[member] = value;
            let report = lint_value(&card, ProfileChoice::Fixed(Profile::A2a10));
            assert!(
                report.errors() > 0 && !report.rule_ids().contains(&"A2A-HYBRID-001"),
                "{member}: {:?}",
                report.rule_ids()
            );
        }
        // Without a 0.3 interface in supportedInterfaces it is a 0.3 card pasted over a 1.0 one.
        let mut card = dual();
        card["supportedInterfaces"] = json!([{"url": "https://a.example/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]);
        let report = lint_value(&card, ProfileChoice::Fixed(Profile::A2a10));
        assert!(
            report.rule_ids().contains(&"A2A-LEGACY-001"),
            "{:?}",
            report.rule_ids()
        );
    }

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
