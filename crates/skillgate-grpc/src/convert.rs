//! Protobuf messages to and from skillgate's A2A types, through their ProtoJSON form: the
//! generated pbjson impls write and read exactly the JSON binding's wire shapes, and the
//! skillgate-a2a serde types already hold every A2A rule, so no rule is written twice here.

use crate::numbers::{inexact_integers, integral_numbers};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use skillgate_a2a::A2aError;
use skillgate_runtime::ServiceError;

/// A request message as the A2A type the service takes. A message the A2A types refuse
/// (a missing required field, two members of a oneof) is `InvalidParams`, as on JSON-RPC.
pub fn request<P: Serialize, T: DeserializeOwned>(msg: &P) -> Result<T, ServiceError> {
    let mut v = serde_json::to_value(msg).map_err(|e| {
        ServiceError::new(
            A2aError::InvalidParams,
            format!("the request has no JSON form: {e}"),
        )
    })?;
    integral_numbers(&mut v);
    serde_json::from_value(v)
        .map_err(|e| ServiceError::new(A2aError::InvalidParams, format!("invalid request: {e}")))
}

/// An A2A value the service answered as the protobuf response message.
pub fn response<T: Serialize, P: DeserializeOwned>(value: &T) -> Result<P, ServiceError> {
    let v = serde_json::to_value(value).map_err(|e| internal(&e))?;
    from_json(v)
}

/// A JSON value of the A2A wire form as a protobuf message (see
/// [`crate::numbers::inexact_integers`]).
pub fn from_json<P: DeserializeOwned>(mut v: Value) -> Result<P, ServiceError> {
    inexact_integers(&mut v);
    serde_json::from_value(v).map_err(|e| internal(&e))
}

fn internal(e: &serde_json::Error) -> ServiceError {
    ServiceError::new(
        A2aError::InternalError,
        format!("the answer does not fit the gRPC message: {e}"),
    )
}
