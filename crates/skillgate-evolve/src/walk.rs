//! The structural walk: two JSON Schemas compared keyword by keyword, each difference
//! reported with the rule that names it and its [`Effect`] on the set of accepted values.
//!
//! Soundness rests on one fact: a schema object accepts the values that satisfy every keyword
//! group in it, so when no group narrows, the object does not narrow (and likewise for
//! widening). The groups whose keywords read each other (`properties`, `patternProperties`
//! and `additionalProperties`; `prefixItems` and `items`; `contains` with its bounds;
//! `if`/`then`/`else`) are compared as one. What the walk cannot judge (an unknown keyword,
//! `oneOf`, a changed `if`, pattern against pattern, `unevaluated*`) is an [`Effect::Unknown`],
//! never a silence.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use crate::finding::Effect;
use crate::keywords;
use crate::pointer::{child, resolve_local};

/// One structural difference, before a side classifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    pub rule: &'static str,
    pub effect: Effect,
    /// Pointer relative to the OLD schema root; `None` where OLD has no such member.
    pub old: Option<String>,
    /// Pointer relative to the NEW schema root; `None` where NEW has no such member.
    pub new: Option<String>,
    pub reason: String,
}

/// Deeper than this, the walk stops and says it could not judge (a hostile schema must not
/// exhaust the stack).
const MAX_DEPTH: usize = 96;

/// Keywords that never change which values are accepted.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$vocabulary",
];

/// Keywords the walk handles itself (everything else that differs is not judged).
const HANDLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "pattern",
    "format",
    "required",
    "uniqueItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "prefixItems",
    "items",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "definitions",
];

/// Keywords JSON Schema 2020-12 defines that the walk does not compare itself.
const DEFINED_ELSEWHERE: &[&str] = &[
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// The whole comparison of two schemas; see the module documentation.
pub(crate) struct Walk<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    /// The roots are equal, so identical subschemas are equal even through `$ref`.
    roots_equal: bool,
    neg: bool,
    depth: usize,
    changes: Vec<Change>,
    /// `$ref` target pairs being expanded (a revisit is a cycle).
    expanding: Vec<(String, String, bool)>,
    /// `$ref` target pairs already compared, with the polarity they were compared under.
    done: HashSet<(String, String, bool)>,
}

const TRUE: Value = Value::Bool(true);

impl<'a> Walk<'a> {
    /// Compares two whole schemas and returns every change found.
    pub(crate) fn run(old: &'a Value, new: &'a Value) -> Vec<Change> {
        let mut w = Walk {
            old_root: old,
            new_root: new,
            roots_equal: old == new,
            neg: false,
            depth: 0,
            changes: Vec::new(),
            expanding: Vec::new(),
            done: HashSet::new(),
        };
        if !w.roots_equal {
            w.compare(old, new, Some(""), Some(""));
        }
        w.changes
    }

    pub(crate) fn record(
        &mut self,
        rule: &'static str,
        effect: Effect,
        old: Option<&str>,
        new: Option<&str>,
        reason: String,
    ) {
        let effect = if self.neg { effect.flipped() } else { effect };
        self.changes.push(Change {
            rule,
            effect,
            old: old.map(str::to_owned),
            new: new.map(str::to_owned),
            reason,
        });
    }

    /// Whether two subschemas may accept different values: false only when they are equal
    /// and every `$ref` in them reads equal roots.
    pub(crate) fn differ(&self, o: &Value, n: &Value) -> bool {
        o != n || (!self.roots_equal && contains_reference(o))
    }

    /// The joined effect of comparing `o` with `n`, without reporting their inner changes
    /// (for a property that was added or removed: one finding says it all).
    pub(crate) fn effect_of(
        &mut self,
        o: &Value,
        n: &Value,
        po: Option<&str>,
        pn: Option<&str>,
    ) -> Effect {
        let saved = std::mem::take(&mut self.changes);
        let neg = std::mem::replace(&mut self.neg, false);
        // The memo of compared `$ref` targets is keyed by polarity, and in here the polarity
        // is reset: a target compared in here must neither be skipped because it was compared
        // outside (under the other polarity, perhaps) nor mark itself compared for outside.
        let done = std::mem::take(&mut self.done);
        self.compare(o, n, po, pn);
        self.done = done;
        self.neg = neg;
        let inner = std::mem::replace(&mut self.changes, saved);
        inner
            .iter()
            .fold(Effect::Neutral, |acc, c| acc.join(c.effect))
    }

