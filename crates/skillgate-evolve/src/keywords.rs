//! The keyword rules of the structural walk: assertions that stand alone (type, enum, const,
//! bounds, pattern, format, required, uniqueItems) and the object and array keyword groups.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::finding::Effect;
use crate::pointer::child;
use crate::walk::Walk;

/// Both sides of one schema object and where they are.
pub(crate) struct Ctx<'c> {
    pub o: &'c Map<String, Value>,
    pub n: &'c Map<String, Value>,
    pub po: Option<&'c str>,
    pub pn: Option<&'c str>,
}

impl Ctx<'_> {
    /// The pointers of keyword `k` on each side, `None` where that side lacks it.
    fn at(&self, k: &str) -> (Option<String>, Option<String>) {
        (
            self.po
                .filter(|_| self.o.contains_key(k))
                .map(|p| child(p, k)),
            self.pn
                .filter(|_| self.n.contains_key(k))
                .map(|p| child(p, k)),
        )
    }

    fn report(
        &self,
        w: &mut Walk<'_>,
        k: &str,
        rule: &'static str,
        effect: Effect,
        reason: String,
    ) {
        let (a, b) = self.at(k);
        w.record(rule, effect, a.as_deref(), b.as_deref(), reason);
    }
}

const ALL_TYPES: [&str; 6] = ["null", "boolean", "object", "array", "number", "string"];

