//! Probe arguments generated from an input schema, so the checker works on agents it has
//! never seen: valid instances (types, `required`, `properties`, `enum`/`const`, bounds,
//! lengths, `items`/`minItems`, `format: date-time`, local `$ref`, `allOf`/`anyOf`/`oneOf`,
//! `if`/`then`/`else`) and minimal invalid ones (a required member dropped, a member of the
//! wrong type). Every candidate is checked with the skill's compiled input schema before it is
//! used, so a generator shortcut can only lead to a skip, never to a wrong verdict.

use serde_json::{json, Map, Value};
use skillgate_core::instance::CompiledSchema;

/// A string no agent should ever echo back in an error: used as the wrong-typed value where a
/// member does not accept strings, so an error that repeats it is caught.
pub const ECHO_MARKER: &str = "skillgate-probe-value-do-not-echo-7f3c";

/// Common tokens tried for free-form strings, in order: identifiers that exist on many
/// systems give a valid call a chance to be accepted, not only to be well-typed.
const STRING_SEEDS: [&str; 4] = ["lo", "localhost", "example", "test"];

/// Largest number of valid candidates tried before a valid call is recorded as a skip.
pub const MAX_VALID_VARIANTS: usize = 6;

const MAX_DEPTH: usize = 24;

/// Private key of a folded schema holding its `if`/`then`/`else` triples.
const CONDITIONALS: &str = "\u{0}conditionals";

/// A generated invalid instance and what makes it invalid.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidProbe {
    /// The instance.
    pub instance: Value,
    /// What was changed, for evidence.
    pub change: String,
    /// Whether the instance carries [`ECHO_MARKER`].
    pub carries_marker: bool,
}

/// Generates valid instances of `root`, varied by `variant` (enum member and string seed).
pub fn valid_instance(root: &Value, variant: usize) -> Option<Value> {
    Gen {
        root,
        variant,
        budget: std::cell::Cell::new(NODE_BUDGET),
    }
    .value(root, 0)
}

