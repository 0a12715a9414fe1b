//! A2A errors as gRPC statuses: the code of the A2A 1.0.1 table (the one the HTTP+JSON
//! binding also reports in its body's `status`), with a `google.rpc.ErrorInfo` detail
//! (reason, domain `a2a-protocol.org`) in `grpc-status-details-bin`.

use skillgate_a2a::error::ERROR_DOMAIN;
use skillgate_a2a::A2aError;
use skillgate_runtime::AuthRefusal;
use skillgate_runtime::ServiceError;
use std::collections::HashMap;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// The gRPC code of a status name of the A2A table ([`A2aError::grpc_status`]).
fn code_of(name: &str) -> Code {
    match name {
        "INVALID_ARGUMENT" => Code::InvalidArgument,
        "NOT_FOUND" => Code::NotFound,
        "FAILED_PRECONDITION" => Code::FailedPrecondition,
        "UNIMPLEMENTED" => Code::Unimplemented,
        "UNAUTHENTICATED" => Code::Unauthenticated,
        "PERMISSION_DENIED" => Code::PermissionDenied,
        "RESOURCE_EXHAUSTED" => Code::ResourceExhausted,
        "UNAVAILABLE" => Code::Unavailable,
        _ => Code::Internal,
    }
}

/// The status of an A2A error on the 0.3 service (`a2a.v1`): the code and message text of
/// `skillgate_a2a::v03::error::grpc_status` (a2a-sdk 0.3.26's table), no ErrorInfo detail,
/// since 0.3 defines none and its clients read only the code and text.
pub fn v03_status(kind: A2aError, message: &str) -> Status {
    let (code, text) = skillgate_a2a::v03::error::grpc_status(kind, message);
    Status::new(code_of(code), text)
}

/// The status of an A2A error, with its ErrorInfo.
pub fn a2a_status(kind: A2aError, message: impl Into<String>) -> Status {
    Status::with_error_details(
        code_of(kind.grpc_status()),
        message,
        ErrorDetails::with_error_info(kind.reason(), ERROR_DOMAIN, HashMap::new()),
    )
}

/// The status of a service error.
pub fn service_status(e: ServiceError) -> Status {
    a2a_status(e.kind, e.message)
}

/// The status of a failed bearer check: `UNAUTHENTICATED` (the A2A table has no error for
/// it, so no ErrorInfo), or `INVALID_ARGUMENT` for two `authorization` values.
pub fn auth_status(e: AuthRefusal) -> Status {
    match e {
        AuthRefusal::Ambiguous => Status::invalid_argument(e.to_string()),
        AuthRefusal::Missing | AuthRefusal::Invalid => Status::unauthenticated(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_a2a_error_has_a_code_and_error_info() {
        for kind in A2aError::ALL {
            let s = a2a_status(kind, "m");
            assert_ne!(s.code(), Code::Ok);
            assert_ne!(s.code(), Code::Unknown);
            let info = s.get_error_details().error_info().cloned();
            let info = info.expect("ErrorInfo");
            assert_eq!(info.reason, kind.reason());
            assert_eq!(info.domain, ERROR_DOMAIN);
        }
        assert_eq!(
            a2a_status(A2aError::TaskNotFound, "x").code(),
            Code::NotFound
        );
        assert_eq!(
            a2a_status(A2aError::UnsupportedOperation, "x").code(),
            Code::FailedPrecondition
        );
    }
}
