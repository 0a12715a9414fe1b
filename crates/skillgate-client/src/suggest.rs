//! Plain-language help for local mistakes the user typed: "did you mean" for a misspelled
//! skill id or enum value, and the members an object allows. Only for local errors: the
//! values shown are the user's own, and nothing here changes what goes on the wire.

use serde_json::Value;
use skillgate_core::wire::ErrorDetail;

/// Similarity (Jaro-Winkler, 0..1) above which a candidate is offered as "did you mean".
const CLOSE_ENOUGH: f64 = 0.85;

/// The candidate closest to `word`, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, c)| *score >= CLOSE_ENOUGH && *c != word)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// ` did you mean "X"?` for `word` among `candidates`, or nothing.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    closest(word, candidates)
        .map(|c| format!(" did you mean {c:?}?"))
        .unwrap_or_default()
}

fn parent(pointer: &str) -> (&str, &str) {
    pointer.rsplit_once('/').unwrap_or(("", pointer))
}

/// One sentence for an input detail, when there is a plainer way to say it than the
/// keyword: an unknown member with the allowed ones, an enum value with the closest allowed.
/// `schema` is the input schema the detail's `schema_path` points into.
pub(crate) fn explain(schema: &Value, arguments: &Value, d: &ErrorDetail) -> Option<String> {
    let schema_path = d.schema_path.as_deref()?;
    match d.keyword.as_deref()? {
        "additionalProperties" => {
            let (_, member) = parent(&d.instance_path);
            let member = member.replace("~1", "/").replace("~0", "~");
            let (object_schema, _) = parent(schema_path);
            let mut allowed: Vec<&str> = schema
                .pointer(object_schema)?
                .get("properties")?
                .as_object()?
                .keys()
                .map(String::as_str)
                .collect();
            allowed.sort_unstable();
            let at = parent(&d.instance_path).0;
            Some(format!(
                "unknown member `{member}`{} (allowed: {}){}",
                if at.is_empty() {
                    String::new()
                } else {
                    format!(" in {at}")
                },
                allowed.join(", "),
                did_you_mean(&member, allowed.iter().copied())
            ))
        }
        "enum" => {
            let value = arguments.pointer(&d.instance_path)?;
            let allowed: Vec<&Value> = schema.pointer(schema_path)?.as_array()?.iter().collect();
            let shown: Vec<String> = allowed.iter().map(|v| v.to_string()).collect();
            let hint = value
                .as_str()
                .map(|s| did_you_mean(s, allowed.iter().filter_map(|v| v.as_str())))
                .unwrap_or_default();
            let path = if d.instance_path.is_empty() {
                "/"
            } else {
                &d.instance_path
            };
            Some(format!(
                "{path}: {value} is not allowed (allowed: {}){hint}",
                shown.join(", ")
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn detail(instance: &str, schema: &str, keyword: &str) -> ErrorDetail {
        serde_json::from_value(json!({"instance_path": instance, "schema_path": schema,
            "keyword": keyword}))
        .unwrap()
    }

    #[test]
    fn typos_are_named_and_far_words_are_not() {
        let ids = ["collect_interface_counters", "assess_interface_health"];
        assert_eq!(
            closest("collect_interface_counter", ids),
            Some("collect_interface_counters")
        );
        assert_eq!(closest("reboot", ids), None);
        let schema = json!({"type": "object", "additionalProperties": false,
            "properties": {"interface": {}, "window_ms": {},
                "c": {"properties": {"metric": {"enum": ["rx_bytes_per_second", "utilization"]}}}}});
        let args = json!({"interfase": "lo", "c": {"metric": "rx_bytes_per_secnd"}});
        assert_eq!(
            explain(&schema, &args, &detail("/interfase", "/additionalProperties", "additionalProperties"))
                .unwrap(),
            "unknown member `interfase` (allowed: c, interface, window_ms) did you mean \"interface\"?"
        );
        assert_eq!(
            explain(
                &schema,
                &args,
                &detail("/c/metric", "/properties/c/properties/metric/enum", "enum")
            )
            .unwrap(),
            "/c/metric: \"rx_bytes_per_secnd\" is not allowed (allowed: \"rx_bytes_per_second\", \
             \"utilization\") did you mean \"rx_bytes_per_second\"?"
        );
        assert_eq!(
            explain(&schema, &args, &detail("/x", "/type", "type")),
            None
        );
    }
}