/// Up to [`MAX_VALID_VARIANTS`] distinct generated instances that `validator` accepts.
pub fn valid_candidates(root: &Value, validator: &CompiledSchema) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for variant in 0..MAX_VALID_VARIANTS * 3 {
        if out.len() >= MAX_VALID_VARIANTS {
            break;
        }
        if let Some(v) = valid_instance(root, variant) {
            if validator.is_valid(&v) && !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// The minimal invalid instance with a required member dropped, if the schema has one.
pub fn missing_required(
    root: &Value,
    valid: &Value,
    validator: &CompiledSchema,
) -> Option<InvalidProbe> {
    let obj = valid.as_object()?;
    for name in required_of(root, root) {
        if obj.contains_key(&name) {
            let mut broken = obj.clone();
            broken.remove(&name);
            let instance = Value::Object(broken);
            if !validator.is_valid(&instance) {
                return Some(InvalidProbe {
                    instance,
                    change: format!("required member {:?} dropped", name),
                    carries_marker: false,
                });
            }
        }
    }
    None
}

/// The minimal invalid instance with one member replaced by a value of a wrong type; prefers
/// a member that does not accept strings, so the replacement can carry [`ECHO_MARKER`].
pub fn wrong_type(root: &Value, valid: &Value, validator: &CompiledSchema) -> Option<InvalidProbe> {
    let candidates: [(Value, bool); 5] = [
        (Value::String(ECHO_MARKER.into()), true),
        (json!(7), false),
        (json!(true), false),
        (json!([]), false),
        (json!({}), false),
    ];
    if let Some(obj) = valid.as_object() {
        // Members in order of appearance in `required`, then the rest.
        let mut names: Vec<String> = required_of(root, root)
            .into_iter()
            .filter(|n| obj.contains_key(n))
            .collect();
        for k in obj.keys() {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
        for (value, marker) in &candidates {
            for name in &names {
                let mut broken = obj.clone();
                broken.insert(name.clone(), value.clone());
                let instance = Value::Object(broken);
                if !validator.is_valid(&instance) {
                    return Some(InvalidProbe {
                        instance,
                        change: format!(
                            "member {:?} set to a {} ({})",
                            name,
                            skillgate_core::instance::json_type(value),
                            crate::probe::show(value, 60)
                        ),
                        carries_marker: *marker,
                    });
                }
            }
        }
    }
    for (value, marker) in candidates {
        if !validator.is_valid(&value) {
            let change = format!(
                "arguments replaced by a {}",
                skillgate_core::instance::json_type(&value)
            );
            return Some(InvalidProbe {
                instance: value,
                change,
                carries_marker: marker,
            });
        }
    }
    None
}

/// An invalid instance that carries [`ECHO_MARKER`]: a member set to the marker (an enum,
/// const or non-string member), a string member stretched past its `maxLength`, or an extra
/// member where `additionalProperties` is false. Used when the wrong-type probe cannot carry it.
pub fn echo_probe(valid: &Value, validator: &CompiledSchema) -> Option<InvalidProbe> {
    let obj = valid.as_object()?;
    let probe = |instance: Value, change: String| {
        (!validator.is_valid(&instance)).then_some(InvalidProbe {
            instance,
            change,
            carries_marker: true,
        })
    };
    for name in obj.keys() {
        let mut broken = obj.clone();
        broken.insert(name.clone(), Value::String(ECHO_MARKER.into()));
        if let Some(p) = probe(
            Value::Object(broken),
            format!("member {name:?} set to the probe string"),
        ) {
            return Some(p);
        }
    }
    // Long enough for most maxLength bounds (bounded, so the request stays small).
    let long = ECHO_MARKER.repeat(128);
    for name in obj.keys().filter(|k| obj[k.as_str()].is_string()) {
        let mut broken = obj.clone();
        broken.insert(name.clone(), Value::String(long.clone()));
        if let Some(p) = probe(
            Value::Object(broken),
            format!("member {name:?} set to the probe string repeated past any maxLength"),
        ) {
            return Some(p);
        }
    }
    let mut broken = obj.clone();
    broken.insert("skillgate_probe".into(), Value::String(ECHO_MARKER.into()));
    probe(
        Value::Object(broken),
        "undeclared member \"skillgate_probe\" added".into(),
    )
}

/// `required` of an object schema, following a local `$ref` and `allOf`.
fn required_of(root: &Value, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut budget = NODE_BUDGET;
    collect_required(root, schema, &mut out, 0, &mut budget);
    out
}

fn collect_required(
    root: &Value,
    schema: &Value,
    out: &mut Vec<String>,
    depth: usize,
    budget: &mut usize,
) {
    if depth > MAX_DEPTH || *budget == 0 {
        return;
    }
    *budget -= 1;
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
    {
        collect_required(root, target, out, depth + 1, budget);
    }
    if let Some(req) = schema.get("required").and_then(Value::as_array) {
        for r in req.iter().filter_map(Value::as_str) {
            if !out.iter().any(|o| o == r) {
                out.push(r.to_owned());
            }
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            collect_required(root, s, out, depth + 1, budget);
        }
    }
}

/// Resolves a same-document reference (`#`, `#/json/pointer`).
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let frag = reference.strip_prefix('#')?;
    if frag.is_empty() {
        return Some(root);
    }
    let decoded = percent_decode(frag)?;
    root.pointer(&decoded)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

struct Gen<'a> {
    root: &'a Value,
    variant: usize,
    /// Schema nodes still allowed to be visited: a hostile schema (self-referencing `anyOf`
    /// or `allOf` branches) must not turn generation exponential.
    budget: std::cell::Cell<usize>,
}

/// Schema nodes one generated instance may visit.
const NODE_BUDGET: usize = 20_000;

impl Gen<'_> {
    fn spend(&self) -> bool {
        let left = self.budget.get();
        if left == 0 {
            return false;
        }
        self.budget.set(left - 1);
        true
    }
}

const TYPE_ORDER: [&str; 7] = [
    "object", "array", "string", "integer", "number", "boolean", "null",
];

impl Gen<'_> {
    fn enum_pick<'v>(&self, members: &'v [Value]) -> Option<&'v Value> {
        if members.is_empty() {
            None
        } else {
            members.get(self.variant % members.len())
        }
    }

    fn seed(&self) -> &'static str {
        // The string seed changes only after every enum choice has been tried with it.
        STRING_SEEDS[(self.variant / 3) % STRING_SEEDS.len()]
    }

    /// Folds `allOf` members (and a local `$ref`) into one schema object.
    fn merged(&self, schema: &Value, depth: usize) -> Option<Map<String, Value>> {
        if depth > MAX_DEPTH || !self.spend() {
            return None;
        }
        let obj = match schema {
            Value::Bool(true) => return Some(Map::new()),
            Value::Bool(false) => return None,
            Value::Object(o) => o,
            _ => return Some(Map::new()),
        };
        let mut out = Map::new();
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            let target = resolve(self.root, r)?;
            out = self.merged(target, depth + 1)?;
        }
        for (k, v) in obj {
            if matches!(k.as_str(), "$ref" | "allOf" | "if" | "then" | "else") {
                continue;
            }
            merge_keyword(&mut out, k, v);
        }
        if let Some(cond) = obj.get("if") {
            let mut entry = Map::new();
            entry.insert("if".into(), cond.clone());
            for k in ["then", "else"] {
                if let Some(b) = obj.get(k) {
                    entry.insert(k.into(), b.clone());
                }
            }
            merge_keyword(&mut out, CONDITIONALS, &json!([entry]));
        }
        if let Some(all) = obj.get("allOf").and_then(Value::as_array) {
            for member in all {
                let m = self.merged(member, depth + 1)?;
                for (k, v) in &m {
                    merge_keyword(&mut out, k, v);
                }
            }
        }
        Some(out)
    }

    fn value(&self, schema: &Value, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH || !self.spend() {
            return None;
        }
        let s = self.merged(schema, depth)?;
        if let Some(c) = s.get("const") {
            return Some(c.clone());
        }
        if let Some(e) = s.get("enum").and_then(Value::as_array) {
            return self.enum_pick(e).cloned();
        }
        if let Some(d) = s.get("default") {
            return Some(d.clone());
        }
        if let Some(ex) = s
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            return Some(ex.clone());
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(alts) = s.get(key).and_then(Value::as_array) {
                let mut base = s.clone();
                base.remove("oneOf");
                base.remove("anyOf");
                for alt in alts {
                    let mut combined = base.clone();
                    if let Some(m) = self.merged(alt, depth + 1) {
                        for (k, v) in &m {
                            merge_keyword(&mut combined, k, v);
                        }
                        if let Some(v) = self.value(&Value::Object(combined), depth + 1) {
                            return Some(v);
                        }
                    }
                }
                return None;
            }
        }
        let ty = pick_type(&s);
        let mut v = match ty {
            "object" => self.object(&s, depth)?,
            "array" => self.array(&s, depth)?,
            "string" => Value::String(self.string(&s)),
            "integer" => integer(&s)?,
            "number" => number(&s)?,
            "boolean" => Value::Bool(true),
            _ => Value::Null,
        };
        if ty == "object" {
            self.conditionals(&s, &mut v, depth);
        }
        Some(v)
    }

    fn object(&self, s: &Map<String, Value>, depth: usize) -> Option<Value> {
        let props = s.get("properties").and_then(Value::as_object);
        let mut out = Map::new();
        let mut names: Vec<String> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let min = s.get("minProperties").and_then(Value::as_u64).unwrap_or(0) as usize;
        if names.len() < min {
            if let Some(p) = props {
                for k in p.keys() {
                    if names.len() >= min {
                        break;
                    }
                    if !names.contains(k) {
                        names.push(k.clone());
                    }
                }
            }
        }
        for name in names {
            let sub = props
                .and_then(|p| p.get(&name))
                .cloned()
                .or_else(|| {
                    s.get("additionalProperties")
                        .filter(|a| a.is_object())
                        .cloned()
                })
                .unwrap_or(Value::Bool(true));
            out.insert(name, self.value(&sub, depth + 1)?);
        }
        Some(Value::Object(out))
    }

    /// Applies `if`/`then`/`else` of an object schema (also those folded in from `allOf`).
    fn conditionals(&self, s: &Map<String, Value>, v: &mut Value, depth: usize) {
        let mut conds: Vec<(&Value, Option<&Value>, Option<&Value>)> = Vec::new();
        for c in s
            .get(CONDITIONALS)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(i) = c.get("if") {
                conds.push((i, c.get("then"), c.get("else")));
            }
        }
        for (cond, then, otherwise) in conds {
            let holds = CompiledSchema::compile(cond)
                .map(|c| c.is_valid(v))
                .unwrap_or(false);
            let branch = if holds { then } else { otherwise };
            if let Some(b) = branch {
                self.apply(b, v, depth + 1);
            }
        }
    }

    /// Makes `v` satisfy the properties and `required` of a branch schema.
    fn apply(&self, branch: &Value, v: &mut Value, depth: usize) {
        let Some(obj) = v.as_object_mut() else {
            return;
        };
        let Some(b) = self.merged(branch, depth) else {
            return;
        };
        if let Some(props) = b.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                let has_value_rule = ["const", "enum"].iter().any(|k| sub.get(k).is_some());
                if obj.contains_key(name) && has_value_rule {
                    if let Some(nv) = self.value(sub, depth + 1) {
                        obj.insert(name.clone(), nv);
                    }
                }
            }
        }
        if let Some(req) = b.get("required").and_then(Value::as_array) {
            for name in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(name) {
                    let sub = b
                        .get("properties")
                        .and_then(|p| p.get(name))
                        .cloned()
                        .unwrap_or(Value::Bool(true));
                    if let Some(nv) = self.value(&sub, depth + 1) {
                        obj.insert(name.to_owned(), nv);
                    }
                }
            }
        }
    }

    fn array(&self, s: &Map<String, Value>, depth: usize) -> Option<Value> {
        let min = s
            .get("minItems")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .min(64) as usize;
        let mut out = Vec::new();
        if let Some(prefix) = s.get("prefixItems").and_then(Value::as_array) {
            for p in prefix.iter().take(min) {
                out.push(self.value(p, depth + 1)?);
            }
        }
        let items = s.get("items").cloned().unwrap_or(Value::Bool(true));
        let mut k = 0;
        while out.len() < min {
            let g = Gen {
                root: self.root,
                variant: self.variant + k,
                budget: std::cell::Cell::new(self.budget.get()),
            };
            out.push(g.value(&items, depth + 1)?);
            self.budget.set(g.budget.get());
            k += 1;
            if k > 256 {
                return None;
            }
        }
        if let Some(c) = s.get("contains") {
            if out.is_empty() || s.get("minContains").is_some() {
                out.push(self.value(c, depth + 1)?);
            }
        }
        Some(Value::Array(out))
    }

    fn string(&self, s: &Map<String, Value>) -> String {
        let base = match s.get("format").and_then(Value::as_str) {
            Some("date-time") => "2026-01-01T00:00:00Z".to_owned(),
            Some("date") => "2026-01-01".to_owned(),
            Some("time") => "00:00:00Z".to_owned(),
            Some("email") => "probe@example.com".to_owned(),
            Some("uri") | Some("iri") => "urn:example:probe".to_owned(),
            Some("uri-reference") | Some("iri-reference") => "urn:example:probe".to_owned(),
            Some("uuid") => "00000000-0000-4000-8000-000000000000".to_owned(),
            Some("ipv4") => "127.0.0.1".to_owned(),
            Some("ipv6") => "::1".to_owned(),
            Some("hostname") | Some("idn-hostname") => "localhost".to_owned(),
            _ => self.seed().to_owned(),
        };
        let min = s
            .get("minLength")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .min(4096) as usize;
        let max = s
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let mut out = base;
        while out.chars().count() < min {
            out.push('a');
        }
        if let Some(max) = max {
            if out.chars().count() > max {
                out = out.chars().take(max).collect();
            }
        }
        out
    }
}

