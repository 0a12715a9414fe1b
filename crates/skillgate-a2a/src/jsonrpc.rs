//! JSON-RPC 2.0 envelopes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A request id: string, number or null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonRpcId {
    /// A string id.
    String(String),
    /// A numeric id, kept exactly.
    Number(serde_json::Number),
    /// `null` (also used when the id could not be read).
    Null,
    /// A numeric id outside the 64-bit integers (`18446744073709551616`, `1.50`, `1e400`),
    /// kept as the caller wrote it: as a [`serde_json::Number`] it would come back as a
    /// float. Built by [`JsonRpcId::raw_number`]; never produced by deserialization.
    #[serde(skip_deserializing)]
    RawNumber(RawNumber),
}

/// The text of a JSON number, written back verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawNumber(String);

impl RawNumber {
    /// The number as it was written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Serialize for RawNumber {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::value::RawValue::from_string(self.0.clone())
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

impl JsonRpcId {
    /// The id for the JSON number `text` (as found in a request body): a plain
    /// [`JsonRpcId::Number`] when it is a 64-bit integer, else a [`JsonRpcId::RawNumber`]
    /// that echoes it exactly; `None` if `text` is not a JSON number.
    pub fn raw_number(text: &str) -> Option<Self> {
        let text = text.trim();
        let b = text.as_bytes();
        let number_like = !b.is_empty()
            && (b[0] == b'-' || b[0].is_ascii_digit())
            && b.iter()
                .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'));
        if !number_like || serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
            return None;
        }
        if let Ok(i) = text.parse::<i64>() {
            return Some(Self::Number(i.into()));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Some(Self::Number(u.into()));
        }
        Some(Self::RawNumber(RawNumber(text.to_owned())))
    }
}

/// Why a JSON value is not a JSON-RPC request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON-RPC request: {0}")]
pub struct EnvelopeError(pub String);

/// A JSON-RPC 2.0 request (notifications, without `id`, have `id: None`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The id; `None` for a notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<JsonRpcId>,
    /// Method name.
    pub method: String,
    /// Params (object for A2A).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl JsonRpcRequest {
    /// A request with `jsonrpc: "2.0"`.
    pub fn new(id: JsonRpcId, method: impl Into<String>, params: Value) -> Self {
        Self {
            jsonrpc: "2.0".into(),
            id: Some(id),
            method: method.into(),
            params: Some(params),
        }
    }

    /// Reads the id of a JSON value that may not be a valid request, for the error reply.
    pub fn id_of(v: &Value) -> JsonRpcId {
        match v.get("id") {
            Some(Value::String(s)) => JsonRpcId::String(s.clone()),
            Some(Value::Number(n)) => JsonRpcId::Number(n.clone()),
            _ => JsonRpcId::Null,
        }
    }

    /// Checks the envelope strictly: object, `jsonrpc == "2.0"`, string `method`, id of a
    /// permitted type, params an object or array if present.
    pub fn from_value(v: Value) -> Result<Self, EnvelopeError> {
        let Value::Object(mut m) = v else {
            return Err(EnvelopeError("the request must be a JSON object".into()));
        };
        match m.get("jsonrpc") {
            Some(Value::String(s)) if s == "2.0" => {}
            _ => return Err(EnvelopeError("\"jsonrpc\" must be \"2.0\"".into())),
        }
        let id = match m.remove("id") {
            None => None,
            Some(Value::String(s)) => Some(JsonRpcId::String(s)),
            Some(Value::Number(n)) => Some(JsonRpcId::Number(n)),
            Some(Value::Null) => Some(JsonRpcId::Null),
            Some(_) => {
                return Err(EnvelopeError(
                    "\"id\" must be a string, a number or null".into(),
                ))
            }
        };
        let method = match m.remove("method") {
            Some(Value::String(s)) if !s.is_empty() => s,
            _ => {
                return Err(EnvelopeError(
                    "\"method\" must be a non-empty string".into(),
                ))
            }
        };
        let params = match m.remove("params") {
            None => None,
            Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
            Some(_) => {
                return Err(EnvelopeError(
                    "\"params\" must be an object or an array".into(),
                ))
            }
        };
        Ok(Self {
            jsonrpc: "2.0".into(),
            id,
            method,
            params,
        })
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("JSON-RPC error {code}: {message}")]
pub struct JsonRpcError {
    /// Error code.
    pub code: i32,
    /// Message.
    pub message: String,
    /// Typed details (`@type` objects, ErrorInfo first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<Value>>,
}