    /// Compares two subschemas at the given pointers (`None`: implied, absent on that side).
    pub(crate) fn compare(&mut self, o: &Value, n: &Value, po: Option<&str>, pn: Option<&str>) {
        if !self.differ(o, n) {
            return;
        }
        if self.depth >= MAX_DEPTH {
            self.record(
                "EVO-SCHEMA-025",
                Effect::Unknown,
                po,
                pn,
                format!("schemas nest deeper than {MAX_DEPTH} levels; not judged"),
            );
            return;
        }
        self.depth += 1;
        match (o, n) {
            (Value::Bool(a), Value::Bool(b)) => self.booleans(*a, *b, po, pn),
            (Value::Bool(false), _) => self.booleans(false, true, po, pn),
            (_, Value::Bool(false)) => self.booleans(true, false, po, pn),
            (Value::Bool(true), Value::Object(_)) => {
                self.object(&serde_json::Map::new(), as_map(n), po, pn)
            }
            (Value::Object(_), Value::Bool(true)) => {
                self.object(as_map(o), &serde_json::Map::new(), po, pn)
            }
            (Value::Object(a), Value::Object(b)) => self.object(a, b, po, pn),
            _ => self.record(
                "EVO-SCHEMA-025",
                Effect::Unknown,
                po,
                pn,
                "a schema is neither an object nor a boolean; not judged".to_owned(),
            ),
        }
        self.depth -= 1;
    }

    fn booleans(&mut self, a: bool, b: bool, po: Option<&str>, pn: Option<&str>) {
        let (effect, what) = match (a, b) {
            (true, false) => (Effect::Narrows, "now rejects every value"),
            (false, true) => (Effect::Widens, "no longer rejects every value"),
            _ => return,
        };
        self.record(
            "EVO-SCHEMA-026",
            effect,
            po,
            pn,
            format!("the schema {what}"),
        );
    }

    fn object(
        &mut self,
        o: &serde_json::Map<String, Value>,
        n: &serde_json::Map<String, Value>,
        po: Option<&str>,
        pn: Option<&str>,
    ) {
        // `unevaluated*` reads what every other keyword (and every in-place subschema)
        // evaluated; a change anywhere beside it is beyond a keyword-by-keyword walk.
        let dynamic = [
            "unevaluatedProperties",
            "unevaluatedItems",
            "$dynamicRef",
            "$dynamicAnchor",
        ];
        if let Some(k) = dynamic
            .iter()
            .find(|k| o.contains_key(**k) || n.contains_key(**k))
        {
            self.record(
                "EVO-SCHEMA-025",
                Effect::Unknown,
                po,
                pn,
                format!("a schema with {k} changed; its effect depends on every keyword beside it"),
            );
            return;
        }
        let keys: BTreeSet<&str> = o.keys().chain(n.keys()).map(String::as_str).collect();
        for k in &keys {
            let (a, b) = (o.get(*k), n.get(*k));
            if ANNOTATIONS.contains(k) {
                if a != b {
                    let at = |p: Option<&str>, v: Option<&Value>| v.and(p).map(|p| child(p, k));
                    self.record(
                        "EVO-SCHEMA-027",
                        Effect::Neutral,
                        at(po, a).as_deref(),
                        at(pn, b).as_deref(),
                        format!("annotation {k} changed"),
                    );
                }
            } else if !HANDLED.contains(k) && a != b {
                let at = |p: Option<&str>, v: Option<&Value>| v.and(p).map(|p| child(p, k));
                // A keyword the dialect does not define validates nothing, but it may mean
                // something to a consumer (a unit, a scale): no proof about values covers it.
                let (rule, what) = if DEFINED_ELSEWHERE.contains(k) {
                    ("EVO-SCHEMA-025", "is not judged by the walk")
                } else {
                    (
                        "EVO-SCHEMA-029",
                        "is not defined by JSON Schema 2020-12; its meaning is unknown",
                    )
                };
                self.record(
                    rule,
                    Effect::Unknown,
                    at(po, a).as_deref(),
                    at(pn, b).as_deref(),
                    format!("keyword {k} changed and {what}"),
                );
            }
        }
        let ctx = keywords::Ctx { o, n, po, pn };
        keywords::assertions(self, &ctx);
        keywords::objects(self, &ctx);
        keywords::arrays(self, &ctx);
        self.applicators(&ctx);
        self.reference(&ctx);
    }