/// Merges one keyword into a folded schema: `properties` merge member-wise (as `allOf`),
/// `required` unions, bounds tighten, anything else from the later schema wins.
fn merge_keyword(out: &mut Map<String, Value>, k: &str, v: &Value) {
    match (k, out.get_mut(k)) {
        ("properties", Some(Value::Object(existing))) => {
            if let Some(new) = v.as_object() {
                for (name, sub) in new {
                    match existing.get_mut(name) {
                        Some(prev) => {
                            *prev = json!({"allOf": [prev.clone(), sub.clone()]});
                        }
                        None => {
                            existing.insert(name.clone(), sub.clone());
                        }
                    }
                }
            }
        }
        ("required", Some(Value::Array(existing))) => {
            for r in v.as_array().into_iter().flatten() {
                if !existing.contains(r) {
                    existing.push(r.clone());
                }
            }
        }
        (
            "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties",
            Some(prev),
        ) => {
            if let (Some(a), Some(b)) = (prev.as_f64(), v.as_f64()) {
                if b > a {
                    *prev = v.clone();
                }
            }
        }
        (
            "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties",
            Some(prev),
        ) => {
            if let (Some(a), Some(b)) = (prev.as_f64(), v.as_f64()) {
                if b < a {
                    *prev = v.clone();
                }
            }
        }
        (CONDITIONALS, Some(Value::Array(existing))) => {
            // Conditionals of several allOf members are kept apart, one entry each.
            existing.extend(v.as_array().into_iter().flatten().cloned());
        }
        _ => {
            out.insert(k.to_owned(), v.clone());
        }
    }
}