fn types(v: Option<&Value>) -> Option<BTreeSet<&str>> {
    match v? {
        Value::String(s) => Some(BTreeSet::from([s.as_str()])),
        Value::Array(a) => Some(a.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

fn covered(t: &str, set: &Option<BTreeSet<&str>>) -> bool {
    match set {
        None => true,
        Some(s) => s.contains(t) || (t == "integer" && s.contains("number")),
    }
}

/// JSON Schema equality: numbers by value (`1` equals `1.0`), objects without order.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(37).collect::<String>())
    } else {
        s
    }
}

/// Keywords that assert on the value at hand and read no other keyword.
pub(crate) fn assertions(w: &mut Walk<'_>, c: &Ctx<'_>) {
    type_rule(w, c);
    enum_rule(w, c);
    const_rule(w, c);
    for k in [
        "minimum",
        "exclusiveMinimum",
        "minLength",
        "minItems",
        "minProperties",
    ] {
        bound(w, c, k, true);
    }
    for k in [
        "maximum",
        "exclusiveMaximum",
        "maxLength",
        "maxItems",
        "maxProperties",
    ] {
        bound(w, c, k, false);
    }
    multiple_of(w, c);
    for (k, added, removed, changed) in [
        (
            "pattern",
            "EVO-SCHEMA-008",
            "EVO-SCHEMA-009",
            "EVO-SCHEMA-010",
        ),
        (
            "format",
            "EVO-SCHEMA-017",
            "EVO-SCHEMA-018",
            "EVO-SCHEMA-019",
        ),
    ] {
        match (c.o.get(k), c.n.get(k)) {
            (None, Some(b)) => c.report(
                w,
                k,
                added,
                Effect::Narrows,
                format!("{k} {} added", short(b)),
            ),
            (Some(a), None) => c.report(
                w,
                k,
                removed,
                Effect::Widens,
                format!("{k} {} removed", short(a)),
            ),
            (Some(a), Some(b)) if a != b => c.report(
                w,
                k,
                changed,
                Effect::Unknown,
                format!(
                    "{k} changed from {} to {}; one {k} is not compared with another",
                    short(a),
                    short(b)
                ),
            ),
            _ => {}
        }
    }
    let unique = |m: &Map<String, Value>| m.get("uniqueItems") == Some(&Value::Bool(true));
    match (unique(c.o), unique(c.n)) {
        (false, true) => c.report(
            w,
            "uniqueItems",
            "EVO-SCHEMA-020",
            Effect::Narrows,
            "uniqueItems now required".to_owned(),
        ),
        (true, false) => c.report(
            w,
            "uniqueItems",
            "EVO-SCHEMA-020",
            Effect::Widens,
            "uniqueItems no longer required".to_owned(),
        ),
        _ => {}
    }
    required(w, c);
}

fn type_rule(w: &mut Walk<'_>, c: &Ctx<'_>) {
    let (a, b) = (c.o.get("type"), c.n.get("type"));
    if a == b {
        return;
    }
    let (to, tn) = (types(a), types(b));
    if (a.is_some() && to.is_none()) || (b.is_some() && tn.is_none()) {
        c.report(
            w,
            "type",
            "EVO-SCHEMA-025",
            Effect::Unknown,
            "type is not a string or an array of strings".to_owned(),
        );
        return;
    }
    let all: Vec<&str> = ALL_TYPES.to_vec();
    let old_list: Vec<&str> = to.clone().map_or(all.clone(), |s| s.into_iter().collect());
    let new_list: Vec<&str> = tn.clone().map_or(all, |s| s.into_iter().collect());
    let lost: Vec<&str> = old_list
        .iter()
        .copied()
        .filter(|t| !covered(t, &tn))
        .collect();
    let gained: Vec<&str> = new_list
        .iter()
        .copied()
        .filter(|t| !covered(t, &to))
        .collect();
    if !lost.is_empty() {
        c.report(
            w,
            "type",
            "EVO-SCHEMA-001",
            Effect::Narrows,
            format!("type narrowed: {} no longer accepted", lost.join(", ")),
        );
    }
    if !gained.is_empty() {
        c.report(
            w,
            "type",
            "EVO-SCHEMA-002",
            Effect::Widens,
            format!("type widened: {} now accepted", gained.join(", ")),
        );
    }
}

fn enum_rule(w: &mut Walk<'_>, c: &Ctx<'_>) {
    let list = |m: &Map<String, Value>| m.get("enum").map(|v| v.as_array().cloned());
    match (list(c.o), list(c.n)) {
        (None, None) => {}
        (Some(None), _) | (_, Some(None)) => {
            if c.o.get("enum") != c.n.get("enum") {
                c.report(
                    w,
                    "enum",
                    "EVO-SCHEMA-025",
                    Effect::Unknown,
                    "enum is not an array".to_owned(),
                );
            }
        }
        (None, Some(Some(b))) => c.report(
            w,
            "enum",
            "EVO-SCHEMA-003",
            Effect::Narrows,
            format!("enum of {} value(s) introduced", b.len()),
        ),
        (Some(Some(a)), None) => c.report(
            w,
            "enum",
            "EVO-SCHEMA-004",
            Effect::Widens,
            format!("enum of {} value(s) removed", a.len()),
        ),
        (Some(Some(a)), Some(Some(b))) => {
            let gone: Vec<String> = a
                .iter()
                .filter(|x| !b.iter().any(|y| same(x, y)))
                .map(short)
                .collect();
            let new: Vec<String> = b
                .iter()
                .filter(|y| !a.iter().any(|x| same(x, y)))
                .map(short)
                .collect();
            if !gone.is_empty() {
                c.report(
                    w,
                    "enum",
                    "EVO-SCHEMA-003",
                    Effect::Narrows,
                    format!("enum value(s) removed: {}", gone.join(", ")),
                );
            }
            if !new.is_empty() {
                c.report(
                    w,
                    "enum",
                    "EVO-SCHEMA-004",
                    Effect::Widens,
                    format!("enum value(s) added: {}", new.join(", ")),
                );
            }
        }
    }
}

fn const_rule(w: &mut Walk<'_>, c: &Ctx<'_>) {
    let (effect, reason) = match (c.o.get("const"), c.n.get("const")) {
        (None, Some(b)) => (Effect::Narrows, format!("const {} introduced", short(b))),
        (Some(a), None) => (Effect::Widens, format!("const {} removed", short(a))),
        (Some(a), Some(b)) if !same(a, b) => (
            Effect::Both,
            format!("const changed from {} to {}", short(a), short(b)),
        ),
        _ => return,
    };
    c.report(w, "const", "EVO-SCHEMA-005", effect, reason);
}

/// A lower (`lower`) or upper bound keyword. Absent means no bound: 0 for the counting
/// lower bounds, unbounded for the rest.
fn bound(w: &mut Walk<'_>, c: &Ctx<'_>, k: &str, lower: bool) {
    let (a, b) = (c.o.get(k), c.n.get(k));
    if a == b {
        return;
    }
    let counting = k.starts_with("min") && k != "minimum";
    let value = |v: Option<&Value>| -> Option<Option<f64>> {
        match v {
            None if counting => Some(Some(0.0)),
            None => Some(None),
            Some(x) => x.as_f64().map(Some),
        }
    };
    let (Some(x), Some(y)) = (value(a), value(b)) else {
        c.report(
            w,
            k,
            "EVO-SCHEMA-025",
            Effect::Unknown,
            format!("{k} is not a number"),
        );
        return;
    };
    // None is "no bound": the loosest possible.
    let tighter = match (x, y) {
        (None, None) => return,
        (None, Some(_)) => true,
        (Some(_), None) => false,
        (Some(p), Some(q)) if p == q => return,
        (Some(p), Some(q)) => {
            if lower {
                q > p
            } else {
                q < p
            }
        }
    };
    let show = |v: Option<f64>| v.map_or("none".to_owned(), |f| f.to_string());
    let (rule, effect, verb) = if tighter {
        ("EVO-SCHEMA-006", Effect::Narrows, "tightened")
    } else {
        ("EVO-SCHEMA-007", Effect::Widens, "loosened")
    };
    c.report(
        w,
        k,
        rule,
        effect,
        format!("{k} {verb} from {} to {}", show(x), show(y)),
    );
}

fn multiple_of(w: &mut Walk<'_>, c: &Ctx<'_>) {
    let k = "multipleOf";
    let (a, b) = (c.o.get(k), c.n.get(k));
    let whole = |v: &Value| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 1.0 && *f < 9.0e15)
            .map(|f| f as u64)
    };
    let (rule, effect, reason) = match (a, b) {
        (None, None) => return,
        (Some(x), Some(y)) if same(x, y) => return,
        (None, Some(y)) => (
            "EVO-SCHEMA-006",
            Effect::Narrows,
            format!("multipleOf {} introduced", short(y)),
        ),
        (Some(x), None) => (
            "EVO-SCHEMA-007",
            Effect::Widens,
            format!("multipleOf {} removed", short(x)),
        ),
        (Some(x), Some(y)) => match (whole(x), whole(y)) {
            (Some(p), Some(q)) if p % q == 0 => (
                "EVO-SCHEMA-007",
                Effect::Widens,
                format!("multipleOf loosened from {p} to {q}"),
            ),
            (Some(p), Some(q)) if q % p == 0 => (
                "EVO-SCHEMA-006",
                Effect::Narrows,
                format!("multipleOf tightened from {p} to {q}"),
            ),
            (Some(p), Some(q)) => (
                "EVO-SCHEMA-006",
                Effect::Both,
                format!("multipleOf changed from {p} to {q}, neither divides the other"),
            ),
            _ => (
                "EVO-SCHEMA-025",
                Effect::Unknown,
                format!(
                    "multipleOf changed from {} to {}; fractional steps are not compared",
                    short(x),
                    short(y)
                ),
            ),
        },
    };
    c.report(w, k, rule, effect, reason);
}