    fn applicators(&mut self, c: &keywords::Ctx<'_>) {
        let (po, pn) = (c.po, c.pn);
        // allOf: each entry constrains, so an added entry narrows and a removed one widens;
        // anyOf: each entry admits, so the other way round. Entries pair up by position.
        for (k, extra_new) in [("allOf", Effect::Narrows), ("anyOf", Effect::Widens)] {
            let (a, b) = (c.o.get(k), c.n.get(k));
            if a.is_none() && b.is_none() {
                continue;
            }
            let empty = Vec::new();
            let la = a.and_then(Value::as_array).unwrap_or(&empty);
            let lb = b.and_then(Value::as_array).unwrap_or(&empty);
            let pk_o = po.filter(|_| a.is_some()).map(|p| child(p, k));
            let pk_n = pn.filter(|_| b.is_some()).map(|p| child(p, k));
            if a.is_none() || b.is_none() {
                // The keyword itself is a constraint whichever list it holds: adding it
                // narrows, dropping it widens (unlike an entry added to a list that exists).
                let effect = if a.is_none() {
                    Effect::Narrows
                } else {
                    Effect::Widens
                };
                let verb = if a.is_none() { "added" } else { "removed" };
                self.record(
                    "EVO-SCHEMA-021",
                    effect,
                    pk_o.as_deref(),
                    pk_n.as_deref(),
                    format!("{k} {verb}"),
                );
                continue;
            }
            for i in 0..la.len().max(lb.len()) {
                let io = pk_o.as_deref().map(|p| child(p, &i.to_string()));
                let in_ = pk_n.as_deref().map(|p| child(p, &i.to_string()));
                match (la.get(i), lb.get(i)) {
                    (Some(x), Some(y)) => self.compare(x, y, io.as_deref(), in_.as_deref()),
                    (None, Some(_)) => self.record(
                        "EVO-SCHEMA-021",
                        extra_new,
                        None,
                        in_.as_deref(),
                        format!("{k} entry {i} added"),
                    ),
                    (Some(_), None) => self.record(
                        "EVO-SCHEMA-021",
                        extra_new.flipped(),
                        io.as_deref(),
                        None,
                        format!("{k} entry {i} removed"),
                    ),
                    (None, None) => {}
                }
            }
        }
        for k in ["oneOf", "if"] {
            let (a, b) = (c.o.get(k), c.n.get(k));
            // Presence matters as much as content: without `if`, `then` and `else` are ignored.
            let changed = match (a, b) {
                (Some(x), Some(y)) => self.differ(x, y),
                (None, None) => false,
                _ => true,
            };
            if changed {
                let at = |p: Option<&str>, v: Option<&Value>| v.and(p).map(|p| child(p, k));
                self.record(
                    "EVO-SCHEMA-022",
                    Effect::Unknown,
                    at(po, a).as_deref(),
                    at(pn, b).as_deref(),
                    format!(
                        "{k} changed; exclusive choice and conditions are not decided by the walk"
                    ),
                );
            }
        }
        let same_if = c.o.get("if").is_some() && c.o.get("if") == c.n.get("if");
        if same_if {
            // With the same condition, `then` and `else` each only constrain their half.
            for k in ["then", "else"] {
                self.sub(c, k);
            }
        }
        match (c.o.get("not"), c.n.get("not")) {
            (Some(a), Some(b)) => {
                self.neg = !self.neg;
                let (io, in_) = (po.map(|p| child(p, "not")), pn.map(|p| child(p, "not")));
                self.compare(a, b, io.as_deref(), in_.as_deref());
                self.neg = !self.neg;
            }
            (None, Some(_)) => self.record(
                "EVO-SCHEMA-021",
                Effect::Narrows,
                None,
                pn.map(|p| child(p, "not")).as_deref(),
                "not added".to_owned(),
            ),
            (Some(_), None) => self.record(
                "EVO-SCHEMA-021",
                Effect::Widens,
                po.map(|p| child(p, "not")).as_deref(),
                None,
                "not removed".to_owned(),
            ),
            (None, None) => {}
        }
    }