fn pick_type(s: &Map<String, Value>) -> &'static str {
    let declared: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !declared.is_empty() {
        // The first declared non-null type: a real value exercises more of the skill.
        for t in declared.iter().filter(|t| **t != "null") {
            if let Some(known) = TYPE_ORDER.iter().find(|k| *k == t) {
                return known;
            }
        }
        return "null";
    }
    let has = |k: &str| s.contains_key(k);
    if has("properties") || has("required") || has("additionalProperties") || has("minProperties") {
        "object"
    } else if has("items") || has("prefixItems") || has("minItems") || has("contains") {
        "array"
    } else if has("minLength") || has("maxLength") || has("pattern") || has("format") {
        "string"
    } else if has("minimum")
        || has("maximum")
        || has("exclusiveMinimum")
        || has("exclusiveMaximum")
        || has("multipleOf")
    {
        "number"
    } else {
        "string"
    }
}

fn bounds(s: &Map<String, Value>) -> (Option<f64>, bool, Option<f64>, bool) {
    let f = |k: &str| s.get(k).and_then(Value::as_f64);
    let (lo, lo_ex) = match (f("minimum"), f("exclusiveMinimum")) {
        (Some(a), Some(b)) if b >= a => (Some(b), true),
        (Some(a), _) => (Some(a), false),
        (None, Some(b)) => (Some(b), true),
        (None, None) => (None, false),
    };
    let (hi, hi_ex) = match (f("maximum"), f("exclusiveMaximum")) {
        (Some(a), Some(b)) if b <= a => (Some(b), true),
        (Some(a), _) => (Some(a), false),
        (None, Some(b)) => (Some(b), true),
        (None, None) => (None, false),
    };
    (lo, lo_ex, hi, hi_ex)
}