fn required(w: &mut Walk<'_>, c: &Ctx<'_>) {
    let names = |m: &Map<String, Value>| -> BTreeSet<String> {
        m.get("required")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (names(c.o), names(c.n));
    for name in b.difference(&a) {
        c.report(
            w,
            "required",
            "EVO-SCHEMA-011",
            Effect::Narrows,
            format!("member {name:?} is now required"),
        );
    }
    for name in a.difference(&b) {
        c.report(
            w,
            "required",
            "EVO-SCHEMA-012",
            Effect::Widens,
            format!("member {name:?} is no longer required"),
        );
    }
}

/// `properties`, `patternProperties` and `additionalProperties` (one group: which schema a
/// member meets depends on all three), `propertyNames`, and the `dependent*` keywords.
pub(crate) fn objects(w: &mut Walk<'_>, c: &Ctx<'_>) {
    let map = |m: &'_ Map<String, Value>, k: &str| -> Option<Map<String, Value>> {
        m.get(k).and_then(Value::as_object).cloned()
    };
    let (pp_o, pp_n) = (c.o.get("patternProperties"), c.n.get("patternProperties"));
    let patterns = pp_o.is_some_and(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        || pp_n.is_some_and(|v| v.as_object().is_some_and(|m| !m.is_empty()));
    let null = Value::Null;
    if w.differ(pp_o.unwrap_or(&null), pp_n.unwrap_or(&null)) {
        c.report(
            w,
            "patternProperties",
            "EVO-SCHEMA-025",
            Effect::Unknown,
            "patternProperties changed; one pattern is not compared with another".to_owned(),
        );
    }
    let props_o = map(c.o, "properties").unwrap_or_default();
    let props_n = map(c.n, "properties").unwrap_or_default();
    let truthy = Value::Bool(true);
    let add_o = c.o.get("additionalProperties").unwrap_or(&truthy);
    let add_n = c.n.get("additionalProperties").unwrap_or(&truthy);
    let (ptr_ao, ptr_an) = c.at("additionalProperties");
    let names: BTreeSet<&String> = props_o.keys().chain(props_n.keys()).collect();
    for name in names {
        let io = c.po.map(|p| child(&child(p, "properties"), name));
        let in_ = c.pn.map(|p| child(&child(p, "properties"), name));
        match (props_o.get(name), props_n.get(name)) {
            (Some(x), Some(y)) => w.compare(x, y, io.as_deref(), in_.as_deref()),
            (Some(x), None) => {
                let effect = if patterns {
                    Effect::Unknown
                } else {
                    w.effect_of(x, add_n, io.as_deref(), ptr_an.as_deref())
                };
                let why = if patterns {
                    "; it may match patternProperties, not judged"
                } else {
                    ""
                };
                w.record(
                    "EVO-SCHEMA-015",
                    effect,
                    io.as_deref(),
                    ptr_an.as_deref(),
                    format!("property {name:?} removed{why}"),
                );
            }
            (None, Some(y)) => {
                let effect = if patterns {
                    Effect::Unknown
                } else {
                    w.effect_of(add_o, y, ptr_ao.as_deref(), in_.as_deref())
                };
                let why = if patterns {
                    "; it may match patternProperties, not judged"
                } else {
                    ""
                };
                w.record(
                    "EVO-SCHEMA-016",
                    effect,
                    ptr_ao.as_deref(),
                    in_.as_deref(),
                    format!("property {name:?} added{why}"),
                );
            }
            (None, None) => {}
        }
    }
    if w.differ(add_o, add_n) {
        let effect = w.effect_of(add_o, add_n, ptr_ao.as_deref(), ptr_an.as_deref());
        let (rule, what) = match effect {
            Effect::Neutral => ("", ""),
            Effect::Narrows => ("EVO-SCHEMA-013", "closed or narrowed"),
            Effect::Widens => ("EVO-SCHEMA-014", "opened or widened"),
            Effect::Both | Effect::Unknown => ("EVO-SCHEMA-013", "changed"),
        };
        if !rule.is_empty() {
            w.record(
                rule,
                effect,
                ptr_ao.as_deref(),
                ptr_an.as_deref(),
                format!("additionalProperties {what} for members no properties entry names"),
            );
        }
    }
    w.sub(c, "propertyNames");
    for k in ["dependentRequired", "dependentSchemas"] {
        if w.differ(c.o.get(k).unwrap_or(&null), c.n.get(k).unwrap_or(&null)) {
            c.report(
                w,
                k,
                "EVO-SCHEMA-025",
                Effect::Unknown,
                format!("{k} changed; not judged by the walk"),
            );
        }
    }
}

/// `prefixItems` with `items` (position by position, then the tail) and `contains` with its
/// bounds.
pub(crate) fn arrays(w: &mut Walk<'_>, c: &Ctx<'_>) {
    let truthy = Value::Bool(true);
    let prefix = |m: &Map<String, Value>| {
        m.get("prefixItems")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (pre_o, pre_n) = (prefix(c.o), prefix(c.n));
    let (items_o, items_n) = (
        c.o.get("items").unwrap_or(&truthy),
        c.n.get("items").unwrap_or(&truthy),
    );
    let (ptr_io, ptr_in) = c.at("items");
    for i in 0..pre_o.len().max(pre_n.len()) {
        let (x, px) = match pre_o.get(i) {
            Some(v) => (
                v,
                c.po.map(|p| child(&child(p, "prefixItems"), &i.to_string())),
            ),
            None => (items_o, ptr_io.clone()),
        };
        let (y, py) = match pre_n.get(i) {
            Some(v) => (
                v,
                c.pn.map(|p| child(&child(p, "prefixItems"), &i.to_string())),
            ),
            None => (items_n, ptr_in.clone()),
        };
        w.compare(x, y, px.as_deref(), py.as_deref());
    }
    if c.o.contains_key("items") || c.n.contains_key("items") {
        w.compare(items_o, items_n, ptr_io.as_deref(), ptr_in.as_deref());
    }
    let (a, b) = (c.o.get("contains"), c.n.get("contains"));
    let contains_differ = match (a, b) {
        (Some(x), Some(y)) => w.differ(x, y),
        (None, None) => false,
        _ => true,
    };
    match (a, b) {
        (None, None) => {}
        (Some(_), Some(_)) if !contains_differ => {
            for (k, lower, default) in [
                ("minContains", true, Some(1.0)),
                ("maxContains", false, None),
            ] {
                let (x, y) = (
                    c.o.get(k).and_then(Value::as_f64).or(default),
                    c.n.get(k).and_then(Value::as_f64).or(default),
                );
                let tighter = match (x, y) {
                    (p, q) if p == q => continue,
                    (None, _) => true,
                    (_, None) => false,
                    (Some(p), Some(q)) => {
                        if lower {
                            q > p
                        } else {
                            q < p
                        }
                    }
                };
                let (rule, effect) = if tighter {
                    ("EVO-SCHEMA-006", Effect::Narrows)
                } else {
                    ("EVO-SCHEMA-007", Effect::Widens)
                };
                c.report(
                    w,
                    k,
                    rule,
                    effect,
                    format!(
                        "{k} {} from {x:?} to {y:?}",
                        if tighter { "tightened" } else { "loosened" }
                    ),
                );
            }
        }
        (None, Some(_)) => c.report(
            w,
            "contains",
            "EVO-SCHEMA-021",
            Effect::Narrows,
            "contains added".to_owned(),
        ),
        (Some(_), None) => c.report(
            w,
            "contains",
            "EVO-SCHEMA-021",
            Effect::Widens,
            "contains removed".to_owned(),
        ),
        (Some(_), Some(_)) => c.report(
            w,
            "contains",
            "EVO-SCHEMA-025",
            Effect::Unknown,
            "contains changed; not judged by the walk".to_owned(),
        ),
    }
}