    /// Compares the subschema under keyword `k` on both sides, `true` where it is absent.
    pub(crate) fn sub(&mut self, c: &keywords::Ctx<'_>, k: &str) {
        let (a, b) = (c.o.get(k), c.n.get(k));
        if a.is_none() && b.is_none() {
            return;
        }
        let io = c.po.filter(|_| a.is_some()).map(|p| child(p, k));
        let in_ = c.pn.filter(|_| b.is_some()).map(|p| child(p, k));
        self.compare(
            a.unwrap_or(&TRUE),
            b.unwrap_or(&TRUE),
            io.as_deref(),
            in_.as_deref(),
        );
    }

    fn reference(&mut self, c: &keywords::Ctx<'_>) {
        let (a, b) = (c.o.get("$ref"), c.n.get("$ref"));
        if a.is_none() && b.is_none() {
            return;
        }
        let target =
            |root: &'a Value, r: Option<&Value>| -> Result<(Value, Option<String>), String> {
                match r {
                    None => Ok((TRUE, None)),
                    Some(Value::String(s)) => resolve_local(root, s)
                        .map(|(v, p)| (v.clone(), Some(p)))
                        .ok_or_else(|| s.clone()),
                    Some(other) => Err(other.to_string()),
                }
            };
        let (to, tn) = match (target(self.old_root, a), target(self.new_root, b)) {
            (Ok(x), Ok(y)) => (x, y),
            (x, y) => {
                let bad: Vec<String> = [x.err(), y.err()].into_iter().flatten().collect();
                let at = |p: Option<&str>, v: Option<&Value>| v.and(p).map(|p| child(p, "$ref"));
                self.record(
                    "EVO-SCHEMA-023",
                    Effect::Unknown,
                    at(c.po, a).as_deref(),
                    at(c.pn, b).as_deref(),
                    format!(
                        "$ref {} does not resolve inside the schema; not judged",
                        bad.join(", ")
                    ),
                );
                return;
            }
        };
        let key = (
            to.1.clone().unwrap_or_default(),
            tn.1.clone().unwrap_or_default(),
            self.neg,
        );
        if self.done.contains(&key) {
            return;
        }
        if self.expanding.contains(&key) {
            if self.differ(&to.0, &tn.0) {
                self.record(
                    "EVO-SCHEMA-024",
                    Effect::Unknown,
                    to.1.as_deref(),
                    tn.1.as_deref(),
                    "a recursive $ref target changed; recursion is not judged by the walk"
                        .to_owned(),
                );
            }
            return;
        }
        self.expanding.push(key.clone());
        self.compare(&to.0, &tn.0, to.1.as_deref(), tn.1.as_deref());
        self.expanding.pop();
        self.done.insert(key);
    }
}

fn as_map(v: &Value) -> &serde_json::Map<String, Value> {
    static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
    v.as_object()
        .unwrap_or_else(|| EMPTY.get_or_init(serde_json::Map::new))
}

/// Whether a `$ref` (or another reference keyword) appears anywhere in `v`. Data keywords are
/// searched too, and a value nested deeper than the walk goes counts as having one: a false
/// positive only costs a deeper walk, and the search must not recurse without bound.
fn contains_reference(v: &Value) -> bool {
    fn search(v: &Value, depth: usize) -> bool {
        if depth > 4 * MAX_DEPTH {
            return true;
        }
        match v {
            Value::Object(m) => m.iter().any(|(k, v)| {
                matches!(k.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef")
                    || search(v, depth + 1)
            }),
            Value::Array(a) => a.iter().any(|v| search(v, depth + 1)),
            _ => false,
        }
    }
    search(v, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One `$defs` entry reached under `not` (through a removed property) and positively: the
    /// positive use must still be reported after the negated one was compared.
    #[test]
    fn a_reference_met_under_both_polarities_is_judged_under_both() {
        let defs = |min: u64| json!({"X": {"type": "string", "minLength": min}});
        let schema = |min: u64, with_b: bool| {
            let mut props = json!({"a": {"$ref": "#/$defs/X"}});
            if with_b {
                props["b"] = json!({"$ref": "#/$defs/X"});
            }
            // The positive use is the root's own `$ref`, compared after `not`.
            json!({"$defs": defs(min), "not": {"properties": props, "additionalProperties": {"$ref": "#/$defs/X"}},
                   "$ref": "#/$defs/X"})
        };
        let changes = Walk::run(&schema(0, true), &schema(1, false));
        let effects: Vec<Effect> = changes.iter().map(|c| c.effect).collect();
        assert!(effects.contains(&Effect::Narrows), "{changes:#?}");
    }
}