fn integer(s: &Map<String, Value>) -> Option<Value> {
    let (lo, lo_ex, hi, hi_ex) = bounds(s);
    let mut lo_i = lo.map(|l| {
        if lo_ex {
            l.floor() as i64 + 1
        } else {
            l.ceil() as i64
        }
    });
    let hi_i = hi.map(|h| {
        if hi_ex {
            h.ceil() as i64 - 1
        } else {
            h.floor() as i64
        }
    });
    if let Some(m) = s.get("multipleOf").and_then(Value::as_f64) {
        if m >= 1.0 && m.fract() == 0.0 {
            let m = m as i64;
            lo_i = Some(match lo_i {
                Some(l) => l.div_euclid(m) * m + if l.rem_euclid(m) == 0 { 0 } else { m },
                None => 0,
            });
        }
    }
    let v = match (lo_i, hi_i) {
        (Some(l), Some(h)) if l > h => return None,
        (Some(l), _) => l,
        (None, Some(h)) => h.min(0),
        (None, None) => 0,
    };
    Some(json!(v))
}

fn number(s: &Map<String, Value>) -> Option<Value> {
    if s.get("multipleOf").is_some() {
        return integer(s);
    }
    let (lo, lo_ex, hi, hi_ex) = bounds(s);
    let v = match (lo, hi) {
        (Some(l), Some(h)) if l > h => return None,
        (Some(l), Some(h)) if lo_ex || hi_ex => (l + h) / 2.0,
        (Some(l), _) if lo_ex => l + 1.0,
        (Some(l), _) => l,
        (None, Some(h)) if hi_ex => h.min(1.0) - 1.0,
        (None, Some(h)) => h.min(0.0),
        (None, None) => 0.0,
    };
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Some(json!(v as i64))
    } else {
        serde_json::Number::from_f64(v).map(Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(s: &Value) -> CompiledSchema {
        CompiledSchema::compile(s).unwrap()
    }

    #[test]
    fn object_with_required_bounds_and_formats() {
        let s = json!({
            "type": "object",
            "required": ["name", "count", "at", "tags", "mode"],
            "properties": {
                "name": {"type": "string", "minLength": 3, "maxLength": 5},
                "count": {"type": "integer", "minimum": 10, "maximum": 20},
                "at": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "mode": {"enum": ["a", "b"]},
                "optional": {"type": "boolean"}
            },
            "additionalProperties": false
        });
        let v = valid_instance(&s, 0).unwrap();
        assert!(compiled(&s).is_valid(&v), "{v}");
        assert_eq!(v["count"], 10);
        assert!(v.get("optional").is_none());
        assert_eq!(v["tags"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn local_refs_and_exclusive_bounds() {
        let s = json!({
            "type": "object",
            "required": ["c", "r"],
            "properties": {"c": {"$ref": "#/$defs/counter"}, "r": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}},
            "$defs": {"counter": {"type": "integer", "minimum": 5}}
        });
        let v = valid_instance(&s, 0).unwrap();
        assert!(compiled(&s).is_valid(&v), "{v}");
        assert_eq!(v["c"], 5);
    }

    #[test]
    fn if_then_conditionals_in_all_of_are_honoured() {
        let s = json!({
            "type": "object",
            "required": ["metric", "unit"],
            "properties": {"metric": {"enum": ["u", "r"]}, "unit": {"enum": ["percent", "bps"]}},
            "allOf": [
                {"if": {"properties": {"metric": {"const": "u"}}, "required": ["metric"]},
                 "then": {"properties": {"unit": {"const": "percent"}}}},
                {"if": {"properties": {"metric": {"const": "r"}}, "required": ["metric"]},
                 "then": {"properties": {"unit": {"const": "bps"}}}}
            ]
        });
        let c = compiled(&s);
        for variant in 0..4 {
            let v = valid_instance(&s, variant).unwrap();
            assert!(c.is_valid(&v), "variant {variant}: {v}");
        }
        let all = valid_candidates(&s, &c);
        assert!(all.len() >= 2, "{all:?}");
    }

    #[test]
    fn invalid_probes_are_invalid_and_prefer_the_marker() {
        let s = json!({
            "type": "object",
            "required": ["host", "n"],
            "properties": {"host": {"type": "string"}, "n": {"type": "integer"}}
        });
        let c = compiled(&s);
        let v = valid_instance(&s, 0).unwrap();
        let missing = missing_required(&s, &v, &c).unwrap();
        assert!(!c.is_valid(&missing.instance));
        assert!(missing.instance.get("host").is_none());
        let wrong = wrong_type(&s, &v, &c).unwrap();
        assert!(!c.is_valid(&wrong.instance));
        assert!(wrong.carries_marker);
        assert_eq!(wrong.instance["n"], ECHO_MARKER);
    }

    #[test]
    fn echo_probes_for_string_only_schemas() {
        let s = json!({"type": "object", "required": ["i"], "additionalProperties": false,
            "properties": {"i": {"type": "string", "maxLength": 50}}});
        let c = compiled(&s);
        let v = valid_instance(&s, 0).unwrap();
        let w = wrong_type(&s, &v, &c).unwrap();
        assert!(!w.carries_marker);
        let e = echo_probe(&v, &c).unwrap();
        assert!(e.carries_marker && !c.is_valid(&e.instance));
        assert!(e.instance["i"].as_str().unwrap().len() > 50);
        let open = json!({"type": "object", "properties": {"i": {"type": "string"}}});
        let c = compiled(&open);
        assert!(echo_probe(&json!({"i": "x"}), &c).is_none());
    }

    #[test]
    fn schemas_that_accept_anything_have_no_invalid_probe() {
        let s = json!({});
        let c = compiled(&s);
        let v = valid_instance(&s, 0).unwrap();
        assert!(c.is_valid(&v));
        assert!(missing_required(&s, &v, &c).is_none());
        assert!(wrong_type(&s, &v, &c).is_none());
    }

    #[test]
    fn hostile_recursive_schemas_stop_quickly() {
        let s = json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}},
            "allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]});
        let started = std::time::Instant::now();
        assert!(valid_instance(&s, 0).is_none());
        assert!(required_of(&s, &s).is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn unsatisfiable_bounds_give_nothing() {
        let s = json!({"type": "integer", "minimum": 5, "maximum": 1});
        assert!(valid_instance(&s, 0).is_none());
        assert!(valid_instance(&json!(false), 0).is_none());
    }
}