impl JsonRpcError {
    /// The A2A error this code stands for, if standard.
    pub fn kind(&self) -> Option<crate::A2aError> {
        crate::A2aError::from_code(i64::from(self.code))
    }
    /// The ErrorInfo in `data`, if any.
    pub fn error_info(&self) -> Option<crate::ErrorInfo> {
        self.data.as_deref().and_then(crate::ErrorInfo::find)
    }
}

/// A JSON-RPC 2.0 response: exactly one of `result` / `error`.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcResponse {
    /// The request id (null if unknown).
    pub id: JsonRpcId,
    /// The outcome.
    pub outcome: Result<Value, JsonRpcError>,
}

impl JsonRpcResponse {
    /// A success response.
    pub fn result(id: JsonRpcId, result: Value) -> Self {
        Self {
            id,
            outcome: Ok(result),
        }
    }
    /// An error response.
    pub fn error(id: JsonRpcId, error: JsonRpcError) -> Self {
        Self {
            id,
            outcome: Err(error),
        }
    }
    /// Parses a response, requiring exactly one of `result` and `error`.
    pub fn from_value(v: Value) -> Result<Self, EnvelopeError> {
        let Value::Object(mut m) = v else {
            return Err(EnvelopeError("the response must be a JSON object".into()));
        };
        if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(EnvelopeError("\"jsonrpc\" must be \"2.0\"".into()));
        }
        let id = match m.remove("id") {
            Some(Value::String(s)) => JsonRpcId::String(s),
            Some(Value::Number(n)) => JsonRpcId::Number(n),
            Some(Value::Null) | None => JsonRpcId::Null,
            Some(_) => return Err(EnvelopeError("bad \"id\"".into())),
        };
        match (m.remove("result"), m.remove("error")) {
            (Some(r), None) => Ok(Self::result(id, r)),
            (None, Some(e)) => {
                let e: JsonRpcError = serde_json::from_value(e)
                    .map_err(|e| EnvelopeError(format!("bad \"error\": {e}")))?;
                Ok(Self::error(id, e))
            }
            _ => Err(EnvelopeError(
                "exactly one of \"result\" and \"error\" is required".into(),
            )),
        }
    }
}

impl Serialize for JsonRpcResponse {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("jsonrpc", "2.0")?;
        m.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Ok(r) => m.serialize_entry("result", r)?,
            Err(e) => m.serialize_entry("error", e)?,
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for JsonRpcResponse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Self::from_value(v).map_err(serde::de::Error::custom)
    }
}

/// A success response serialized straight from a borrowed result: the bytes of
/// [`JsonRpcResponse::result`] without first turning the result into a `Value` (which would
/// copy it, and parse shared pre-serialized parts back into trees).
#[derive(Debug)]
pub struct JsonRpcSuccess<'a, T: ?Sized> {
    /// The request id.
    pub id: &'a JsonRpcId,
    /// The result.
    pub result: &'a T,
}

impl<T: Serialize + ?Sized> Serialize for JsonRpcSuccess<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("jsonrpc", "2.0")?;
        m.serialize_entry("id", self.id)?;
        m.serialize_entry("result", self.result)?;
        m.end()
    }
}

/// An empty JSON object, handy for params.
pub fn empty_object() -> Value {
    Value::Object(Map::new())
}
